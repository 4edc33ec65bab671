/**
 * OpenAI (`type: openai`, baseUrl `https://api.openai.com/v1`, or any OpenAI-compatible upstream).
 *
 * Images (requests whose output is an image): synchronous `POST /images/generations`, or
 * `POST /images/edits` (multipart, the reference images fetched through the guarded client or
 * decoded from data URIs) when `urls` are given; `b64_json` results are returned inline as `data`.
 * A synchronous call cannot be looked up afterwards: an unknown outcome is `unknowable`.
 *
 * Videos (Sora): `POST /videos`, polled at `GET /videos/{id}`; the MP4 at `GET /videos/{id}/content`
 * needs our key, so the adapter downloads it and returns the bytes inline (`data`) instead of handing
 * out a URL that would need our credentials. An unknown submit is reconciled by listing `GET /videos`.
 */
import { GuardedHttpClient } from '../../../adapters/outbound/guarded-http-client.ts';
import { isOutboundUrlError } from '../../../adapters/outbound/outbound-url-error.ts';
import type {
  MediaJob,
  MediaProvider,
  MediaProviderFactory,
  MediaProviderDeps,
  MediaProviderFactoryOptions,
  PollOutcome,
  ProviderError,
  ReconcileOutcome,
  RouteRefusal,
  RouteRequest,
  SubmitOutcome,
  UpstreamFile,
} from '../media-provider.ts';
import { stringList } from '../shared/field-mapping.ts';
import { decodeDataUri, type MultipartPart, multipartBody } from '../shared/multipart.ts';
import { httpError, protocolError, unsupported } from '../shared/provider-errors.ts';
import { optionNumber, optionString } from '../shared/provider-options.ts';
import { type CycleAnswer, MediaRequestCycle, type VendorMapping } from '../shared/request-cycle.ts';
import type { UpstreamResponse } from '../../../adapters/outbound/upstream-http-client.ts';
import { bodySnippet, isRecord, numberAt, parseJson, recordAt, stringAt } from '../shared/json-values.ts';
import { openAiRefusal } from './openai-refusal.ts';
import { OPENAI_VIDEO_SECONDS, openAiImageQuality, openAiImageSize, openAiVideoSize } from './openai-sizes.ts';

const MAX_REFERENCE_IMAGES = 16;
const MAX_REFERENCE_BYTES = 50 * 1024 * 1024;
const MAX_LIST_PAGES = 5;
interface VideoBody {
  model: string;
  prompt: string;
  seconds: string;
  size: string;
  input_reference?: { image_url: string };
}

const POLICY_CODES = new Set(['moderation_blocked', 'content_policy_violation', 'content_filter', 'safety_violation']);

export function openAiError(response: UpstreamResponse, what: string): ProviderError {
  const json = parseJson(response.body);
  const error = recordAt(json, 'error');
  const code = stringAt(error, 'code');
  const text = stringAt(error, 'message') ?? bodySnippet(response.body);
  const base = httpError(response.status, `openai ${what}: ${response.status}${code ? ` ${code}` : ''} ${text}`);
  if (code && POLICY_CODES.has(code)) return { ...base, retryable: false, code: 'content_policy' };
  // OpenAI says 429 both for "slow down" and for "your quota is spent".
  if (code === 'insufficient_quota' || code === 'billing_hard_limit_reached') return { ...base, retryable: true, code: 'credits' };
  return base;
}

const OPENAI: VendorMapping = {
  vendor: 'openai',
  defaultBaseUrl: 'https://api.openai.com/v1',
  defaultPollMs: 10_000,
  headers: (apiKey) => ({ authorization: `Bearer ${apiKey}` }),
};

class OpenAiProvider implements MediaProvider {
  readonly name: string;
  readonly type = 'openai';
  readonly defaultPollMs: number;
  readonly #c: MediaRequestCycle;
  readonly #guarded: GuardedHttpClient;
  readonly #imageQuality: string | undefined;
  readonly #imageTimeoutMs: number;
  readonly #downloadTimeoutMs: number;
  readonly #maxVideoBytes: number;
  readonly #windowMs: number;

  constructor(o: MediaProviderFactoryOptions, deps: MediaProviderDeps) {
    this.name = o.name;
    this.#c = new MediaRequestCycle(o, OPENAI);
    this.defaultPollMs = this.#c.pollMs;
    this.#guarded = deps.guardedHttp ?? new GuardedHttpClient({ allowPrivate: false });
    this.#imageQuality = optionString(o, 'imageQuality');
    this.#imageTimeoutMs = optionNumber(o, 'imageTimeoutMs', Math.max(o.timeoutMs, 180_000));
    this.#downloadTimeoutMs = optionNumber(o, 'downloadTimeoutMs', Math.max(o.timeoutMs, 120_000));
    this.#maxVideoBytes = optionNumber(o, 'maxVideoBytes', 512 * 1024 * 1024);
    this.#windowMs = optionNumber(o, 'reconcileWindowMs', 60 * 60 * 1000);
  }

  refusal(request: RouteRequest): RouteRefusal | undefined {
    return openAiRefusal(request, this.#c.baseUrl);
  }

  async submit(job: MediaJob): Promise<SubmitOutcome> {
    const refusal = this.refusal(job);
    // Nothing is sent for what this route cannot make: another route may serve it.
    if (refusal) return this.#c.refused(refusal);
    return job.outputSpec.kind === 'video' ? this.#submitVideo(job) : this.#submitImage(job);
  }

  // ---------------------------------------------------------------------------------------- images

  async #submitImage(job: MediaJob): Promise<SubmitOutcome> {
    const model = job.upstreamModel;
    const input = job.input;
    const size = openAiImageSize(model, input.size, input.resolution);
    const quality = openAiImageQuality(model, this.#imageQuality);
    const urls = stringList(input.urls);
    const imagesError = (response: UpstreamResponse) => openAiError(response, 'images');
    let answer: CycleAnswer<SubmitOutcome>;
    if (urls.length === 0) {
      answer = await this.#c.submit(
        this.#c.request(job, 'POST', '/images/generations', {
          json: { model, prompt: input.prompt, n: 1, size, quality, output_format: 'png' },
          timeoutMs: this.#imageTimeoutMs,
          maxBytes: 128 * 1024 * 1024,
        }),
        imagesError,
      );
    } else {
      if (urls.length > MAX_REFERENCE_IMAGES) return { kind: 'failed', error: unsupported(`OpenAI image edits take at most ${MAX_REFERENCE_IMAGES} images`) };
      const parts: MultipartPart[] = [
        { name: 'model', value: model },
        { name: 'prompt', value: String(input.prompt ?? '') },
        { name: 'n', value: '1' },
        { name: 'size', value: size },
        { name: 'quality', value: quality },
        { name: 'output_format', value: 'png' },
      ];
      for (const [index, url] of urls.entries()) {
        const image = await this.#referenceImage(url, index);
        if ('error' in image) return { kind: 'failed', error: image.error };
        parts.push({ name: 'image[]', filename: `image-${index + 1}.${image.ext}`, contentType: image.contentType, data: image.data });
      }
      const { body, contentType } = multipartBody(parts);
      answer = await this.#c.submit(
        this.#c.request(job, 'POST', '/images/edits', {
          headers: { ...this.#c.authHeaders(), 'content-type': contentType },
          body,
          timeoutMs: this.#imageTimeoutMs,
          maxBytes: 128 * 1024 * 1024,
        }),
        imagesError,
      );
    }
    if (answer.kind === 'settled') return answer.outcome;
    const { response } = answer;
    const json = parseJson(response.body);
    const data = isRecord(json) && Array.isArray(json.data) ? json.data.filter(isRecord) : [];
    const format = stringAt(json, 'output_format') ?? 'png';
    const files: UpstreamFile[] = [];
    for (const item of data) {
      const b64 = stringAt(item, 'b64_json');
      const url = stringAt(item, 'url');
      if (b64) files.push({ fileType: 'image', data: Buffer.from(b64, 'base64'), contentType: `image/${format === 'jpg' ? 'jpeg' : format}` });
      else if (url) files.push({ fileType: 'image', url });
    }
    if (files.length === 0) return { kind: 'failed', error: protocolError('openai images: no image in the answer', response.status) };
    return { kind: 'completed', result: { files, output: null } };
  }

  /** A reference image: a data URI decoded, or a URL fetched through the guarded client. */
  async #referenceImage(url: string, index: number): Promise<{ data: Buffer; contentType: string; ext: string } | { error: ProviderError }> {
    const decoded = url.startsWith('data:') ? decodeDataUri(url) : undefined;
    let data: Buffer;
    let contentType: string;
    if (decoded) {
      ({ data, contentType } = decoded);
    } else {
      try {
        const response = await this.#guarded.request({ url, timeoutMs: this.#downloadTimeoutMs, maxBytes: MAX_REFERENCE_BYTES });
        if (response.status !== 200) {
          return { error: { message: `input.urls[${index}]: the image answered HTTP ${response.status}`, retryable: false, code: 'invalid_request' } };
        }
        data = response.body;
        contentType = response.headers['content-type']?.split(';')[0]?.trim() ?? 'application/octet-stream';
      } catch (error) {
        const transient = isOutboundUrlError(error) && (error.reason === 'timeout' || error.reason === 'connect');
        const message = `input.urls[${index}]: ${error instanceof Error ? error.message : String(error)}`;
        return { error: { message, retryable: transient, code: transient ? 'network' : 'invalid_request' } };
      }
    }
    const ext = contentType === 'image/jpeg' ? 'jpg' : contentType === 'image/webp' ? 'webp' : 'png';
    return { data, contentType: contentType.startsWith('image/') ? contentType : 'image/png', ext };
  }

  // ---------------------------------------------------------------------------------------- videos

  #videoBody(job: MediaJob): { body: VideoBody } | { error: ProviderError } {
    const seconds = Number(job.input.duration ?? 4);
    if (!OPENAI_VIDEO_SECONDS.has(seconds)) return { error: unsupported(`the OpenAI Videos API does not make ${seconds} s videos`) };
    const body: VideoBody = {
      model: job.upstreamModel,
      prompt: String(job.input.prompt ?? ''),
      seconds: String(seconds),
      size: openAiVideoSize(job.input.aspectRatio ?? job.input.size),
    };
    const reference = stringList(job.input.urls)[0];
    if (reference) body.input_reference = { image_url: reference };
    return { body };
  }

  async #submitVideo(job: MediaJob): Promise<SubmitOutcome> {
    const made = this.#videoBody(job);
    if ('error' in made) return { kind: 'failed', error: made.error };
    const answer = await this.#c.submit(this.#c.request(job, 'POST', '/videos', { json: made.body }), (response) => openAiError(response, 'videos'));
    if (answer.kind === 'settled') return answer.outcome;
    const { response } = answer;
    const id = stringAt(parseJson(response.body), 'id');
    if (!id) return { kind: 'unknown', error: protocolError('openai accepted the video without an id', response.status) };
    return this.#c.accepted(id);
  }

  async poll(job: MediaJob, upstreamId: string): Promise<PollOutcome> {
    if (job.outputSpec.kind !== 'video') return { kind: 'failed', error: protocolError('openai images are synchronous: nothing to poll') };
    const path = `/videos/${encodeURIComponent(upstreamId)}`;
    const answer = await this.#c.poll(this.#c.request(job, 'GET', path), (response) => openAiError(response, 'videos'));
    if (answer.kind === 'settled') return answer.outcome;
    const video = parseJson(answer.response.body);
    const status = stringAt(video, 'status');
    if (status === 'failed') {
      const error = recordAt(video, 'error');
      const code = stringAt(error, 'code');
      const policy = code !== undefined && (POLICY_CODES.has(code) || code.includes('moderation'));
      return {
        kind: 'failed',
        error: { message: `openai video failed${code ? ` (${code})` : ''}: ${stringAt(error, 'message') ?? 'no reason given'}`, retryable: !policy, code: policy ? 'content_policy' : 'generation_failed' },
      };
    }
    if (status !== 'completed') return this.#c.pending();
    const content = await this.#c.poll(
      this.#c.request(job, 'GET', `${path}/content`, { headers: { ...this.#c.authHeaders(), accept: 'video/mp4, */*' }, timeoutMs: this.#downloadTimeoutMs, maxBytes: this.#maxVideoBytes }),
      (response) => openAiError(response, 'video content'),
    );
    if (content.kind === 'settled') return content.outcome;
    const contentType = content.response.headers['content-type']?.split(';')[0]?.trim() || 'video/mp4';
    return { kind: 'completed', result: { files: [{ fileType: 'video', data: content.response.body, contentType }], output: null } };
  }

  /**
   * Images: nothing to look up. Videos: list recent videos and look for exactly one created within
   * `reconcileWindowMs` with our model, prompt, seconds and size (the API keeps no reference of ours);
   * several candidates are ambiguous (`unknowable`).
   */
  async reconcile(job: MediaJob): Promise<ReconcileOutcome> {
    if (job.outputSpec.kind !== 'video') return { kind: 'unknowable' };
    const made = this.#videoBody(job);
    // A request this API refuses was never submitted here.
    if ('error' in made) return { kind: 'absent' };
    const wanted = made.body;
    const since = (Date.now() - this.#windowMs) / 1000;
    const matches: string[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_LIST_PAGES; page += 1) {
      const query = `?limit=100&order=desc${after ? `&after=${encodeURIComponent(after)}` : ''}`;
      const exchange = await this.#c.http.send(this.#c.request(job, 'GET', `/videos${query}`));
      if (exchange.kind === 'no-response') return { kind: 'failed', error: exchange.error };
      if (exchange.response.status >= 300) return { kind: 'failed', error: openAiError(exchange.response, 'list videos') };
      const json = parseJson(exchange.response.body);
      const items = isRecord(json) && Array.isArray(json.data) ? json.data.filter(isRecord) : [];
      let pastWindow = false;
      for (const v of items) {
        if ((numberAt(v, 'created_at') ?? 0) < since) {
          pastWindow = true;
          break;
        }
        const same = v.model === wanted.model && v.prompt === wanted.prompt && String(v.seconds) === wanted.seconds && v.size === wanted.size;
        const id = stringAt(v, 'id');
        if (same && id) matches.push(id);
      }
      const hasMore = isRecord(json) && json.has_more === true;
      after = stringAt(json, 'last_id') ?? stringAt(items[items.length - 1], 'id');
      if (pastWindow || !hasMore || !after) {
        if (matches.length === 1 && matches[0]) return { kind: 'found', upstreamId: matches[0] };
        return matches.length === 0 ? { kind: 'absent' } : { kind: 'unknowable' };
      }
    }
    return matches.length === 1 && matches[0] ? { kind: 'found', upstreamId: matches[0] } : { kind: 'unknowable' };
  }

  close(): Promise<void> {
    return this.#c.close();
  }
}

export const createOpenAiProvider: MediaProviderFactory = (options, deps) => new OpenAiProvider(options, deps);
