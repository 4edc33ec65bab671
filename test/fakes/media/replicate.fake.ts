/**
 * A fake Replicate API (`/v1` paths without the prefix, so `baseUrl` is `{url}` — or use `{url}/v1`,
 * both route): `POST /models/{owner}/{name}/predictions`, `POST /predictions {version}`,
 * `GET /predictions/{id}`, `GET /predictions` (paginated, newest first, without `webhook`, as the real
 * list), `POST /predictions/{id}/cancel`, and Standard Webhooks-signed `completed` webhooks.
 *
 * Strict: the body's top-level fields are checked as Replicate checks them (its 2024-05-01 changelog),
 * and `input` against the model's published `openapi_schema` input, recorded under
 * test/fixtures/upstreams/replicate/ (one file per model, naming its source). An unknown or misspelt
 * field, a missing required one or a value outside an enum gets Replicate's 422 with `invalid_fields`.
 * A model without a recorded schema is answered 404, as Replicate answers a model it does not have.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { Webhook } from 'standardwebhooks';
import { bearer, type FakeJob, type FakeReply, FakeUpstream, type FakeUpstreamOptions, guessKind, type JobPhase, type RecordedRequest } from './fake-core.ts';
import { type FieldSchema, type SchemaIssue, schemaIssue } from './schema-check.ts';

export interface ReplicateJobMeta {
  model: string;
  version: string;
  input: Record<string, unknown>;
  webhook: string | undefined;
  filter: unknown;
}

export interface ReplicateFakeOptions extends FakeUpstreamOptions {
  apiToken?: string;
  /** Page size of GET /predictions (100 like the real API). */
  pageSize?: number;
}

/** One recorded document (test/fixtures/upstreams/replicate/*.json): a model's input, or the API's body. */
interface ReplicateFixture {
  source: string;
  retrieved: string;
  model?: string;
  input?: FieldSchema;
  body?: FieldSchema;
}

const FIXTURE_DIR = new URL('../../fixtures/upstreams/replicate/', import.meta.url);
const FIXTURES: readonly ReplicateFixture[] = readdirSync(FIXTURE_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(new URL(f, FIXTURE_DIR), 'utf8')) as ReplicateFixture);

/** The models whose input schema is recorded. */
export const REPLICATE_MODEL_SCHEMAS: ReadonlyMap<string, FieldSchema> = new Map(
  FIXTURES.flatMap((f) => (f.model && f.input ? [[f.model, f.input] as const] : [])),
);
const BODY_SCHEMA: FieldSchema = FIXTURES.find((f) => f.body)?.body ?? { type: 'object' };

function invalidField(issue: SchemaIssue, base: string): { type: string; field: string; description: string } {
  const field = [base, ...issue.path].filter((p) => p !== '').join('.');
  const name = String(issue.path.at(-1) ?? base);
  switch (issue.kind) {
    case 'required':
      return { type: 'required', field: issue.path.length > 1 ? field.replace(/\.[^.]+$/u, '') : base, description: `${name} is required` };
    case 'unknown':
      return { type: 'additional_property_not_allowed', field: issue.path.length > 1 ? field.replace(/\.[^.]+$/u, '') : base, description: `Additional property ${name} is not allowed` };
    case 'enum':
      return { type: 'enum', field, description: `${name} must be one of the following: ${(issue.allowed ?? []).map((v) => JSON.stringify(v)).join(', ')}` };
    default:
      return { type: issue.kind, field, description: `${name} ${issue.message}` };
  }
}

/** The 422 Replicate would answer for this create body and model, or undefined when it is allowed. */
export function replicateRefusal(body: Record<string, unknown>, model: string | undefined): { status: number; body: unknown } | undefined {
  const top = schemaIssue(BODY_SCHEMA, body);
  const schema = model ? REPLICATE_MODEL_SCHEMAS.get(model) : undefined;
  if (!top && model && !schema) return { status: 404, body: { title: 'Not found', detail: `The requested resource could not be found. (no openapi_schema recorded for ${model} in test/fixtures/upstreams/replicate)`, status: 404 } };
  const issue = top ? { issue: top, base: '' } : schema ? { issue: schemaIssue(schema, body.input, []), base: 'input' } : undefined;
  if (!issue?.issue) return undefined;
  const invalid = invalidField(issue.issue, issue.base);
  return {
    status: 422,
    body: { title: 'Input validation failed', detail: `- ${invalid.field || '(root)'}: ${invalid.description}`, status: 422, invalid_fields: [invalid] },
  };
}

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';

function predictionId(): string {
  const bytes = randomBytes(26);
  return Array.from(bytes, (b) => ALPHABET[b % ALPHABET.length]).join('');
}

export class ReplicateFake extends FakeUpstream<ReplicateJobMeta> {
  readonly apiToken: string;
  /** The account's webhook signing secret (`GET /v1/webhooks/default/secret`). */
  readonly webhookSecret = `whsec_${randomBytes(24).toString('base64')}`;
  readonly #pageSize: number;
  /** Version id → model name, for `POST /predictions {version}` (unknown versions belong to `owner/versioned-model`). */
  readonly versions = new Map<string, string>();
  /** Job ids, oldest first. */
  readonly #order: string[] = [];

  constructor(options: ReplicateFakeOptions = {}) {
    super((request, reply) => this.#handle(request, reply), options);
    this.apiToken = options.apiToken ?? 'r8_test_token';
    this.#pageSize = options.pageSize ?? 100;
    this.callbackFor = (job, phase) => this.#webhook(job, phase);
  }

  /** Adds a prediction made elsewhere (another client of the account), for listing tests. */
  seedPrediction(model: string, input: Record<string, unknown>, webhook: string | undefined): string {
    const job = this.createJob({ id: predictionId(), behaviour: { noCallback: true }, kind: guessKind(model), callbackUrl: undefined, meta: { model, version: 'hidden', input, webhook, filter: null } });
    this.#order.push(job.id);
    return job.id;
  }

  #handle(request: RecordedRequest, reply: FakeReply): void {
    if (bearer(request) !== this.apiToken) {
      reply.json(401, { title: 'Unauthenticated', detail: 'You did not pass a valid authentication token', status: 401 });
      return;
    }
    const path = request.path.replace(/^\/v1(?=\/)/u, '');
    const create = /^\/models\/([^/]+)\/([^/]+)\/predictions$/u.exec(path);
    if (request.method === 'POST' && create) {
      this.#create(request, reply, `${create[1]}/${create[2]}`);
      return;
    }
    if (request.method === 'POST' && path === '/predictions') {
      this.#create(request, reply, undefined);
      return;
    }
    if (request.method === 'GET' && path === '/predictions') {
      this.#list(request, reply);
      return;
    }
    if (request.method === 'GET' && path === '/account') {
      reply.json(200, { type: 'user', username: 'fake-user', name: 'Fake User', github_url: null, avatar_url: null });
      return;
    }
    const one = /^\/predictions\/([a-z0-9]+)(\/cancel)?$/u.exec(path);
    if (one) {
      const job = this.jobs.get(one[1] ?? '');
      if (!job) {
        reply.json(404, { title: 'Not found', detail: 'The requested resource could not be found.', status: 404 });
        return;
      }
      if (request.method === 'GET' && !one[2]) {
        reply.json(200, this.predictionOf(job, true));
        return;
      }
      if (request.method === 'POST' && one[2]) {
        this.cancel(job);
        reply.json(200, this.predictionOf(job, true));
        return;
      }
    }
    reply.json(404, { title: 'Not found', detail: `no route ${request.method} ${request.path}`, status: 404 });
  }

  #create(request: RecordedRequest, reply: FakeReply, model: string | undefined): void {
    const body = request.json as Record<string, unknown> | undefined;
    if (!body || typeof body !== 'object' || Array.isArray(body)) {
      reply.json(422, { title: 'Input validation failed', detail: '- (root): Invalid type. Expected: object', status: 422 });
      return;
    }
    if (!model && typeof body.version !== 'string') {
      reply.json(422, { title: 'Input validation failed', detail: '- version is required', status: 422, invalid_fields: [{ type: 'required', field: '', description: 'version is required' }] });
      return;
    }
    const versioned = model ? undefined : this.versions.get(String(body.version));
    if (!model && !versioned) {
      reply.json(422, { title: 'Invalid version or not permitted', detail: "The specified version does not exist (or perhaps you don't have permission to use it?)", status: 422 });
      return;
    }
    const refused = replicateRefusal(body, model ?? versioned);
    if (refused) {
      reply.json(refused.status, refused.body);
      return;
    }
    const given = body.input as Record<string, unknown>;
    const behaviour = this.takeBehaviour(request);
    if (behaviour.failOnSubmit) {
      reply.json(behaviour.failOnSubmit.status, behaviour.failOnSubmit.body, behaviour.failOnSubmit.headers);
      return;
    }
    const name = model ?? versioned ?? 'owner/versioned-model';
    const job = this.createJob({
      id: predictionId(),
      behaviour,
      kind: guessKind(name),
      callbackUrl: typeof body.webhook === 'string' ? body.webhook : undefined,
      meta: { model: name, version: typeof body.version === 'string' ? body.version : 'hidden', input: given, webhook: typeof body.webhook === 'string' ? body.webhook : undefined, filter: body.webhook_events_filter },
    });
    this.#order.push(job.id);
    if (behaviour.hangOnSubmit) {
      reply.hang();
      return;
    }
    reply.json(201, this.predictionOf(job, true));
  }

  #list(request: RecordedRequest, reply: FakeReply): void {
    const cursor = Number(request.query.cursor ?? 0);
    const newestFirst = [...this.#order].reverse();
    const page = newestFirst.slice(cursor, cursor + this.#pageSize);
    const more = cursor + this.#pageSize < newestFirst.length;
    reply.json(200, {
      next: more ? `${this.url}/v1/predictions?cursor=${cursor + this.#pageSize}` : null,
      previous: cursor > 0 ? `${this.url}/v1/predictions?cursor=${Math.max(0, cursor - this.#pageSize)}` : null,
      results: page.map((id) => this.predictionOf(this.jobs.get(id) as FakeJob<ReplicateJobMeta>, false)),
    });
  }

  predictionOf(job: FakeJob<ReplicateJobMeta>, withWebhook: boolean, phase = this.phase(job)): Record<string, unknown> {
    const status = phase === 'queued' ? 'starting' : phase === 'running' ? 'processing' : phase;
    const urls = this.fileUrls(job);
    const output = phase !== 'succeeded' ? null : job.kind === 'image' ? urls : urls[0];
    const base = `${this.url}/v1/predictions/${job.id}`;
    return {
      id: job.id,
      model: job.meta.model,
      version: job.meta.version,
      input: job.meta.input,
      logs: '',
      output,
      data_removed: false,
      error: phase === 'failed' ? this.failureOf(job).message : null,
      status,
      source: 'api',
      created_at: new Date(job.createdAt).toISOString(),
      started_at: phase === 'queued' ? null : new Date(job.createdAt + 1).toISOString(),
      completed_at: phase === 'succeeded' || phase === 'failed' || phase === 'canceled' ? new Date().toISOString() : null,
      urls: { get: base, cancel: `${base}/cancel`, stream: `${this.url}/stream/${job.id}`, web: `https://replicate.com/p/${job.id}` },
      metrics: phase === 'succeeded' ? { predict_time: 0.2 } : {},
      ...(withWebhook ? { webhook: job.meta.webhook, webhook_events_filter: job.meta.filter } : {}),
    };
  }

  /** Headers of a Standard Webhooks delivery of `body`. */
  signedHeaders(body: string, id = `msg_${predictionId()}`, at = new Date()): Record<string, string> {
    return {
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(at.getTime() / 1000)),
      'webhook-signature': new Webhook(this.webhookSecret).sign(id, at, body),
    };
  }

  #webhook(job: FakeJob<ReplicateJobMeta>, phase: JobPhase): { body: unknown; headers?: Record<string, string> } {
    const body = this.predictionOf(job, true, phase);
    return { body, headers: this.signedHeaders(JSON.stringify(body)) };
  }
}

export async function startReplicateFake(options: ReplicateFakeOptions = {}): Promise<ReplicateFake> {
  const fake = new ReplicateFake(options);
  await fake.listen();
  return fake;
}
