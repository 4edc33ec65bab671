/**
 * Another gateway with this interface as an upstream (`type: switchboard`, baseUrl the instance's base
 * address, with or without `/api/v1`). `POST /api/v1/generation/create` sends our input verbatim under
 * the route's model, with `Idempotency-Key: <attemptId>` and `webhook: <callbackUrl>`; the task is
 * polled at `GET /api/v1/task/status/{taskId}`.
 *
 * The interface (shared/SPEC.md) documents no Idempotency-Key on create, so an unknown submit is re-sent
 * only to a peer declared to deduplicate creates by it (`options.idempotentCreate: true`, which a
 * Switchboard peer does): the peer answers with the task the first request made (or makes it now) and
 * charges once. Any other peer's unknown submit stays `unknowable` (no lookup by a reference of ours):
 * the runner waits for its callback, then leaves it for an operator. Callbacks are Standard Webhooks,
 * trusted when `options.webhookSecret` verifies them; with a secret set, an unsigned callback is refused.
 */
import type {
  CallbackNotice,
  MediaJob,
  MediaProvider,
  MediaProviderFactory,
  MediaProviderFactoryOptions,
  PollOutcome,
  ProviderError,
  ReconcileOutcome,
  ResultFileType,
  SubmitOutcome,
  UpstreamFile,
} from '../media-provider.ts';
import { httpError, isTransientStatus, protocolError } from '../shared/provider-errors.ts';
import { optionBoolean, optionString } from '../shared/provider-options.ts';
import { MediaRequestCycle, type VendorMapping } from '../shared/request-cycle.ts';
import { isHttpUrl } from '../shared/result-files.ts';
import { lowerHeaders, verifyStandardWebhook } from '../shared/standard-webhooks.ts';
import type { HttpExchange, UpstreamRequest, UpstreamResponse } from '../../../adapters/outbound/upstream-http-client.ts';
import { bodySnippet, isRecord, parseJson, recordAt, stringAt } from '../shared/json-values.ts';

const FILE_TYPES = new Set<ResultFileType>(['image', 'video', 'music']);

export function switchboardError(response: UpstreamResponse, what: string): ProviderError {
  const json = parseJson(response.body);
  const error = recordAt(json, 'error');
  const code = stringAt(error, 'code');
  const text = stringAt(error, 'message') ?? bodySnippet(response.body);
  return httpError(response.status, `switchboard ${what}: ${response.status}${code ? ` ${code}` : ''} ${text}`);
}

function errorCodeOf(response: UpstreamResponse): string | undefined {
  return stringAt(recordAt(parseJson(response.body), 'error'), 'code');
}

/** A task (`data` of the task status, or a webhook's task) as an outcome; undefined while it runs. */
export function taskOutcome(task: Record<string, unknown>): PollOutcome | undefined {
  const status = stringAt(task, 'status');
  if (status === 'finished') {
    const files: UpstreamFile[] = [];
    for (const f of Array.isArray(task.files) ? task.files.filter(isRecord) : []) {
      const type = stringAt(f, 'fileType') as ResultFileType | undefined;
      const url = stringAt(f, 'fileUrl');
      if (isHttpUrl(url) && type && FILE_TYPES.has(type)) files.push({ fileType: type, url });
    }
    const output = isRecord(task.output) ? task.output : null;
    if (files.length === 0 && output === null) return { kind: 'failed', error: protocolError('switchboard: finished without files or output') };
    return { kind: 'completed', result: { files, output } };
  }
  if (status === 'failed' || status === 'expired') {
    const message = stringAt(task, 'errorMessage') ?? (status === 'expired' ? 'the task expired before we read it' : 'the task failed');
    // The upstream already tried its own routes; ours may still serve the request.
    return { kind: 'failed', error: { message: `switchboard: ${message}`, retryable: true, code: 'generation_failed' } };
  }
  return undefined;
}

const SWITCHBOARD: VendorMapping = {
  vendor: 'switchboard',
  defaultBaseUrl: undefined,
  defaultPollMs: 2_000,
  headers: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
};

class SwitchboardProvider implements MediaProvider {
  readonly name: string;
  readonly type = 'switchboard';
  readonly defaultPollMs: number;
  readonly #c: MediaRequestCycle;
  readonly #secret: string | undefined;
  /** The peer answers a repeated create with the same Idempotency-Key with its first task (Switchboard does). */
  readonly #idempotentCreate: boolean;

  constructor(o: MediaProviderFactoryOptions) {
    this.name = o.name;
    // The peer's address is taken with or without its API prefix; the paths carry it.
    this.#c = new MediaRequestCycle(o, SWITCHBOARD, (configured) => configured.replace(/\/api\/v1$/u, ''));
    this.defaultPollMs = this.#c.pollMs;
    this.#secret = optionString(o, 'webhookSecret');
    this.#idempotentCreate = optionBoolean(o, 'idempotentCreate', false);
  }

  #create(job: MediaJob): Promise<HttpExchange> {
    return this.#c.http.send(this.#createRequest(job));
  }

  #createRequest(job: MediaJob): UpstreamRequest {
    return this.#c.request(job, 'POST', '/api/v1/generation/create', {
      headers: { ...this.#c.authHeaders(), 'idempotency-key': job.attemptId },
      json: { model: job.upstreamModel, input: job.input, webhook: job.callbackUrl },
    });
  }

  async submit(job: MediaJob): Promise<SubmitOutcome> {
    const answer = await this.#c.sendSubmit(this.#createRequest(job));
    if (answer.kind === 'settled') return answer.outcome;
    const { response } = answer;
    if (response.status === 409 && errorCodeOf(response) === 'idempotency_in_progress') {
      return { kind: 'unknown', error: { message: 'switchboard: the same attempt is still being created upstream', retryable: true, status: 409, code: 'unavailable' } };
    }
    if (response.status >= 300) return { kind: 'failed', error: switchboardError(response, 'create') };
    const taskId = stringAt(recordAt(parseJson(response.body), 'data'), 'taskId');
    if (!taskId) return { kind: 'unknown', error: protocolError('switchboard accepted the generation without a taskId', response.status) };
    return this.#c.accepted(taskId);
  }

  async poll(job: MediaJob, upstreamId: string): Promise<PollOutcome> {
    const answer = await this.#c.poll(this.#c.request(job, 'GET', `/api/v1/task/status/${encodeURIComponent(upstreamId)}`), (response) => switchboardError(response, 'task status'));
    if (answer.kind === 'settled') return answer.outcome;
    const task = recordAt(parseJson(answer.response.body), 'data');
    if (!task) return this.#c.retryLater();
    return taskOutcome(task) ?? this.#c.pending();
  }

  /**
   * With a peer that deduplicates creates, the same create with the same Idempotency-Key returns the task
   * the first one made. Sent to any other peer it would be a second paid task: nothing is sent.
   */
  async reconcile(job: MediaJob): Promise<ReconcileOutcome> {
    if (!this.#idempotentCreate) return { kind: 'unknowable' };
    const exchange = await this.#create(job);
    if (exchange.kind === 'no-response') return { kind: 'failed', error: exchange.error };
    const { response } = exchange;
    if (response.status === 409 && errorCodeOf(response) === 'idempotency_in_progress') {
      return { kind: 'failed', error: { message: 'switchboard: the first create is still in progress', retryable: true, status: 409, code: 'unavailable' } };
    }
    if (isTransientStatus(response.status)) return { kind: 'failed', error: switchboardError(response, 'create') };
    // Any other refusal is what the first create got too (the key replays the first answer): nothing was made.
    if (response.status >= 300) return { kind: 'absent' };
    const taskId = stringAt(recordAt(parseJson(response.body), 'data'), 'taskId');
    return taskId ? { kind: 'found', upstreamId: taskId } : { kind: 'failed', error: protocolError('switchboard: create without a taskId', response.status) };
  }

  parseCallback(request: { headers: Record<string, string | undefined>; rawBody: Buffer }): CallbackNotice | undefined {
    const body = parseJson(request.rawBody);
    if (!isRecord(body)) return undefined;
    // A bare task, `{code, data: task}` or `{type, data: task}`.
    const task = stringAt(body, 'taskId') ? body : recordAt(body, 'data');
    const taskId = stringAt(task, 'taskId');
    if (!task || !taskId) return undefined;
    if (this.#secret === undefined) return { upstreamId: taskId };
    if (!verifyStandardWebhook(this.#secret, lowerHeaders(request.headers), request.rawBody).ok) return undefined;
    const outcome = taskOutcome(task);
    return outcome ? { upstreamId: taskId, outcome } : { upstreamId: taskId };
  }

  close(): Promise<void> {
    return this.#c.close();
  }
}

export const createSwitchboardProvider: MediaProviderFactory = (options) => new SwitchboardProvider(options);
