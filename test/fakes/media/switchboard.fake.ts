/**
 * A fake Switchboard upstream: `POST /api/v1/generation/create` with `Idempotency-Key` (the same key
 * and body replay the first answer and charge nothing; another body is 409
 * `idempotency_key_reused`), `GET /api/v1/task/status/{taskId}`, and Standard Webhooks-signed task
 * webhooks `{code: 200, data: task}` (what the gateway sends). `charges` counts the generations it billed.
 *
 * Strict where the interface speaks (test/fixtures/upstreams/switchboard/generation-create.json): a
 * create body with a member other than model, input and webhook is a 400 `invalid_input`.
 * `honoursIdempotencyKey: false` is a peer that is not Switchboard: the interface documents no
 * Idempotency-Key, so it ignores the header and every create is a new, paid task.
 */
import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { bearer, type FakeJob, type FakeReply, FakeUpstream, type FakeUpstreamOptions, guessKind, type JobPhase, type RecordedRequest } from './fake-core.ts';
import { type FieldSchema, schemaProblem } from './schema-check.ts';

const CREATE_BODY: FieldSchema = (
  JSON.parse(readFileSync(new URL('../../fixtures/upstreams/switchboard/generation-create.json', import.meta.url), 'utf8')) as { body: FieldSchema }
).body;

export interface SwitchboardJobMeta {
  model: string;
  input: Record<string, unknown>;
}

export interface SwitchboardFakeOptions extends FakeUpstreamOptions {
  apiKey?: string;
  /** Deduplicate creates by Idempotency-Key, as Switchboard does (default true). */
  honoursIdempotencyKey?: boolean;
}

function sbError(code: number, type: string, errorCode: string, message: string): unknown {
  return { code, error: { message, type, code: errorCode }, requestId: `req_${randomBytes(6).toString('hex')}` };
}

export class SwitchboardFake extends FakeUpstream<SwitchboardJobMeta> {
  readonly apiKey: string;
  readonly webhookSecret = `whsec_${randomBytes(32).toString('base64')}`;
  /** Generations billed (one per created task, none for an idempotent replay). */
  charges = 0;
  /** The account's balance in USD cents, as `GET /api/v1/user/me` reports it. */
  balance = 10_000;
  readonly #idempotency = new Map<string, { hash: string; status: number; body: unknown }>();
  readonly #honoursKey: boolean;

  constructor(options: SwitchboardFakeOptions = {}) {
    super((request, reply) => this.#handle(request, reply), options);
    this.apiKey = options.apiKey ?? 'sb_test_key';
    this.#honoursKey = options.honoursIdempotencyKey ?? true;
    this.callbackFor = (job, phase) => this.#webhook(job, phase);
  }

  #handle(request: RecordedRequest, reply: FakeReply): void {
    if (bearer(request) !== this.apiKey) {
      reply.json(401, sbError(401, 'unauthorized', 'unauthorized', 'Invalid or missing API key.'));
      return;
    }
    if (request.method === 'POST' && request.path === '/api/v1/generation/create') {
      this.#create(request, reply);
      return;
    }
    if (request.method === 'GET' && request.path === '/api/v1/user/me') {
      reply.json(200, { code: 200, data: { id: 'usr_fake', balance: this.balance, createdAt: '2026-01-01T00:00:00.000Z' } });
      return;
    }
    const status = /^\/api\/v1\/task\/status\/([^/]+)$/u.exec(request.path);
    if (request.method === 'GET' && status) {
      const job = this.jobs.get(status[1] ?? '');
      if (!job) {
        reply.json(404, sbError(404, 'NotFound', 'task_not_found', 'Task not found.'));
        return;
      }
      reply.json(200, { code: 200, data: this.taskOf(job) });
      return;
    }
    reply.json(404, sbError(404, 'NotFound', 'not_found', 'Not found.'));
  }

  #create(request: RecordedRequest, reply: FakeReply): void {
    const key = this.#honoursKey ? request.headers['idempotency-key'] : undefined;
    const hash = createHash('sha256').update(request.body).digest('hex');
    const known = key ? this.#idempotency.get(key) : undefined;
    if (known) {
      if (known.hash !== hash) {
        reply.json(409, sbError(409, 'Conflict', 'idempotency_key_reused', 'This Idempotency-Key was used with another body.'));
        return;
      }
      reply.json(known.status, known.body);
      return;
    }
    const body = request.json as Record<string, unknown> | undefined;
    const behaviour = this.takeBehaviour(request);
    const answer = (status: number, value: unknown): void => {
      if (key) this.#idempotency.set(key, { hash, status, body: value });
      reply.json(status, value);
    };
    if (behaviour.failOnSubmit) {
      answer(behaviour.failOnSubmit.status, behaviour.failOnSubmit.body);
      return;
    }
    const problem = schemaProblem(CREATE_BODY, body, '');
    if (!body || problem) {
      answer(400, sbError(400, 'InvalidInput', 'invalid_input', `${problem ?? 'the body must be a JSON object'}.`));
      return;
    }
    const input = body.input;
    const model = String(body.model);
    const given = input as Record<string, unknown>;
    const dataAction = model === 'suno' && given.action === 'lyrics';
    const job = this.createJob({
      id: `task_${randomBytes(12).toString('hex')}`,
      behaviour,
      kind: guessKind(model),
      count: model === 'suno' && !dataAction ? 2 : 1,
      callbackUrl: typeof body.webhook === 'string' ? body.webhook : undefined,
      meta: { model, input: given },
    });
    this.charges += 1;
    const value = { code: 200, data: { taskId: job.id, status: 'not_started', createdAt: new Date(job.createdAt).toISOString() } };
    if (key) this.#idempotency.set(key, { hash, status: 200, body: value });
    if (behaviour.hangOnSubmit) {
      reply.hang();
      return;
    }
    reply.json(200, value);
  }

  taskOf(job: FakeJob<SwitchboardJobMeta>, phase = this.phase(job)): Record<string, unknown> {
    const status = phase === 'queued' ? 'not_started' : phase === 'running' ? 'processing' : phase === 'succeeded' ? 'finished' : 'failed';
    const lyrics = job.meta.model === 'suno' && job.meta.input.action === 'lyrics';
    const fileType = job.kind === 'audio' ? 'music' : job.kind;
    const files = status === 'finished' && !lyrics ? this.fileUrls(job).map((fileUrl) => ({ fileUrl, fileType })) : [];
    let output: Record<string, unknown> | null = null;
    if (status === 'finished' && lyrics) output = { lyrics: [{ title: 'Rain', text: '[Verse]\nrain rain' }] };
    else if (status === 'finished' && job.kind === 'audio') {
      output = { tracks: files.map((_, i) => ({ title: `Song ${i + 1}`, duration: 1, lyrics: 'la la', tags: 'pop', coverImageUrls: [this.fileUrl(job, `cover-${i}.jpg`)], audioId: `${job.id}_${i}` })) };
    }
    return {
      taskId: job.id,
      status,
      files,
      output,
      createdTime: new Date(job.createdAt).toISOString(),
      errorMessage: status === 'failed' ? this.failureOf(job).message : null,
    };
  }

  signedHeaders(body: string, id = `evt_${randomBytes(8).toString('hex')}`, at = new Date()): Record<string, string> {
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(this.webhookSecret).sign(id, at, body),
    };
  }

  #webhook(job: FakeJob<SwitchboardJobMeta>, phase: JobPhase): { body: unknown; headers?: Record<string, string> } {
    // The gateway's completion webhook: the body GET /task/status returns.
    const body = { code: 200, data: this.taskOf(job, phase) };
    return { body, headers: this.signedHeaders(JSON.stringify(body)) };
  }
}

export async function startSwitchboardFake(options: SwitchboardFakeOptions = {}): Promise<SwitchboardFake> {
  const fake = new SwitchboardFake(options);
  await fake.listen();
  return fake;
}
