/**
 * fal queue (`type: fal`, baseUrl `https://queue.fal.run`): `POST {base}/{endpoint}?fal_webhook=…`
 * with `Authorization: Key …`, then `GET {base}/{app}/requests/{id}/status` and `…/requests/{id}` for
 * the result, `PUT …/cancel`. The queue API has no lookup by a reference of ours, so an unknown
 * submit is `unknowable`; the webhook names the request. Webhooks are trusted only when their
 * ED25519 signature verifies (see fal-webhook.ts).
 */
import type { OutputSpec } from '../../../domain/catalog/catalog.types.ts';
import type {
  CancelOutcome,
  CallbackNotice,
  MediaJob,
  MediaProvider,
  MediaProviderFactory,
  MediaProviderFactoryOptions,
  PollOutcome,
  ProviderError,
  ReconcileOutcome,
  ResultFileType,
  RouteRefusal,
  RouteRequest,
  SubmitOutcome,
  UpstreamFile,
} from '../media-provider.ts';
import { httpError, protocolError, statusClass } from '../shared/provider-errors.ts';
import { optionString, optionStrings } from '../shared/provider-options.ts';
import { MediaRequestCycle, type VendorMapping } from '../shared/request-cycle.ts';
import { expectedFileType, guessFileType, isHttpUrl } from '../shared/result-files.ts';
import { lowerHeaders } from '../shared/standard-webhooks.ts';
import type { UpstreamResponse } from '../../../adapters/outbound/upstream-http-client.ts';
import { bodySnippet, isRecord, parseJson, stringAt } from '../shared/json-values.ts';
import { falRefusal, falRequest } from './fal.mapping.ts';
import { FalWebhookKeys } from './fal-webhook.ts';

/** Result members and the file type each holds, in the order files are listed. */
const RESULT_MEMBERS: ReadonlyArray<readonly [string, ResultFileType]> = [
  ['images', 'image'],
  ['image', 'image'],
  ['videos', 'video'],
  ['video', 'video'],
  ['audios', 'music'],
  ['audio', 'music'],
  ['audio_file', 'music'],
  ['audio_url', 'music'],
];

function fileOf(value: unknown, fileType: ResultFileType): UpstreamFile | undefined {
  if (isHttpUrl(value)) return { fileType, url: value };
  if (!isRecord(value) || !isHttpUrl(value.url)) return undefined;
  const contentType = typeof value.content_type === 'string' ? value.content_type : undefined;
  return { fileType: guessFileType(value.url, contentType) ?? fileType, url: value.url, ...(contentType ? { contentType } : {}) };
}

/** The files of a fal result payload; types from the member they sit in, else from the spec. */
export function falFiles(payload: unknown, spec: OutputSpec | undefined): UpstreamFile[] {
  if (!isRecord(payload)) return [];
  const files: UpstreamFile[] = [];
  for (const [member, fileType] of RESULT_MEMBERS) {
    const value = payload[member];
    for (const item of Array.isArray(value) ? value : [value]) {
      const file = fileOf(item, fileType);
      if (file) files.push(file);
    }
  }
  if (files.length > 0) return files;
  // Unknown shapes: any top-level {url} or URL string.
  for (const value of Object.values(payload)) {
    for (const item of Array.isArray(value) ? value : [value]) {
      const url = isHttpUrl(item) ? item : isRecord(item) && isHttpUrl(item.url) ? item.url : undefined;
      const file = url ? fileOf(item, guessFileType(url) ?? (spec ? expectedFileType(spec) : 'image')) : undefined;
      if (file) files.push(file);
    }
  }
  return files;
}

/** fal's error text: `detail` as a string, or the `msg` of each detail item. */
function detailText(json: unknown): string | undefined {
  if (!isRecord(json)) return undefined;
  const detail = json.detail;
  if (typeof detail === 'string') return detail;
  if (Array.isArray(detail)) {
    const msgs = detail.map((d) => (isRecord(d) ? `${Array.isArray(d.loc) ? `${d.loc.join('.')}: ` : ''}${String(d.msg ?? d.type ?? '')}` : String(d)));
    return msgs.join('; ');
  }
  return stringAt(json, 'error') ?? stringAt(json, 'message');
}

function isContentPolicy(json: unknown, errorType: string | undefined): boolean {
  if (errorType === 'content_policy_violation') return true;
  return isRecord(json) && Array.isArray(json.detail) && json.detail.some((d) => isRecord(d) && d.type === 'content_policy_violation');
}

export function falError(response: UpstreamResponse, what: string): ProviderError {
  const json = parseJson(response.body);
  const errorType = response.headers['x-fal-error-type'] ?? stringAt(json, 'error_type');
  const text = detailText(json) ?? bodySnippet(response.body);
  const error = httpError(response.status, `fal ${what}: ${response.status} ${text}`);
  if (isContentPolicy(json, errorType)) return { ...error, retryable: false, code: 'content_policy' };
  const hint = response.headers['x-fal-retryable'];
  if (hint === 'true' || hint === 'false') return { ...error, retryable: hint === 'true' };
  return error;
}

const FAL: VendorMapping = {
  vendor: 'fal',
  defaultBaseUrl: 'https://queue.fal.run',
  defaultPollMs: 3_000,
  headers: (apiKey) => ({ authorization: `Key ${apiKey}` }),
};

class FalProvider implements MediaProvider {
  readonly name: string;
  readonly type = 'fal';
  readonly defaultPollMs: number;
  readonly #c: MediaRequestCycle;
  readonly #keys: FalWebhookKeys;

  constructor(o: MediaProviderFactoryOptions) {
    this.name = o.name;
    this.#c = new MediaRequestCycle(o, FAL);
    this.defaultPollMs = this.#c.pollMs;
    this.#keys = new FalWebhookKeys(optionStrings(o, 'webhookPublicKeys'), optionString(o, 'webhookJwksUrl'), this.#c.http);
  }

  refusal(request: RouteRequest): RouteRefusal | undefined {
    return falRefusal(request);
  }

  async submit(job: MediaJob): Promise<SubmitOutcome> {
    const refusal = this.refusal(job);
    // Nothing is sent for what fal's schema for the endpoint cannot express: another route may serve it.
    if (refusal) return this.#c.refused(refusal);
    const { endpoint, input } = falRequest(job);
    const query = `?fal_webhook=${encodeURIComponent(job.callbackUrl)}`;
    const answer = await this.#c.submit(this.#c.request(job, 'POST', `/${endpoint}${query}`, { json: input }), (response) => falError(response, 'submit'));
    if (answer.kind === 'settled') return answer.outcome;
    const { response } = answer;
    const requestId = stringAt(parseJson(response.body), 'request_id');
    if (!requestId) return { kind: 'unknown', error: protocolError('fal accepted the request without a request_id', response.status) };
    return this.#c.accepted(requestId);
  }

  async poll(job: MediaJob, upstreamId: string): Promise<PollOutcome> {
    const { app } = falRequest(job);
    const base = `/${app}/requests/${encodeURIComponent(upstreamId)}`;
    const status = await this.#c.poll(this.#c.request(job, 'GET', `${base}/status`), (response) => falError(response, 'status'));
    if (status.kind === 'settled') return status.outcome;
    const json = parseJson(status.response.body);
    const state = stringAt(json, 'status');
    if (state === 'IN_QUEUE' || state === 'IN_PROGRESS') return this.#c.pending();
    if (state === 'CANCELED' || state === 'CANCELLED') return { kind: 'failed', error: { message: 'fal: the request was cancelled', retryable: true, code: 'canceled' } };
    const error = stringAt(json, 'error');
    if (error || state === 'FAILED') {
      const errorType = stringAt(json, 'error_type');
      const policy = errorType === 'content_policy_violation';
      const cancelled = errorType === 'client_cancelled';
      return {
        kind: 'failed',
        error: {
          message: `fal: ${error ?? 'the request failed'}${errorType ? ` (${errorType})` : ''}`,
          retryable: !policy,
          code: policy ? 'content_policy' : cancelled ? 'canceled' : 'generation_failed',
        },
      };
    }
    if (state !== 'COMPLETED') return this.#c.pending();
    const result = await this.#c.sendPoll(this.#c.request(job, 'GET', base));
    if (result.kind === 'settled') return result.outcome;
    const { response } = result;
    if (response.status >= 500 && response.headers['x-fal-retryable'] !== 'false') return this.#c.retryLater();
    if (response.status >= 300) {
      const failure = falError(response, 'result');
      // The request ran and failed: a 4xx is about its input, anything else a generation failure.
      return { kind: 'failed', error: failure.retryable ? { ...failure, code: 'generation_failed' } : failure };
    }
    const files = falFiles(parseJson(response.body), job.outputSpec);
    if (files.length === 0) return { kind: 'failed', error: protocolError('fal result without files', response.status) };
    return { kind: 'completed', result: { files, output: null } };
  }

  async reconcile(_job: MediaJob): Promise<ReconcileOutcome> {
    return { kind: 'unknowable' };
  }

  /**
   * fal's queue removes a request still `IN_QUEUE` (it is never processed, nor billed); for one
   * `IN_PROGRESS` it only signals the runner, and the app decides whether to stop. So the state is
   * read first: only a queued request counts as cancelled. `ALREADY_COMPLETED` (400): nothing to stop.
   */
  async cancel(job: MediaJob, upstreamId: string): Promise<CancelOutcome> {
    const { app } = falRequest(job);
    const base = `/${app}/requests/${encodeURIComponent(upstreamId)}`;
    const before = await this.#c.http.send(this.#c.request(job, 'GET', `${base}/status`));
    if (before.kind === 'no-response') return { kind: 'failed', error: before.error };
    if (before.response.status >= 300) return { kind: 'failed', error: falError(before.response, 'status') };
    const state = stringAt(parseJson(before.response.body), 'status');
    if (state !== 'IN_QUEUE' && state !== 'IN_PROGRESS') return { kind: 'too_late' };
    const exchange = await this.#c.http.send(this.#c.request(job, 'PUT', `${base}/cancel`));
    if (exchange.kind === 'no-response') return { kind: 'failed', error: exchange.error };
    const { response } = exchange;
    const answer = stringAt(parseJson(response.body), 'status');
    if (answer === 'ALREADY_COMPLETED') return { kind: 'too_late' };
    if (response.status >= 300) return { kind: 'failed', error: falError(response, 'cancel') };
    return state === 'IN_QUEUE' ? { kind: 'cancelled' } : { kind: 'requested' };
  }

  parseCallback(request: { headers: Record<string, string | undefined>; rawBody: Buffer }): CallbackNotice | undefined {
    const body = parseJson(request.rawBody);
    const requestId = stringAt(body, 'request_id');
    if (!isRecord(body) || !requestId) return undefined;
    if (!this.#keys.configured) return { upstreamId: requestId };
    const check = this.#keys.check(lowerHeaders(request.headers), request.rawBody);
    if (check === 'invalid') return undefined;
    if (check === 'no-keys') return { upstreamId: requestId };
    const outcome = this.#webhookOutcome(body);
    return outcome ? { upstreamId: requestId, outcome } : { upstreamId: requestId };
  }

  /** A verified webhook as an outcome; undefined when the result must be read from the queue. */
  #webhookOutcome(body: Record<string, unknown>): PollOutcome | undefined {
    if (body.status === 'OK') {
      const files = falFiles(body.payload, undefined);
      // fal sends `payload: null` with a `payload_error` when it could not attach the result: the request
      // succeeded and its result is at the queue's response URL, which the runner's poll reads.
      return files.length > 0 ? { kind: 'completed', result: { files, output: null } } : undefined;
    }
    const error = stringAt(body, 'error') ?? 'the request failed';
    const status = /\b([1-5]\d\d)\b/u.exec(error)?.[1];
    const detail = detailText(body.payload);
    const message = `fal: ${error}${detail ? `: ${detail}` : ''}`;
    if (isContentPolicy(body.payload, undefined)) return { kind: 'failed', error: { message, retryable: false, code: 'content_policy' } };
    if (status) {
      const cls = statusClass(Number(status));
      return { kind: 'failed', error: { message, retryable: cls.retryable, status: Number(status), code: cls.retryable ? 'generation_failed' : cls.code } };
    }
    return { kind: 'failed', error: { message, retryable: true, code: 'generation_failed' } };
  }

  close(): Promise<void> {
    return this.#c.close();
  }
}

export const createFalProvider: MediaProviderFactory = (options) => new FalProvider(options);
