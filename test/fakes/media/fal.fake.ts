/**
 * A fake fal queue: `POST /{endpoint}?fal_webhook=…` (auth `Key …`), `GET /{app}/requests/{id}/status`,
 * `GET /{app}/requests/{id}` (the result, or the request's error), `PUT /{app}/requests/{id}/cancel`,
 * the Platform API's `GET /v1/models/pricing` on the same origin (fal serves it at api.fal.ai),
 * and webhooks `{request_id, gateway_request_id, status: OK|ERROR, payload, error}` signed with an
 * ED25519 key whose JWKS is served at `/.well-known/jwks.json`.
 *
 * Strict: each endpoint's input is checked against the request schema fal publishes for it, recorded
 * under test/fixtures/upstreams/fal/ (one file per endpoint, naming its source). An unknown or misspelt
 * field, a missing required one or a value outside an enum is refused as fal refuses it: 422
 * `{detail: [{loc: ['body', field], msg, type}]}`. An endpoint without a recorded schema is answered
 * 404, as fal answers an application it does not have.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomUUID, sign } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { type FakeJob, type FakeReply, FakeUpstream, type FakeUpstreamOptions, guessKind, type JobPhase, type RecordedRequest } from './fake-core.ts';
import { type FieldSchema, type SchemaIssue, schemaIssue } from './schema-check.ts';

export interface FalJobMeta {
  endpoint: string;
  app: string;
  input: Record<string, unknown>;
}

export interface FalFakeOptions extends FakeUpstreamOptions {
  apiKey?: string;
  /** Sign webhooks (default true). */
  signWebhooks?: boolean;
}

/** One recorded fal endpoint (test/fixtures/upstreams/fal/*.json). */
export interface FalFixture {
  source: string;
  retrieved: string;
  endpoint: string;
  input: FieldSchema;
}

const FIXTURE_DIR = new URL('../../fixtures/upstreams/fal/', import.meta.url);

export const FAL_FIXTURES: readonly FalFixture[] = readdirSync(FIXTURE_DIR)
  .filter((f) => f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(new URL(f, FIXTURE_DIR), 'utf8')) as Partial<FalFixture>)
  .filter((f): f is FalFixture => typeof f.endpoint === 'string' && f.input !== undefined);

/** fal's validation error item for an issue, in pydantic's words (what fal's 422 bodies carry). */
export function falDetail(issue: SchemaIssue): { loc: Array<string | number>; msg: string; type: string } {
  const loc = ['body', ...issue.path];
  switch (issue.kind) {
    case 'required':
      return { loc, msg: 'Field required', type: 'missing' };
    case 'unknown':
      return { loc, msg: 'Extra inputs are not permitted', type: 'extra_forbidden' };
    case 'enum':
      return { loc, msg: `Input should be ${(issue.allowed ?? []).map((v) => `'${String(v)}'`).join(', ')}`, type: 'literal_error' };
    case 'type':
      return { loc, msg: `Input should be a valid value: ${issue.message}`, type: 'type_error' };
    default:
      return { loc, msg: `Value error, ${issue.message}`, type: 'value_error' };
  }
}

/** The 422 fal would answer for this endpoint and input, or undefined when its schema allows it. */
export function falRefusal(endpoint: string, input: Record<string, unknown>): { status: number; body: unknown } | undefined {
  const fixture = FAL_FIXTURES.find((f) => f.endpoint === endpoint);
  if (!fixture) return { status: 404, body: { detail: `Application '${endpoint}' not found (no published schema recorded in test/fixtures/upstreams/fal)` } };
  const issue = schemaIssue(fixture.input, input);
  return issue ? { status: 422, body: { detail: [falDetail(issue)] } } : undefined;
}

export class FalFake extends FakeUpstream<FalJobMeta> {
  readonly apiKey: string;
  readonly userId = 'fake-user-42';
  /** base64url `x` of the webhook signing key (what fal's JWKS publishes). */
  readonly publicKeyX: string;
  readonly #privateKey: KeyObject;
  readonly #sign: boolean;
  /**
   * Webhooks of successful requests carry `payload: null` and a `payload_error`, as fal sends them when
   * it could not attach the result (its webhooks page); the result stays readable from the queue.
   */
  webhookPayloadError = false;
  /** Why fal locked the account, when it did: every authenticated call is then 403 `User is locked. Reason: …`. */
  lockedReason: string | undefined;

  constructor(options: FalFakeOptions = {}) {
    super((request, reply) => this.#handle(request, reply), options);
    this.apiKey = options.apiKey ?? 'fal-test-key';
    this.#sign = options.signWebhooks ?? true;
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    this.#privateKey = privateKey;
    this.publicKeyX = String(publicKey.export({ format: 'jwk' }).x);
    this.callbackFor = (job, phase) => this.#webhook(job, phase);
  }

  get jwksUrl(): string {
    return `${this.url}/.well-known/jwks.json`;
  }

  #handle(request: RecordedRequest, reply: FakeReply): void {
    if (request.method === 'GET' && request.path === '/.well-known/jwks.json') {
      reply.json(200, { keys: [{ kty: 'OKP', crv: 'Ed25519', x: this.publicKeyX, kid: 'fake-1', use: 'sig' }] });
      return;
    }
    if (request.headers.authorization !== `Key ${this.apiKey}`) {
      reply.json(401, { detail: 'Unauthorized' });
      return;
    }
    if (this.lockedReason !== undefined) {
      reply.json(403, { detail: `User is locked. Reason: ${this.lockedReason}.` });
      return;
    }
    if (request.method === 'GET' && request.path === '/v1/models/pricing') {
      this.#pricing(request, reply);
      return;
    }
    const m = /^\/(.+)\/requests\/([^/]+)(\/status|\/cancel)?$/u.exec(request.path);
    if (m) {
      const [, app = '', id = '', tail] = m;
      const job = this.jobs.get(id);
      if (!job?.meta.endpoint.startsWith(app)) {
        reply.json(404, { detail: `Request ${id} not found` });
        return;
      }
      if (request.method === 'GET' && tail === '/status') {
        this.#status(job, reply);
        return;
      }
      if (request.method === 'GET' && tail === undefined) {
        this.#result(job, reply);
        return;
      }
      if (request.method === 'PUT' && tail === '/cancel') {
        this.#cancel(job, reply);
        return;
      }
    }
    if (request.method === 'POST') {
      this.#submit(request, reply);
      return;
    }
    reply.json(405, { detail: 'Method not allowed' });
  }

  /** The Platform API's `GET /v1/models/pricing?endpoint_id=…` (1 to 50 ids), in fal's shape. */
  #pricing(request: RecordedRequest, reply: FakeReply): void {
    const ids = (request.query.endpoint_id ?? '').split(',').filter((id) => id !== '');
    if (ids.length === 0 || ids.length > 50) {
      reply.json(422, { detail: [{ loc: ['query', 'endpoint_id'], msg: 'Must provide between 1 and 50 endpoint IDs', type: 'value_error' }] });
      return;
    }
    reply.json(200, { prices: ids.map((endpoint_id) => ({ endpoint_id, unit_price: 0.025, unit: 'image', currency: 'USD' })), next_cursor: null, has_more: false });
  }

  #urls(job: FakeJob<FalJobMeta>): Record<string, string> {
    const base = `${this.url}/${job.meta.app}/requests/${job.id}`;
    return { response_url: base, status_url: `${base}/status`, cancel_url: `${base}/cancel` };
  }

  #submit(request: RecordedRequest, reply: FakeReply): void {
    const endpoint = request.path.replace(/^\/+|\/+$/gu, '');
    const input = request.json;
    if (input === null || typeof input !== 'object' || Array.isArray(input)) {
      reply.json(422, { detail: [{ loc: ['body'], msg: 'Input should be a valid dictionary', type: 'dict_type' }] });
      return;
    }
    const body = input as Record<string, unknown>;
    const refused = falRefusal(endpoint, body);
    if (refused) {
      reply.json(refused.status, refused.body);
      return;
    }
    const behaviour = this.takeBehaviour(request);
    if (behaviour.failOnSubmit) {
      reply.json(behaviour.failOnSubmit.status, behaviour.failOnSubmit.body, behaviour.failOnSubmit.headers);
      return;
    }
    const segments = endpoint.split('/');
    const job = this.createJob({
      id: randomUUID(),
      behaviour,
      kind: guessKind(endpoint),
      count: typeof body.num_images === 'number' ? body.num_images : 1,
      callbackUrl: request.query.fal_webhook,
      meta: { endpoint, app: segments.slice(0, 2).join('/'), input: body },
    });
    if (behaviour.hangOnSubmit) {
      reply.hang();
      return;
    }
    reply.json(200, { request_id: job.id, gateway_request_id: job.id, queue_position: 0, ...this.#urls(job) });
  }

  #status(job: FakeJob<FalJobMeta>, reply: FakeReply): void {
    const phase = this.phase(job);
    const urls = this.#urls(job);
    if (phase === 'queued') {
      reply.json(202, { status: 'IN_QUEUE', queue_position: 0, response_url: urls.response_url });
      return;
    }
    if (phase === 'running') {
      reply.json(202, { status: 'IN_PROGRESS', logs: [], response_url: urls.response_url });
      return;
    }
    if (phase === 'succeeded') {
      reply.json(200, { status: 'COMPLETED', logs: [], response_url: urls.response_url, metrics: { inference_time: 0.2 } });
      return;
    }
    const failure = this.failureOf(job);
    reply.json(200, {
      status: 'COMPLETED',
      response_url: urls.response_url,
      error: phase === 'canceled' ? 'Request was cancelled' : failure.message,
      error_type: phase === 'canceled' ? 'client_cancelled' : String(failure.code ?? 'runner_server_error'),
    });
  }

  /** The result payload of a successful job. */
  payloadOf(job: FakeJob<FalJobMeta>): Record<string, unknown> {
    const urls = this.fileUrls(job);
    if (job.kind === 'video') return { video: { url: urls[0], content_type: 'video/mp4', file_name: 'output.mp4', file_size: this.assets.mp4.length } };
    if (job.kind === 'audio') return { audio: { url: urls[0], content_type: 'audio/mpeg', file_name: 'output.mp3', file_size: this.assets.mp3.length } };
    return {
      images: urls.map((url) => ({ url, content_type: 'image/png', file_name: 'output.png', file_size: this.assets.png.length, width: 64, height: 64 })),
      seed: 42,
      has_nsfw_concepts: urls.map(() => false),
      prompt: job.meta.input.prompt,
    };
  }

  #errorBody(job: FakeJob<FalJobMeta>): { status: number; body: unknown } {
    const failure = this.failureOf(job);
    if (failure.code === 'content_policy_violation' || failure.code === 422) {
      return { status: 422, body: { detail: [{ loc: ['body', 'prompt'], msg: failure.message, type: String(failure.code === 422 ? 'value_error' : failure.code) }] } };
    }
    return { status: 500, body: { detail: failure.message, error_type: 'runner_server_error' } };
  }

  #result(job: FakeJob<FalJobMeta>, reply: FakeReply): void {
    const phase = this.phase(job);
    if (phase === 'queued' || phase === 'running') {
      reply.json(400, { detail: 'Request is still in progress' });
      return;
    }
    if (phase === 'succeeded') {
      reply.json(200, this.payloadOf(job));
      return;
    }
    if (phase === 'canceled') {
      reply.json(400, { detail: 'Request was cancelled' });
      return;
    }
    const error = this.#errorBody(job);
    reply.json(error.status, error.body, { 'x-fal-retryable': error.status >= 500 ? 'true' : 'false' });
    return;
  }

  #cancel(job: FakeJob<FalJobMeta>, reply: FakeReply): void {
    const phase = this.phase(job);
    if (phase === 'succeeded' || phase === 'failed') {
      reply.json(400, { status: 'ALREADY_COMPLETED' });
      return;
    }
    this.cancel(job);
    reply.json(202, { status: 'CANCELLATION_REQUESTED' });
    return;
  }

  /** Headers fal signs a webhook body with. */
  signedHeaders(requestId: string, body: string, timestamp = Math.floor(Date.now() / 1000)): Record<string, string> {
    const digest = createHash('sha256').update(body).digest('hex');
    const message = Buffer.from(`${requestId}\n${this.userId}\n${timestamp}\n${digest}`);
    return {
      'x-fal-webhook-request-id': requestId,
      'x-fal-webhook-user-id': this.userId,
      'x-fal-webhook-timestamp': String(timestamp),
      'x-fal-webhook-signature': sign(null, message, this.#privateKey).toString('hex'),
    };
  }

  #webhook(job: FakeJob<FalJobMeta>, phase: JobPhase): { body: unknown; headers?: Record<string, string> } {
    const ok = phase === 'succeeded';
    const error = ok ? undefined : this.#errorBody(job);
    const body = ok
      ? this.webhookPayloadError
        ? { request_id: job.id, gateway_request_id: job.id, status: 'OK', payload: null, payload_error: 'Response payload is not JSON serializable: use the queue to retrieve the response.' }
        : { request_id: job.id, gateway_request_id: job.id, status: 'OK', payload: this.payloadOf(job) }
      : { request_id: job.id, gateway_request_id: job.id, status: 'ERROR', error: `Invalid status code: ${error?.status ?? 500}`, payload: error?.body ?? null };
    // fetch sends exactly JSON.stringify(body): the signature covers those bytes.
    return { body, headers: this.#sign ? this.signedHeaders(job.id, JSON.stringify(body)) : {} };
  }
}

export async function startFalFake(options: FalFakeOptions = {}): Promise<FalFake> {
  const fake = new FalFake(options);
  await fake.listen();
  return fake;
}
