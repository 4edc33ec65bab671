/**
 * Veo 3.1 (families V3, V4) on the Gemini API: `POST /{version}/models/{model}:predictLongRunning`
 * answers an operation `{name}`, polled at `GET /{version}/{name}` until `done`; the video is
 * `response.generateVideoResponse.generatedSamples[0].video` (a file URI, or inline bytes).
 *
 * The body is what @google/genai writes for the Gemini API: `instances[0].{prompt, image, lastFrame,
 * referenceImages}`, images as `{bytesBase64Encoded, mimeType}`, and `parameters.{aspectRatio,
 * resolution, durationSeconds, negativePrompt}`. The catalog's Veo videos are 8 s, the only length
 * Google makes at 1080p, at 4k and with reference images. No `sampleCount` (Veo 3.1 makes one video),
 * no `seed`, `generateAudio` or `personGeneration` (the SDK refuses the first two on the Gemini API;
 * the default person policy is the one Google requires for each mode).
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import type { ProviderError } from '../media-provider.ts';
import { isRecord, numberAt, recordAt, stringAt } from '../shared/json-values.ts';
import { operationError } from './google-errors.ts';
import type { InlineImage } from './google-files.ts';
import type { BlobJson } from './google-json.ts';
import { usesReferenceImages } from './google-models.ts';

const VEO_SECONDS = 8;

/** The predictLongRunning body; `images` are `input.urls` fetched, in order, their bytes standing in `json`. */
export function veoRequestBody(input: ValidatedInput, images: readonly InlineImage[], json: BlobJson): Record<string, unknown> {
  const imageJson = (image: InlineImage) => ({ bytesBase64Encoded: json.blob(image.data), mimeType: image.mimeType });
  const instance: Record<string, unknown> = { prompt: String(input.prompt ?? '') };
  if (usesReferenceImages(input)) {
    instance.referenceImages = images.map((image) => ({ image: imageJson(image), referenceType: 'asset' }));
  } else {
    const [first, last] = images;
    if (first) instance.image = imageJson(first);
    if (last) instance.lastFrame = imageJson(last);
  }
  const parameters: Record<string, unknown> = {
    aspectRatio: String(input.aspectRatio ?? '16:9'),
    resolution: String(input.resolution ?? '720p'),
    durationSeconds: VEO_SECONDS,
  };
  if (typeof input.negativePrompt === 'string' && input.negativePrompt !== '') parameters.negativePrompt = input.negativePrompt;
  return { instances: [instance], parameters };
}

export interface GeneratedVideo {
  uri?: string;
  data?: Buffer;
  mimeType?: string;
}

export type OperationState = { state: 'pending' } | { state: 'failed'; error: ProviderError } | { state: 'done'; videos: GeneratedVideo[] };

/** What a polled operation says. */
export function readOperation(json: unknown): OperationState {
  if (!isRecord(json) || json.done !== true) return { state: 'pending' };
  const error = recordAt(json, 'error');
  if (error) return { state: 'failed', error: operationError(error) };
  const response = recordAt(json, 'response');
  const result = recordAt(response, 'generateVideoResponse') ?? response;
  const samples = result && Array.isArray(result.generatedSamples) ? result.generatedSamples.filter(isRecord) : [];
  const videos: GeneratedVideo[] = [];
  for (const sample of samples) {
    const video = recordAt(sample, 'video');
    const uri = stringAt(video, 'uri');
    const encoded = stringAt(video, 'encodedVideo');
    const mimeType = stringAt(video, 'encoding');
    if (uri) videos.push({ uri, ...(mimeType ? { mimeType } : {}) });
    else if (encoded) videos.push({ data: Buffer.from(encoded, 'base64'), ...(mimeType ? { mimeType } : {}) });
  }
  if (videos.length > 0) return { state: 'done', videos };
  const filtered = numberAt(result, 'raiMediaFilteredCount') ?? 0;
  if (filtered > 0) {
    const reasons = result && Array.isArray(result.raiMediaFilteredReasons) ? result.raiMediaFilteredReasons.filter((r): r is string => typeof r === 'string') : [];
    return { state: 'failed', error: { message: `google filtered the video: ${reasons.join('; ') || 'no reason given'}`, retryable: false, code: 'content_policy' } };
  }
  return { state: 'failed', error: { message: 'google finished the operation without a video', retryable: true, code: 'generation_failed' } };
}
