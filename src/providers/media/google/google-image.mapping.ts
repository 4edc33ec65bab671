/**
 * Nano Banana (family I1) on the Gemini API: `POST /{version}/models/{model}:generateContent`, one
 * user turn of the prompt and the reference images inline, images only back
 * (`responseModalities: ["IMAGE"]`), with `imageConfig.aspectRatio` and `imageConfig.imageSize` as
 * Google documents them. Nothing else is sent: no tools (Search grounding is billed per query), no
 * `serviceTier`, no thinking level (thinking tokens are billed), so the catalog's price per image
 * tier is what the call costs.
 */
import type { ImageOutputSpec, ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import type { ProviderError, UpstreamFile } from '../media-provider.ts';
import { isRecord, recordAt, stringAt } from '../shared/json-values.ts';
import type { InlineImage } from './google-files.ts';
import { type BlobJson, blobData } from './google-json.ts';
import { aspectRatioOf, imageSizeOf } from './google-models.ts';

/** The request; each reference image's bytes stand in `json` until it is serialised. */
export function imageRequestBody(input: ValidatedInput, references: readonly InlineImage[], json: BlobJson): Record<string, unknown> {
  const parts: Array<Record<string, unknown>> = [{ text: String(input.prompt ?? '') }];
  for (const image of references) parts.push({ inlineData: { mimeType: image.mimeType, data: json.blob(image.data) } });
  return {
    contents: [{ role: 'user', parts }],
    generationConfig: {
      responseModalities: ['IMAGE'],
      imageConfig: { aspectRatio: aspectRatioOf(input), imageSize: imageSizeOf(input) },
    },
  };
}

/** Prompt or output blocked by Google's filters: another provider would refuse it too. */
const POLICY_FINISH = new Set(['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY', 'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION']);

/** Proto JSON answers in lowerCamelCase; the snake_case spelling is read too. */
function inlineDataOf(part: Record<string, unknown>): { mimeType: string; data: string } | undefined {
  const blob = recordAt(part, 'inlineData') ?? recordAt(part, 'inline_data');
  const data = stringAt(blob, 'data');
  const mimeType = stringAt(blob, 'mimeType') ?? stringAt(blob, 'mime_type') ?? 'image/png';
  return data && mimeType.startsWith('image/') ? { mimeType, data } : undefined;
}

export type ImageAnswer = { kind: 'completed'; files: UpstreamFile[] } | { kind: 'failed'; error: ProviderError };

/**
 * The images of a generateContent answer (thought images, which Google does not bill, are skipped),
 * at most as many as the request asked for; a block or an answer without an image is a failure.
 */
export function readImageAnswer(json: unknown, spec: Pick<ImageOutputSpec, 'count'>, blobs: readonly Buffer[] = []): ImageAnswer {
  const blockReason = stringAt(recordAt(json, 'promptFeedback'), 'blockReason');
  if (blockReason) return { kind: 'failed', error: { message: `google blocked the prompt (${blockReason})`, retryable: false, code: 'content_policy' } };
  const candidates = isRecord(json) && Array.isArray(json.candidates) ? json.candidates.filter(isRecord) : [];
  const files: UpstreamFile[] = [];
  const reasons: string[] = [];
  for (const candidate of candidates) {
    const reason = stringAt(candidate, 'finishReason');
    if (reason) reasons.push(reason);
    const parts = recordAt(candidate, 'content')?.parts;
    for (const part of Array.isArray(parts) ? parts.filter(isRecord) : []) {
      if (part.thought === true) continue;
      const image = inlineDataOf(part);
      const data = image && files.length < spec.count ? blobData(image.data, blobs) : undefined;
      if (image && data && data.length > 0) files.push({ fileType: 'image', data, contentType: image.mimeType });
    }
  }
  if (files.length > 0) return { kind: 'completed', files };
  const policy = reasons.find((r) => POLICY_FINISH.has(r));
  if (policy) return { kind: 'failed', error: { message: `google refused to make the image (${policy})`, retryable: false, code: 'content_policy' } };
  const why = reasons.length > 0 ? reasons.join(', ') : 'no candidates';
  // NO_IMAGE, IMAGE_OTHER, OTHER, MAX_TOKENS: the model ran and gave no image; a reserve may.
  return { kind: 'failed', error: { message: `google answered without an image (${why})`, retryable: true, code: 'generation_failed' } };
}
