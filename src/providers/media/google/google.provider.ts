/**
 * Google's Gemini API (`type: google`, baseUrl `https://generativelanguage.googleapis.com` as the
 * @google/genai SDK takes it, `apiVersion` v1beta), key in `x-goog-api-key`.
 *
 * Nano Banana images: synchronous `generateContent`; the image comes back inline. A call whose answer
 * was lost cannot be looked up: an unknown outcome is `unknowable`.
 *
 * Veo 3.1 videos: `predictLongRunning`, then `GET /{version}/{operation name}` until `done`; the file
 * URI needs our key, so the adapter downloads it (bounded) and returns the bytes inline. An operation
 * is found by its name only, which an unknown submit never told us: `unknowable` too.
 */
import { GuardedHttpClient } from '../../../adapters/outbound/guarded-http-client.ts';
import { ConfigError } from '../../../domain/config-error.ts';
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
} from '../media-provider.ts';
import { stringList } from '../shared/field-mapping.ts';
import { protocolError, unsupported } from '../shared/provider-errors.ts';
import { optionNumber, optionString } from '../shared/provider-options.ts';
import { MediaRequestCycle, type VendorMapping } from '../shared/request-cycle.ts';
import { parseJson, stringAt } from '../shared/json-values.ts';
import { googleError, retryAfterMs } from './google-errors.ts';
import { downloadResult, fetchReferenceImage, type InlineImage } from './google-files.ts';
import { imageRequestBody, readImageAnswer } from './google-image.mapping.ts';
import { BlobJson, parseBlobJson } from './google-json.ts';
import { googleModel, googleRefusal, methodOf } from './google-models.ts';
import { readOperation, veoRequestBody } from './google-veo.mapping.ts';

const MIB = 1024 * 1024;
/** An operation name as Google gives it (`models/{model}/operations/{id}`): nothing else reaches our URL. */
const MODEL_ID = /^[A-Za-z0-9._-]+$/u;
const OPERATION_NAME = /^(?:models\/[A-Za-z0-9._-]+\/)?operations\/[A-Za-z0-9._-]+$/u;

/** Gemini API requests: the key in its header, JSON bodies declared, paths under the API version. */
function googleMapping(apiVersion: () => string): VendorMapping {
  return {
    vendor: 'google',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com',
    defaultPollMs: 10_000,
    headers: (apiKey, request) => ({ 'x-goog-api-key': apiKey, ...(request.body === undefined ? {} : { 'content-type': 'application/json' }) }),
    url: (baseUrl, path) => `${baseUrl}/${apiVersion()}/${path}`,
    // Google says how long to wait in Retry-After or in the error's RetryInfo.
    transientDelayMs: (response, retryPollMs) => Math.max(retryPollMs, retryAfterMs(response) ?? 0),
  };
}

class GoogleProvider implements MediaProvider {
  readonly name: string;
  readonly type = 'google';
  readonly defaultPollMs: number;
  readonly #c: MediaRequestCycle;
  readonly #guarded: GuardedHttpClient;
  readonly #apiVersion: string;
  readonly #apiOrigin: string;
  readonly #imageTimeoutMs: number;
  readonly #downloadTimeoutMs: number;
  readonly #maxVideoBytes: number;
  readonly #maxImageAnswerBytes: number;
  readonly #maxReferenceBytes: number;
  readonly #maxInlineBytes: number;

  constructor(o: MediaProviderFactoryOptions, deps: MediaProviderDeps) {
    this.name = o.name;
    // The version is read when a request is made: it is checked after the key and base URL, as before.
    this.#c = new MediaRequestCycle(o, googleMapping(() => this.#apiVersion));
    this.defaultPollMs = this.#c.pollMs;
    this.#guarded = deps.guardedHttp ?? new GuardedHttpClient({ allowPrivate: false });
    this.#apiVersion = optionString(o, 'apiVersion') ?? 'v1beta';
    if (!/^v\d+(?:alpha|beta)?\d*$/u.test(this.#apiVersion)) throw new ConfigError(`providers.${o.name}.options.apiVersion`, `must be an API version such as v1beta (got ${JSON.stringify(this.#apiVersion)})`);
    this.#apiOrigin = new URL(this.#c.baseUrl).origin;
    this.#imageTimeoutMs = optionNumber(o, 'imageTimeoutMs', Math.max(o.timeoutMs, 180_000));
    this.#downloadTimeoutMs = optionNumber(o, 'downloadTimeoutMs', Math.max(o.timeoutMs, 120_000));
    this.#maxVideoBytes = optionNumber(o, 'maxVideoBytes', 512 * MIB);
    this.#maxImageAnswerBytes = optionNumber(o, 'maxImageAnswerBytes', 64 * MIB);
    this.#maxReferenceBytes = optionNumber(o, 'maxReferenceBytes', 20 * MIB);
    this.#maxInlineBytes = optionNumber(o, 'maxInlineBytes', 64 * MIB);
  }

  refusal(request: RouteRequest): RouteRefusal | undefined {
    return googleRefusal(request);
  }

  async submit(job: MediaJob): Promise<SubmitOutcome> {
    const refusal = this.refusal(job);
    // Nothing is sent for an option Google does not document for this model: another route may serve it.
    if (refusal) return { kind: 'failed', error: unsupported(`google: input.${refusal.field}: ${refusal.message}`) };
    const model = googleModel(job.upstreamModel);
    // The route's model goes into the URL path: a Gemini API model id, nothing else.
    if (!MODEL_ID.test(model)) return { kind: 'failed', error: { message: `google: ${JSON.stringify(model)} is not a Gemini API model id`, retryable: true, code: 'not_found' } };
    const images = await this.#referenceImages(job);
    if ('error' in images) return { kind: 'failed', error: images.error };
    return methodOf(model) === 'generateContent' ? this.#generateImage(job, model, images) : this.#startVideo(job, model, images);
  }

  async #referenceImages(job: MediaJob): Promise<InlineImage[] | { error: ProviderError }> {
    const images: InlineImage[] = [];
    let total = 0;
    for (const [index, url] of stringList(job.input.urls).entries()) {
      const image = await fetchReferenceImage(this.#guarded, url, index, { timeoutMs: this.#downloadTimeoutMs, maxBytes: this.#maxReferenceBytes });
      if ('error' in image) return image;
      total += image.data.length;
      // Google takes images inline only, in a request of bounded size: a route that may take them by URL can.
      if (total > this.#maxInlineBytes) return { error: unsupported(`google: input.urls: the images total more than ${this.#maxInlineBytes} bytes, more than Google takes inline in one request`) };
      images.push(image);
    }
    return images;
  }

  async #generateImage(job: MediaJob, model: string, images: InlineImage[]): Promise<SubmitOutcome> {
    const json = new BlobJson();
    const body = await json.serialize(imageRequestBody(job.input, images, json));
    const sent = await this.#c.submit(
      this.#c.request(job, 'POST', `models/${model}:generateContent`, { body, timeoutMs: this.#imageTimeoutMs, maxBytes: this.#maxImageAnswerBytes }),
      (response) => googleError(response, 'generateContent'),
    );
    if (sent.kind === 'settled') return sent.outcome;
    const { response } = sent;
    const parsed = await parseBlobJson(response.body);
    if (!parsed) return { kind: 'failed', error: protocolError('google answered generateContent with a body that is not JSON', response.status) };
    const count = job.outputSpec.kind === 'image' ? job.outputSpec.count : 1;
    const answer = readImageAnswer(parsed.json, { count }, parsed.blobs);
    if (answer.kind === 'failed') return { kind: 'failed', error: { ...answer.error, status: response.status } };
    return { kind: 'completed', result: { files: answer.files, output: null } };
  }

  async #startVideo(job: MediaJob, model: string, images: InlineImage[]): Promise<SubmitOutcome> {
    const json = new BlobJson();
    const body = await json.serialize(veoRequestBody(job.input, images, json));
    const answer = await this.#c.submit(this.#c.request(job, 'POST', `models/${model}:predictLongRunning`, { body }), (response) => googleError(response, 'predictLongRunning'));
    if (answer.kind === 'settled') return answer.outcome;
    const { response } = answer;
    const name = stringAt(parseJson(response.body), 'name');
    // Accepted, but no operation to follow: the video may be made, and we cannot find it.
    if (!name || !OPERATION_NAME.test(name)) return { kind: 'unknown', error: protocolError('google accepted the video without an operation name', response.status) };
    return this.#c.accepted(name);
  }

  async poll(job: MediaJob, upstreamId: string): Promise<PollOutcome> {
    if (methodOf(googleModel(job.upstreamModel)) === 'generateContent') return { kind: 'failed', error: protocolError('google images are synchronous: nothing to poll') };
    if (!OPERATION_NAME.test(upstreamId)) return { kind: 'failed', error: protocolError(`not a Gemini API operation name: ${upstreamId.slice(0, 100)}`) };
    const answer = await this.#c.poll(this.#c.request(job, 'GET', upstreamId), (response) => googleError(response, 'operation'));
    if (answer.kind === 'settled') return answer.outcome;
    const state = readOperation(parseJson(answer.response.body));
    if (state.state === 'pending') return this.#c.pending();
    if (state.state === 'failed') return { kind: 'failed', error: state.error };
    const video = state.videos[0];
    if (video?.data) return { kind: 'completed', result: { files: [{ fileType: 'video', data: video.data, contentType: video.mimeType ?? 'video/mp4' }], output: null } };
    const downloaded = await downloadResult(
      { http: this.#c.http, guarded: this.#guarded, apiOrigin: this.#apiOrigin, apiKey: this.#c.apiKey, timeoutMs: this.#downloadTimeoutMs, maxBytes: this.#maxVideoBytes, signal: job.signal },
      video?.uri ?? '',
    );
    // A download that did not get through is tried again at the next poll (the operation stays done).
    if (downloaded.kind === 'retry') return this.#c.retryLater();
    if (downloaded.kind === 'failed') return { kind: 'failed', error: downloaded.error };
    return { kind: 'completed', result: { files: [{ fileType: 'video', data: downloaded.data, contentType: downloaded.contentType }], output: null } };
  }

  /** Neither call can be looked up by anything of ours, and Google sends no callback we asked for. */
  async reconcile(_job: MediaJob): Promise<ReconcileOutcome> {
    return { kind: 'unknowable' };
  }

  close(): Promise<void> {
    return this.#c.close();
  }
}

export const createGoogleProvider: MediaProviderFactory = (options, deps) => new GoogleProvider(options, deps);
