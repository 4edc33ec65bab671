/**
 * fal model endpoints: which endpoint a request goes to and its input, per family. The route's
 * upstream model is the fal endpoint id (`fal-ai/veo3.1`, `bytedance/seedance-2.0/...`). When it
 * names only the app (two segments) and the family has modes, the mode is appended
 * (`/image-to-video`, `/edit`, …); an id with three or more segments is used verbatim.
 * fal inputs are snake_case; fields without a rule are sent snake_cased.
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import { v11Workflow } from '../../../domain/catalog/index.ts';
import { asString, type FieldTable, firstItem, has, lookup, mapFields, roleItems, stringList } from '../shared/field-mapping.ts';
import type { MediaJob } from '../media-provider.ts';

interface FalRoute {
  /** Mode appended to a two-segment app id, or undefined for none. */
  mode?: (input: ValidatedInput) => string | undefined;
  fields: FieldTable;
  extra?: (input: ValidatedInput) => Record<string, unknown>;
}

/** fal's image_size presets for aspect ratios (models that take `image_size`). */
const IMAGE_SIZE: Readonly<Record<string, string>> = {
  '1:1': 'square_hd',
  '4:3': 'landscape_4_3',
  '3:4': 'portrait_4_3',
  '16:9': 'landscape_16_9',
  '9:16': 'portrait_16_9',
};

function seedanceExtra(input: ValidatedInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const item of roleItems(input)) {
    if (item.role === 'first_frame') out.image_url = item.url;
    if (item.role === 'last_frame') out.end_image_url = item.url;
  }
  const images = stringList(input.imageUrls);
  if (images.length > 0) out.reference_image_urls = images;
  return out;
}

const SEEDANCE: FalRoute = {
  mode: (input) => (has(input, 'videoUrls') || has(input, 'imageUrls') ? 'reference-to-video' : roleItems(input).length > 0 ? 'image-to-video' : 'text-to-video'),
  fields: {
    rules: {
      size: 'aspect_ratio',
      duration: asString('duration'),
      imageUrls: false,
      imageWithRoles: false,
      videoUrls: 'reference_video_urls',
      audioUrls: 'reference_audio_urls',
      nsfwCheck: 'enable_safety_checker',
      tools: false,
    },
  },
  extra: seedanceExtra,
};

export const FAL_ROUTES: Readonly<Record<string, FalRoute>> = {
  /** Veo 3.1: duration is "8s"; frames or references select the endpoint. */
  V3: {
    mode: (input) => (!has(input, 'urls') ? undefined : input.generationType === 'reference' ? 'reference-to-video' : stringList(input.urls).length > 1 ? 'first-last-frame-to-video' : 'image-to-video'),
    fields: { rules: { urls: false, generationType: false } },
    extra: (input) => {
      const urls = stringList(input.urls);
      const out: Record<string, unknown> = { duration: '8s', generate_audio: true };
      if (input.generationType === 'reference') out.image_urls = urls;
      else if (urls.length > 1) Object.assign(out, { first_frame_url: urls[0], last_frame_url: urls[1] });
      else if (urls.length === 1) out.image_url = urls[0];
      return out;
    },
  },
  V4: { fields: { rules: {} }, extra: () => ({ duration: '8s', generate_audio: true }) },
  /** Nano Banana: `/edit` with reference images. */
  I1: {
    mode: (input) => (has(input, 'urls') ? 'edit' : undefined),
    fields: { rules: { urls: 'image_urls', size: 'aspect_ratio' } },
    extra: () => ({ num_images: 1, output_format: 'png' }),
  },
  I3: { fields: { rules: { size: lookup('image_size', IMAGE_SIZE) } }, extra: () => ({ num_images: 1 }) },
  I5: {
    mode: (input) => (has(input, 'urls') ? 'edit' : 'text-to-image'),
    fields: { rules: { urls: 'image_urls', size: lookup('image_size', IMAGE_SIZE), watermark: false } },
    extra: () => ({ num_images: 1 }),
  },
  I6: {
    mode: (input) => (has(input, 'urls') ? 'edit' : undefined),
    fields: { rules: { urls: firstItem('image_url'), size: lookup('image_size', IMAGE_SIZE) } },
  },
  V6: SEEDANCE,
  V7: SEEDANCE,
  /** Seedance 1.5 Pro: image-to-video from one image (or the first/last frame roles). */
  V8: {
    mode: (input) => (has(input, 'imageUrls') || roleItems(input).length > 0 ? 'image-to-video' : 'text-to-video'),
    fields: { rules: { ...SEEDANCE.fields.rules, imageUrls: firstItem('image_url'), cameraFixed: 'camera_fixed' } },
    extra: (input) => {
      const { reference_image_urls: _unused, ...frames } = seedanceExtra({ ...input, imageUrls: undefined });
      return frames;
    },
  },
  /** Kling motion control: one image, one motion video. */
  V9: { fields: { rules: { imageUrls: firstItem('image_url'), videoUrls: firstItem('video_url'), characterOrientation: 'character_orientation' } } },
  V10: {
    mode: (input) => (has(input, 'imageUrls') ? 'image-to-video' : has(input, 'firstFrameImage') ? 'transition' : 'text-to-video'),
    fields: { rules: { size: 'aspect_ratio', duration: asString('duration'), imageUrls: firstItem('image_url'), firstFrameImage: 'first_image_url', lastFrameImage: 'end_image_url' } },
  },
  V11: {
    mode: (input) => v11Workflow(input),
    fields: { rules: { size: 'aspect_ratio', duration: asString('duration'), imageUrls: firstItem('image_url'), editVideoUrl: 'video_url', continueVideoUrl: 'video_url' } },
  },
};

const FALLBACK: FalRoute = { fields: { rules: { urls: 'image_urls', size: 'aspect_ratio' } } };

export interface FalRequest {
  /** The endpoint id requests are submitted to. */
  endpoint: string;
  /** owner/app: where status, result and cancel live. */
  app: string;
  input: Record<string, unknown>;
}

export function falRequest(job: MediaJob): FalRequest {
  const route = FAL_ROUTES[job.family] ?? FALLBACK;
  const segments = job.upstreamModel.split('/').filter((s) => s !== '');
  let endpoint = segments.join('/');
  const mode = segments.length === 2 ? route.mode?.(job.input) : undefined;
  if (mode) endpoint = `${endpoint}/${mode}`;
  return { endpoint, app: segments.slice(0, 2).join('/'), input: { ...mapFields(job.input, route.fields), ...route.extra?.(job.input) } };
}
