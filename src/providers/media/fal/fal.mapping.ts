/**
 * fal model endpoints: which endpoint a request goes to and its input, per family. The route's
 * upstream model is the fal endpoint id (`fal-ai/veo3.1`, `bytedance/seedance-2.0/...`). When it
 * names only the app (two segments) and the family has modes, the mode is appended
 * (`/image-to-video`, `/edit`, …); an id with three or more segments is used verbatim.
 * fal inputs are snake_case; fields without a rule are sent snake_cased.
 *
 * Where fal's published request schema for an app was checked (docs/media-providers.md, fixtures
 * under test/fixtures/upstreams/fal/), the mapping follows it and `falRefusal` names the options the
 * app cannot serve, so that the route is skipped before any charge instead of failing upstream.
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import { wan27Workflow } from '../../../domain/catalog/index.ts';
import { asString, type FieldTable, firstItem, has, lookup, mapFields, roleItems, stringList } from '../shared/field-mapping.ts';
import type { MediaJob, RouteRefusal, RouteRequest } from '../media-provider.ts';

interface FalRoute {
  /** Mode appended to a two-segment app id, or undefined for none. */
  mode?: (input: ValidatedInput, request: RouteRequest) => string | undefined;
  fields: FieldTable | ((app: string) => FieldTable);
  extra?: (input: ValidatedInput, app: string) => Record<string, unknown>;
  /** Longer ids that still take a mode (Veo 3.1 Fast: `fal-ai/veo3.1/fast` + `/image-to-video`); by default only the two-segment app id does. */
  modeBase?: (segments: readonly string[]) => boolean;
  /** Options the app's published schema cannot express (checked before dispatch). */
  refusal?: (input: ValidatedInput, app: string, endpoint: string) => RouteRefusal | undefined;
}

const isVeoFast = (endpoint: string) => /^fal-ai\/veo3\.1\/fast(\/|$)/u.test(endpoint);
const isVeoLite = (endpoint: string) => /^fal-ai\/veo3\.1\/lite(\/|$)/u.test(endpoint);

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

const SEEDANCE_FIELDS: FieldTable = {
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
};

const SEEDANCE: FalRoute = {
  mode: (input) => (has(input, 'videoUrls') || has(input, 'imageUrls') ? 'reference-to-video' : roleItems(input).length > 0 ? 'image-to-video' : 'text-to-video'),
  fields: SEEDANCE_FIELDS,
  extra: seedanceExtra,
};

/** A size the preset table has no entry for would be dropped, and fal would make its default shape instead. */
function presetRefusal(input: ValidatedInput, app: string): RouteRefusal | undefined {
  const size = input.size;
  if (size === undefined || String(size) in IMAGE_SIZE) return undefined;
  return { field: 'size', message: `fal's ${app} takes image_size presets, none of which is ${String(size)}` };
}

/**
 * Nano Banana apps whose fal schemas were checked (fixtures `fal-ai--nano-banana-*.json`): the aspect
 * ratios each lists, and our resolution tiers in its words. Nano Banana Pro has no 0.5K tier: 512px is
 * made at 1K, which the catalog prices the same.
 */
const NANO_BANANA_ASPECTS = ['21:9', '16:9', '3:2', '4:3', '5:4', '1:1', '4:5', '3:4', '2:3', '9:16'];
const NANO_BANANA: Readonly<Record<string, { aspects: ReadonlySet<unknown>; resolutions: Readonly<Record<string, string>> }>> = {
  'fal-ai/nano-banana-2': {
    aspects: new Set([...NANO_BANANA_ASPECTS, '4:1', '1:4', '8:1', '1:8']),
    resolutions: { '512px': '0.5K', '1K': '1K', '2K': '2K', '4K': '4K' },
  },
  'fal-ai/nano-banana-pro': { aspects: new Set(NANO_BANANA_ASPECTS), resolutions: { '512px': '1K', '1K': '1K', '2K': '2K', '4K': '4K' } },
};

/** fal's Sora 2 apps (fixtures `fal-ai--sora-2--*.json`): durations "4" to "20" in steps of 4, one image. */
const SORA_DURATIONS: ReadonlySet<unknown> = new Set([4, 8, 12, 16, 20]);

export const FAL_ROUTES: Readonly<Record<string, FalRoute>> = {
  /** Sora 2 (fal-ai/sora-2): text-to-video or image-to-video, `/pro` for Sora 2 Pro. */
  V1: {
    mode: (input, request) => `${has(input, 'urls') ? 'image-to-video' : 'text-to-video'}${request.model.endsWith('-pro') ? '/pro' : ''}`,
    fields: { rules: { aspectRatio: 'aspect_ratio', duration: asString('duration'), urls: firstItem('image_url') } },
    refusal: (input, app) => {
      if (!SORA_DURATIONS.has(input.duration)) return { field: 'duration', message: `fal's ${app} makes 4, 8, 12, 16 or 20 s videos, not ${String(input.duration)} s` };
      if (stringList(input.urls).length > 1) return { field: 'urls', message: `fal's ${app} takes one image` };
      return undefined;
    },
  },
  /**
   * Veo 3.1: duration is "8s"; frames or references select the endpoint, under the app
   * (`fal-ai/veo3.1/image-to-video`) or under Fast (`fal-ai/veo3.1/fast/image-to-video`,
   * `/fast/first-last-frame-to-video`; fal has no Fast reference-to-video, so that is refused).
   */
  V3: {
    mode: (input) => (!has(input, 'urls') ? undefined : input.generationType === 'reference' ? 'reference-to-video' : stringList(input.urls).length > 1 ? 'first-last-frame-to-video' : 'image-to-video'),
    modeBase: (segments) => segments.length === 3 && segments[2] === 'fast',
    fields: { rules: { urls: false, generationType: false } },
    extra: (input) => {
      const urls = stringList(input.urls);
      const out: Record<string, unknown> = { duration: '8s', generate_audio: true };
      if (input.generationType === 'reference') out.image_urls = urls;
      else if (urls.length > 1) Object.assign(out, { first_frame_url: urls[0], last_frame_url: urls[1] });
      else if (urls.length === 1) out.image_url = urls[0];
      return out;
    },
    refusal: (input, _app, endpoint) =>
      isVeoFast(endpoint) && has(input, 'urls') && input.generationType === 'reference'
        ? { field: 'generationType', message: `fal has no reference-to-video endpoint under ${endpoint}` }
        : undefined,
  },
  /** Veo 3.1 Lite (`fal-ai/veo3.1/lite`): 720p and 1080p only (Veo31LiteInput), so 4k is refused. */
  V4: {
    fields: { rules: {} },
    extra: () => ({ duration: '8s', generate_audio: true }),
    refusal: (input, _app, endpoint) =>
      isVeoLite(endpoint) && input.resolution === '4k' ? { field: 'resolution', message: `fal's ${endpoint} makes 720p and 1080p only` } : undefined,
  },
  /** Nano Banana: `/edit` with reference images; the checked apps get their resolution words. */
  I1: {
    mode: (input) => (has(input, 'urls') ? 'edit' : undefined),
    fields: (app) => {
      const known = NANO_BANANA[app];
      return { rules: { urls: 'image_urls', size: 'aspect_ratio', ...(known ? { resolution: lookup('resolution', known.resolutions) } : {}) } };
    },
    extra: () => ({ num_images: 1, output_format: 'png' }),
    refusal: (input, app) => {
      const known = NANO_BANANA[app];
      if (known && !known.aspects.has(input.size)) return { field: 'size', message: `fal's ${app} does not offer aspect ratio ${String(input.size)}` };
      return undefined;
    },
  },
  I3: { fields: { rules: { size: lookup('image_size', IMAGE_SIZE) } }, extra: () => ({ num_images: 1 }), refusal: presetRefusal },
  I5: {
    mode: (input) => (has(input, 'urls') ? 'edit' : 'text-to-image'),
    fields: { rules: { urls: 'image_urls', size: lookup('image_size', IMAGE_SIZE), watermark: false } },
    extra: () => ({ num_images: 1 }),
    refusal: presetRefusal,
  },
  I6: {
    mode: (input) => (has(input, 'urls') ? 'edit' : undefined),
    fields: { rules: { urls: firstItem('image_url'), size: lookup('image_size', IMAGE_SIZE) } },
    refusal: presetRefusal,
  },
  V6: SEEDANCE,
  V7: SEEDANCE,
  /** Seedance 1.5 Pro: image-to-video from one image (or the first/last frame roles). */
  V8: {
    mode: (input) => (has(input, 'imageUrls') || roleItems(input).length > 0 ? 'image-to-video' : 'text-to-video'),
    fields: { rules: { ...SEEDANCE_FIELDS.rules, imageUrls: firstItem('image_url'), cameraFixed: 'camera_fixed' } },
    extra: (input) => {
      const { reference_image_urls: _unused, ...frames } = seedanceExtra({ ...input, imageUrls: undefined });
      return frames;
    },
  },
  /**
   * Kling motion control: one image, one motion video. fal's schema has no resolution field: the tier is
   * the endpoint (`…/standard/motion-control` or `…/pro/motion-control`), so a request for the other
   * tier is refused rather than served at the wrong one.
   */
  V9: {
    fields: { rules: { imageUrls: firstItem('image_url'), videoUrls: firstItem('video_url'), characterOrientation: 'character_orientation', resolution: false } },
    refusal: (input, _app, endpoint) => {
      const tier = endpoint.includes('/standard/') ? '720p' : endpoint.includes('/pro/') ? '1080p' : undefined;
      if (tier && input.resolution !== undefined && input.resolution !== tier) return { field: 'resolution', message: `fal's ${endpoint} makes ${tier} videos` };
      return undefined;
    },
  },
  V10: {
    mode: (input) => (has(input, 'imageUrls') ? 'image-to-video' : has(input, 'firstFrameImage') ? 'transition' : 'text-to-video'),
    fields: { rules: { size: 'aspect_ratio', duration: asString('duration'), imageUrls: firstItem('image_url'), firstFrameImage: 'first_image_url', lastFrameImage: 'end_image_url' } },
  },
  V11: {
    mode: (input) => wan27Workflow(input),
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

function segmentsOf(upstreamModel: string): string[] {
  return upstreamModel.split('/').filter((s) => s !== '');
}

export function falRequest(job: MediaJob): FalRequest {
  const route = FAL_ROUTES[job.family] ?? FALLBACK;
  const segments = segmentsOf(job.upstreamModel);
  const app = segments.slice(0, 2).join('/');
  let endpoint = segments.join('/');
  const mode = segments.length === 2 || route.modeBase?.(segments) ? route.mode?.(job.input, job) : undefined;
  if (mode) endpoint = `${endpoint}/${mode}`;
  const fields = typeof route.fields === 'function' ? route.fields(app) : route.fields;
  return { endpoint, app, input: { ...mapFields(job.input, fields), ...route.extra?.(job.input, app) } };
}

/** Why this route cannot serve the request as asked, before anything is sent; undefined when it can. */
export function falRefusal(request: RouteRequest): RouteRefusal | undefined {
  const segments = segmentsOf(request.upstreamModel);
  if (segments.length < 2) {
    return { field: 'model', scope: 'route', message: `${JSON.stringify(request.upstreamModel)} is not a fal endpoint id (owner/app[/path]): name it in the route` };
  }
  return (FAL_ROUTES[request.family] ?? FALLBACK).refusal?.(request.input, segments.slice(0, 2).join('/'), segments.join('/'));
}
