/**
 * Replicate (`type: replicate`, baseUrl `https://api.replicate.com/v1`): predictions with a webhook
 * (`webhook_events_filter: ['completed']`), polled at `GET /predictions/{id}`, cancelled at
 * `POST /predictions/{id}/cancel` while it is still `starting` (a running one is billed when stopped). An unknown submit is reconciled by listing recent predictions of
 * the model and matching the webhook URL, which is unique per attempt. Webhooks are Standard
 * Webhooks signed with the account secret (`options.webhookSecret`, from
 * `GET /v1/webhooks/default/secret`); only a verified webhook carries an outcome. `options.openaiApiKey`
 * is passed to the OpenAI models that take one (openai/gpt-image-1 requires it).
 */
import type {
  CallbackNotice,
  CancelOutcome,
  MediaJob,
  MediaProvider,
  MediaProviderFactory,
  MediaProviderFactoryOptions,
  PollOutcome,
  ProviderError,
  ReconcileOutcome,
  RouteRefusal,
  RouteRequest,
  SubmitOutcome,
  UpstreamFile,
} from '../media-provider.ts';
import type { OutputSpec } from '../../../domain/catalog/catalog.types.ts';
import { httpError, protocolError, retryDelayMs } from '../shared/provider-errors.ts';
import { optionNumber, optionString } from '../shared/provider-options.ts';
import { MediaRequestCycle, type VendorMapping } from '../shared/request-cycle.ts';
import { guessFileType, isHttpUrl, urlFile } from '../shared/result-files.ts';
import { lowerHeaders, verifyStandardWebhook } from '../shared/standard-webhooks.ts';
import type { UpstreamResponse } from '../../../adapters/outbound/upstream-http-client.ts';
import { bodySnippet, isRecord, parseJson, stringAt } from '../shared/json-values.ts';
import { type ReplicateMappingOptions, replicateInput, replicateRefusal, replicateTarget } from './replicate.mapping.ts';

const MAX_LIST_PAGES = 5;
const MAX_DETAIL_LOOKUPS = 25;

export function replicateError(response: UpstreamResponse, what: string): ProviderError {
  const json = parseJson(response.body);
  const text = stringAt(json, 'detail') ?? stringAt(json, 'title') ?? bodySnippet(response.body);
  return httpError(response.status, `replicate ${what}: ${response.status} ${text}`);
}

function sameOrigin(a: string, b: string): boolean {
  try {
    return new URL(a).origin === new URL(b).origin;
  } catch {
    return false;
  }
}

/** Every URL in a prediction's output (a URL, a list of URLs, or an object of them), in order. */
function outputUrls(output: unknown, depth = 0): string[] {
  if (isHttpUrl(output)) return [output];
  if (depth > 2) return [];
  if (Array.isArray(output)) return output.flatMap((o) => outputUrls(o, depth + 1));
  if (isRecord(output)) return Object.values(output).flatMap((o) => outputUrls(o, depth + 1));
  return [];
}

/** A finished prediction as an outcome; undefined while it runs. */
export function predictionOutcome(prediction: Record<string, unknown>, spec: OutputSpec | undefined): PollOutcome | undefined {
  const status = stringAt(prediction, 'status');
  if (status === 'succeeded') {
    const urls = outputUrls(prediction.output);
    if (urls.length > 0) {
      const files: UpstreamFile[] = urls.map((url) => (spec ? urlFile(url, spec) : { fileType: guessFileType(url) ?? 'image', url }));
      return { kind: 'completed', result: { files, output: null } };
    }
    // Text and other data outputs.
    if (prediction.output !== null && prediction.output !== undefined) {
      const text = Array.isArray(prediction.output) && prediction.output.every((o) => typeof o === 'string') ? prediction.output.join('') : undefined;
      return { kind: 'completed', result: { files: [], output: text !== undefined ? { text } : { value: prediction.output } } };
    }
    return { kind: 'failed', error: protocolError('replicate: succeeded without output') };
  }
  if (status === 'failed') {
    return { kind: 'failed', error: { message: `replicate: ${stringAt(prediction, 'error') ?? 'the prediction failed'}`, retryable: true, code: 'generation_failed' } };
  }
  if (status === 'canceled' || status === 'aborted') return { kind: 'failed', error: { message: 'replicate: the prediction was canceled', retryable: true, code: 'canceled' } };
  return undefined;
}

const REPLICATE: VendorMapping = {
  vendor: 'replicate',
  defaultBaseUrl: 'https://api.replicate.com/v1',
  defaultPollMs: 3_000,
  headers: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
  // The list's `next` is a whole URL (checked to be on our API before it is followed).
  url: (baseUrl, path) => (path.startsWith('http') ? path : `${baseUrl}${path}`),
  transientDelayMs: (response, retryPollMs) => retryDelayMs(response, retryPollMs),
};

class ReplicateProvider implements MediaProvider {
  readonly name: string;
  readonly type = 'replicate';
  readonly defaultPollMs: number;
  readonly #c: MediaRequestCycle;
  readonly #secret: string | undefined;
  readonly #windowMs: number;
  readonly #mapping: ReplicateMappingOptions;

  constructor(o: MediaProviderFactoryOptions) {
    this.name = o.name;
    this.#c = new MediaRequestCycle(o, REPLICATE);
    this.defaultPollMs = this.#c.pollMs;
    this.#secret = optionString(o, 'webhookSecret');
    this.#windowMs = optionNumber(o, 'reconcileWindowMs', 24 * 60 * 60 * 1000);
    this.#mapping = { openaiApiKey: optionString(o, 'openaiApiKey') };
  }

  refusal(request: RouteRequest): RouteRefusal | undefined {
    return replicateRefusal(request, this.#mapping);
  }

  async submit(job: MediaJob): Promise<SubmitOutcome> {
    const refusal = this.refusal(job);
    // Nothing is sent for what the model's schema cannot express: another route may serve it.
    if (refusal) return this.#c.refused(refusal);
    const { model, version } = replicateTarget(job.upstreamModel);
    const body: Record<string, unknown> = { input: replicateInput(job, this.#mapping), webhook: job.callbackUrl, webhook_events_filter: ['completed'] };
    const path = version ? '/predictions' : `/models/${model}/predictions`;
    if (version) body.version = version;
    const answer = await this.#c.submit(this.#c.request(job, 'POST', path, { json: body }), (response) => replicateError(response, 'submit'));
    if (answer.kind === 'settled') return answer.outcome;
    const { response } = answer;
    const prediction = parseJson(response.body);
    const id = stringAt(prediction, 'id');
    if (!isRecord(prediction) || !id) return { kind: 'unknown', error: protocolError('replicate accepted the prediction without an id', response.status) };
    const done = predictionOutcome(prediction, job.outputSpec);
    if (done?.kind === 'completed') return { kind: 'completed', upstreamId: id, result: done.result };
    if (done?.kind === 'failed') return { kind: 'failed', error: done.error };
    return this.#c.accepted(id);
  }

  async poll(job: MediaJob, upstreamId: string): Promise<PollOutcome> {
    const answer = await this.#c.poll(this.#c.request(job, 'GET', `/predictions/${encodeURIComponent(upstreamId)}`), (response) => replicateError(response, 'poll'));
    if (answer.kind === 'settled') return answer.outcome;
    const prediction = parseJson(answer.response.body);
    if (!isRecord(prediction)) return this.#c.retryLater();
    return predictionOutcome(prediction, job.outputSpec) ?? this.#c.pending();
  }

  /**
   * Lists predictions, newest first, back to `reconcileWindowMs` ago; for those of this model, reads
   * each one's `webhook` (the list omits it) and compares it with this attempt's callback URL.
   */
  async reconcile(job: MediaJob): Promise<ReconcileOutcome> {
    const { model, version } = replicateTarget(job.upstreamModel);
    const since = Date.now() - this.#windowMs;
    let next: string | undefined = '/predictions';
    let lookups = 0;
    for (let page = 0; page < MAX_LIST_PAGES && next; page += 1) {
      const exchange = await this.#c.http.send(this.#c.request(job, 'GET', next));
      if (exchange.kind === 'no-response') return { kind: 'failed', error: exchange.error };
      if (exchange.response.status >= 300) return { kind: 'failed', error: replicateError(exchange.response, 'list') };
      const json = parseJson(exchange.response.body);
      const results = isRecord(json) && Array.isArray(json.results) ? json.results.filter(isRecord) : [];
      for (const p of results) {
        const created = Date.parse(stringAt(p, 'created_at') ?? '');
        if (Number.isFinite(created) && created < since) return { kind: 'absent' };
        const sameModel = stringAt(p, 'model') === model || (version !== undefined && stringAt(p, 'version') === version);
        const id = stringAt(p, 'id');
        if (!sameModel || !id) continue;
        let webhook = stringAt(p, 'webhook');
        if (webhook === undefined) {
          if (lookups >= MAX_DETAIL_LOOKUPS) return { kind: 'unknowable' };
          lookups += 1;
          const detail = await this.#c.http.send(this.#c.request(job, 'GET', `/predictions/${encodeURIComponent(id)}`));
          if (detail.kind === 'no-response') return { kind: 'failed', error: detail.error };
          if (detail.response.status >= 300) return { kind: 'failed', error: replicateError(detail.response, 'get') };
          webhook = stringAt(parseJson(detail.response.body), 'webhook');
        }
        if (webhook === job.callbackUrl) return { kind: 'found', upstreamId: id };
      }
      next = isRecord(json) && typeof json.next === 'string' && json.next !== '' ? json.next : undefined;
      // Follow pages on the configured API only: our key must not go anywhere else.
      if (next?.startsWith('http') && !sameOrigin(next, this.#c.baseUrl)) return { kind: 'unknowable' };
    }
    // The whole history was read (no next page): it is not there. Otherwise we stopped early.
    return next ? { kind: 'unknowable' } : { kind: 'absent' };
  }

  /**
   * `POST /predictions/{id}/cancel` answers with the prediction: `canceled` when it stopped, its final
   * status when it had already ended (a cancel then changes nothing).
   */
  async cancel(job: MediaJob, upstreamId: string): Promise<CancelOutcome> {
    // Replicate bills a public model's prediction for the time it ran, also when it is canceled
    // (one that ends `aborted` never ran): only a prediction still `starting` is stopped; a running
    // one finishes and is charged. One that starts between this read and the cancel is stopped
    // with a few seconds of run time at most.
    const seen = await this.#c.http.send(this.#c.request(job, 'GET', `/predictions/${encodeURIComponent(upstreamId)}`));
    if (seen.kind === 'no-response') return { kind: 'failed', error: seen.error };
    if (seen.response.status >= 300) return { kind: 'failed', error: replicateError(seen.response, 'cancel') };
    const before = stringAt(parseJson(seen.response.body), 'status');
    if (before === 'processing') return { kind: 'running' };
    if (before === 'succeeded' || before === 'failed') return { kind: 'too_late' };
    if (before === 'canceled' || before === 'aborted') return { kind: 'cancelled' };
    const exchange = await this.#c.http.send(this.#c.request(job, 'POST', `/predictions/${encodeURIComponent(upstreamId)}/cancel`));
    if (exchange.kind === 'no-response') return { kind: 'failed', error: exchange.error };
    const { response } = exchange;
    if (response.status >= 300) return { kind: 'failed', error: replicateError(response, 'cancel') };
    const status = stringAt(parseJson(response.body), 'status');
    if (status === 'canceled' || status === 'aborted') return { kind: 'cancelled' };
    if (status === 'succeeded' || status === 'failed') return { kind: 'too_late' };
    return { kind: 'requested' };
  }

  parseCallback(request: { headers: Record<string, string | undefined>; rawBody: Buffer }): CallbackNotice | undefined {
    const prediction = parseJson(request.rawBody);
    const id = stringAt(prediction, 'id');
    if (!isRecord(prediction) || !id) return undefined;
    if (this.#secret === undefined) return { upstreamId: id };
    if (!verifyStandardWebhook(this.#secret, lowerHeaders(request.headers), request.rawBody).ok) return undefined;
    const outcome = predictionOutcome(prediction, undefined);
    return outcome ? { upstreamId: id, outcome } : { upstreamId: id };
  }

  close(): Promise<void> {
    return this.#c.close();
  }
}

export const createReplicateProvider: MediaProviderFactory = (options) => new ReplicateProvider(options);
