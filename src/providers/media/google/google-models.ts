/**
 * Which Gemini API model serves a route, and what Google documents that model to take. A route names
 * either our model id (nano-banana-2, veo-3.1-fast, …), mapped to Google's id here, or Google's own id,
 * sent verbatim. Sources: the Gemini API image-generation and video pages and @google/genai (see
 * test/fixtures/upstreams/google/README.md); docs/media-providers.md "Google".
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import type { RouteRefusal, RouteRequest } from '../media-provider.ts';
import { stringList } from '../shared/field-mapping.ts';

/** Our model ids → Google's (the GA image ids of 2026-05-28; Veo 3.1 is served under its preview ids). */
const GOOGLE_MODELS: Readonly<Record<string, string>> = {
  'nano-banana-2': 'gemini-3.1-flash-image',
  'nano-banana-pro': 'gemini-3-pro-image',
  'veo-3.1-quality': 'veo-3.1-generate-preview',
  'veo-3.1-fast': 'veo-3.1-fast-generate-preview',
  'veo-3.1-lite': 'veo-3.1-lite-generate-preview',
};

export function googleModel(upstreamModel: string): string {
  return GOOGLE_MODELS[upstreamModel] ?? upstreamModel.replace(/^models\//u, '');
}

export type GoogleMethod = 'generateContent' | 'predictLongRunning';

/** Veo models are called with predictLongRunning; Gemini image models with generateContent. */
export function methodOf(model: string): GoogleMethod {
  return /^veo-/u.test(model) ? 'predictLongRunning' : 'generateContent';
}

const STANDARD_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'] as const;

interface ImageModelSpec {
  aspectRatios: ReadonlySet<string>;
  imageSizes: ReadonlySet<string>;
  maxInputImages: number;
}

/** Gemini 3.1 Flash Image adds 512 and the 1:4, 4:1, 1:8, 8:1 ratios; Gemini 3 Pro Image has neither. */
const FLASH_IMAGE: ImageModelSpec = {
  aspectRatios: new Set([...STANDARD_RATIOS, '1:4', '4:1', '1:8', '8:1']),
  imageSizes: new Set(['512', '1K', '2K', '4K']),
  maxInputImages: 14,
};
const PRO_IMAGE: ImageModelSpec = { aspectRatios: new Set(STANDARD_RATIOS), imageSizes: new Set(['1K', '2K', '4K']), maxInputImages: 14 };

/** What an image model takes; an unknown Gemini image model is held to the common subset (Pro's). */
export function imageModelSpec(model: string): ImageModelSpec {
  return /^gemini-3\.1-flash-image/u.test(model) ? FLASH_IMAGE : PRO_IMAGE;
}

interface VeoModelSpec {
  resolutions: ReadonlySet<string>;
  referenceImages: boolean;
}

/** Veo 3.1 and 3.1 Fast: 720p to 4k, up to 3 reference images; Veo 3.1 Lite: 720p and 1080p, no references. */
export function veoModelSpec(model: string): VeoModelSpec {
  if (/^veo-3\.1-lite/u.test(model)) return { resolutions: new Set(['720p', '1080p']), referenceImages: false };
  return { resolutions: new Set(['720p', '1080p', '4k']), referenceImages: true };
}

/** Our resolution tiers (512px, 1K, 2K, 4K) → Google's imageSize ("512" has no K). */
export function imageSizeOf(input: ValidatedInput): string {
  const tier = String(input.resolution ?? '1K');
  return tier === '512px' ? '512' : tier;
}

export function aspectRatioOf(input: ValidatedInput): string {
  return String(input.size ?? '1:1');
}

/** Reference images are used as frames (first, last) unless the request asks for references. */
export function usesReferenceImages(input: ValidatedInput): boolean {
  return input.generationType === 'reference' && stringList(input.urls).length > 0;
}

/**
 * Pure: the input field this route cannot serve as Google documents the model, or undefined. A refusal
 * drops the Google route at create (the reserve serves it) or answers 400 when no route is left.
 */
export function googleRefusal(request: RouteRequest): RouteRefusal | undefined {
  const model = googleModel(request.upstreamModel);
  const input = request.input;
  if (methodOf(model) === 'generateContent') {
    const spec = imageModelSpec(model);
    if (!spec.imageSizes.has(imageSizeOf(input))) {
      return { field: 'resolution', message: `Google documents ${[...spec.imageSizes].join(', ')} for ${model}, not ${String(input.resolution)}` };
    }
    if (!spec.aspectRatios.has(aspectRatioOf(input))) {
      return { field: 'size', message: `Google documents the aspect ratios ${[...spec.aspectRatios].join(', ')} for ${model}, not ${String(input.size)}` };
    }
    if (stringList(input.urls).length > spec.maxInputImages) {
      return { field: 'urls', message: `${model} takes at most ${spec.maxInputImages} reference images` };
    }
    return undefined;
  }
  const spec = veoModelSpec(model);
  const resolution = String(input.resolution ?? '720p');
  if (!spec.resolutions.has(resolution)) {
    return { field: 'resolution', message: `Google documents ${[...spec.resolutions].join(', ')} for ${model}, not ${resolution}` };
  }
  if (usesReferenceImages(input) && !spec.referenceImages) {
    return { field: 'generationType', message: `Google documents no reference images for ${model}` };
  }
  return undefined;
}
