/**
 * kie "Market" jobs (`POST /api/v1/jobs/createTask {model, input, callBackUrl}`): which kie model a
 * request goes to and how our input fields become kie's snake_case ones, one entry per input family.
 *
 * The route's upstream model is our model id unless the operator names another; an explicit kie name
 * (one with a `/`, or ending in `-to-video`, `-to-image`, `-edit`, `-storyboard`) is used verbatim.
 * Where kie's exact field name for a model is not published, the entry makes a documented guess
 * (docs/media-providers.md "kie"); fields without a rule are sent snake_cased.
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import { pixverseMode, wan27Workflow } from '../../../domain/catalog/index.ts';
import { asString, type FieldTable, firstItem, has, lookup, mapFields, roleItems, stringList } from '../shared/field-mapping.ts';
import type { MediaJob, RouteRefusal, RouteRequest } from '../media-provider.ts';
import { gptImageExtra, gptImageFields, gptImageRefusal } from './kie-gpt-image.ts';

export interface KieJobRequest {
  model: string;
  input: Record<string, unknown>;
}

interface KieJobRoute {
  /** kie's model name for this request. */
  model: (upstreamModel: string, input: ValidatedInput) => string;
  /** The field table, fixed or chosen by kie's model name where one family spans several kie bodies. */
  fields: FieldTable | ((kieModel: string) => FieldTable);
  /** Fields computed from several inputs, or constants kie expects. */
  extra?: (input: ValidatedInput, job: MediaJob, kieModel: string) => Record<string, unknown>;
  /** Options kie's documented body for the chosen model cannot express (checked before dispatch). */
  refusal?: (input: ValidatedInput, kieModel: string) => RouteRefusal | undefined;
}

const EXPLICIT = /\/|-to-video$|-to-image$|-edit$|-storyboard$/u;

/** The operator's explicit kie name, or the one derived from our id. */
function named(derive: (upstreamModel: string, input: ValidatedInput) => string): KieJobRoute['model'] {
  return (upstreamModel, input) => (EXPLICIT.test(upstreamModel) ? upstreamModel : derive(upstreamModel, input));
}

/** kie's names for our ids where they differ (the part before the mode suffix). */
const KIE_BASE: Readonly<Record<string, string>> = {
  'z-image-turbo': 'z-image',
  'seedance-2.0': 'bytedance/seedance-2',
  'seedance-2.0-mini': 'bytedance/seedance-2-mini',
  'seedance-2.5': 'bytedance/seedance-2.5',
  'seedance-1.5-pro': 'bytedance/seedance-1.5-pro',
  'kling-2.6-motion-control': 'kling-2.6/motion-control',
  'kling-3.0-motion-control': 'kling-3.0/motion-control',
  'pixverse-v6': 'pixverse-v6',
  'pixverse-v5.6': 'pixverse-v5.6',
  'wan-2.7': 'wan/2-7',
  'wan-3.0': 'wan/3-0-video',
  'wan-3.0-prime': 'wan/3-0-video-prime',
  'wan-2.7-image': 'wan/2-7-image',
  'qwen-image': 'qwen',
  'gpt-image-1.5': 'gpt-image/1.5',
  'gpt-image-2': 'gpt-image-2',
  'seedream-4.0': 'bytedance/seedream-v4',
  'seedream-4.5': 'seedream/4.5',
  'seedream-5.0-lite': 'seedream/5-lite',
  'seedream-5.0-pro': 'seedream/5-pro',
};

function base(upstreamModel: string): string {
  return KIE_BASE[upstreamModel] ?? upstreamModel;
}

const SORA_ORIENTATION = { '16:9': 'landscape', '9:16': 'portrait' } as const;

/** Seedream 4.0 on kie takes `image_size` presets (its Market page), not an aspect ratio. */
const SEEDREAM_V4_SIZE: Readonly<Record<string, string>> = {
  '1:1': 'square_hd',
  '4:3': 'landscape_4_3',
  '3:4': 'portrait_4_3',
  '16:9': 'landscape_16_9',
  '9:16': 'portrait_16_9',
  '3:2': 'landscape_3_2',
  '2:3': 'portrait_3_2',
  '21:9': 'landscape_21_9',
};
const SEEDREAM_V4_RESOLUTIONS: ReadonlySet<unknown> = new Set(['1K', '2K', '4K']);
/** Seedream 4.5 on kie: `aspect_ratio` and `quality` (basic is 2K, high is 4K); no resolution field. */
const SEEDREAM_45_ASPECTS: ReadonlySet<unknown> = new Set(['1:1', '4:3', '3:4', '16:9', '9:16', '2:3', '3:2', '21:9']);
const SEEDREAM_45_QUALITY: Readonly<Record<string, string>> = { '2K': 'basic', '4K': 'high' };
/** Z-Image on kie: the aspect ratios its Market page lists. */
const Z_IMAGE_ASPECTS: ReadonlySet<unknown> = new Set(['1:1', '4:3', '3:4', '16:9', '9:16']);

const isSeedreamV4 = (kieModel: string) => kieModel.startsWith('bytedance/seedream-v4');
const isSeedream45 = (kieModel: string) => kieModel.startsWith('seedream/4.5');

/** Options our Seedream catalog offers that kie's documented Seedream 4.0 and 4.5 bodies lack. */
function seedreamRefusal(input: ValidatedInput, kieModel: string): RouteRefusal | undefined {
  const v4 = isSeedreamV4(kieModel);
  const v45 = isSeedream45(kieModel);
  if (!v4 && !v45) return undefined;
  if (input.watermark === true) return { field: 'watermark', message: `kie's ${kieModel} has no watermark option` };
  const sizes = v4 ? new Set(Object.keys(SEEDREAM_V4_SIZE)) : SEEDREAM_45_ASPECTS;
  if (!sizes.has(input.size)) return { field: 'size', message: `kie's ${kieModel} does not offer size ${String(input.size)}` };
  const resolutionOk = v4 ? SEEDREAM_V4_RESOLUTIONS.has(input.resolution) : String(input.resolution) in SEEDREAM_45_QUALITY;
  if (!resolutionOk) return { field: 'resolution', message: `kie's ${kieModel} does not offer resolution ${String(input.resolution)}` };
  return undefined;
}

/** Seedream 5 (unchecked: no kie page found yet; docs/media-providers.md). */
const SEEDREAM_5_FIELDS: FieldTable = {
  rules: { urls: 'image_urls', size: 'aspect_ratio', resolution: 'image_resolution', promptOptimizeMode: 'optimize_prompt_mode' },
};

function seedreamFields(kieModel: string): FieldTable {
  const dropped = { promptOptimizeMode: false, watermark: false, outputFormat: false } as const;
  if (isSeedreamV4(kieModel)) return { rules: { urls: 'image_urls', size: lookup('image_size', SEEDREAM_V4_SIZE), resolution: 'image_resolution', ...dropped } };
  if (isSeedream45(kieModel)) return { rules: { urls: 'image_urls', size: 'aspect_ratio', resolution: lookup('quality', SEEDREAM_45_QUALITY), ...dropped } };
  return SEEDREAM_5_FIELDS;
}

/** Qwen on kie takes fal-style size names. */
const QWEN_IMAGE_SIZE = { '1:1': 'square_hd', '4:3': 'landscape_4_3', '3:4': 'portrait_4_3', '16:9': 'landscape_16_9', '9:16': 'portrait_16_9' } as const;

function seedanceRoles(input: ValidatedInput): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const roles = roleItems(input);
  const first = roles.find((r) => r.role === 'first_frame');
  const last = roles.find((r) => r.role === 'last_frame');
  const refs = roles.filter((r) => r.role === 'reference_image').map((r) => r.url);
  if (first) out.first_frame_url = first.url;
  if (last) out.last_frame_url = last.url;
  const images = [...stringList(input.imageUrls), ...refs];
  if (images.length > 0) out.reference_image_urls = images;
  if (Array.isArray(input.tools) && input.tools.length > 0) out.web_search = true;
  return out;
}

const SEEDANCE_FIELDS: FieldTable = {
  rules: {
    duration: asString('duration'),
    size: 'aspect_ratio',
    generateAudio: 'generate_audio',
    nsfwCheck: 'nsfw_checker',
    returnLastFrame: 'return_last_frame',
    imageUrls: false,
    imageWithRoles: false,
    videoUrls: 'reference_video_urls',
    audioUrls: 'reference_audio_urls',
    tools: false,
    outputFormat: 'output_format',
    omniReferenceTaskType: 'omni_reference_task_type',
    cameraFixed: 'fixed_lens',
  },
};

/** The parent task's id at kie, for follow-ups (PixVerse extend). */
function parentUpstreamId(job: MediaJob, ourTaskId: unknown): string | undefined {
  return typeof ourTaskId === 'string' ? job.parents[ourTaskId]?.upstreamId : undefined;
}

export const KIE_JOB_ROUTES: Readonly<Record<string, KieJobRoute>> = {
  /** Sora 2 relay: `n_frames` is the duration; 25 s only exists as the pro storyboard. */
  V1: {
    model: named((m, input) => {
      if (input.duration === 25) return 'sora-2-pro-storyboard';
      return `${base(m)}-${has(input, 'urls') ? 'image' : 'text'}-to-video`;
    }),
    // The storyboard carries the prompt as its one shot's Scene, not as a prompt field.
    fields: (kieModel) => ({
      rules: { aspectRatio: lookup('aspect_ratio', SORA_ORIENTATION), urls: 'image_urls', duration: asString('n_frames'), ...(kieModel.endsWith('-storyboard') ? { prompt: false } : {}) },
    }),
    extra: (input) => ({
      remove_watermark: true,
      ...(input.duration === 25 ? { shots: [{ Scene: String(input.prompt ?? ''), duration: 25 }] } : {}),
    }),
  },
  /** Grok Imagine video: text-to-video or image-to-video. */
  V5: {
    model: named((_m, input) => `grok-imagine/${has(input, 'urls') ? 'image' : 'text'}-to-video`),
    fields: { rules: { size: 'aspect_ratio', duration: asString('duration'), urls: 'image_urls' } },
    extra: () => ({ mode: 'normal' }),
  },
  /** Nano Banana 2 / Pro: reference images in `image_input`. */
  I1: {
    model: named((m) => base(m)),
    fields: { rules: { urls: 'image_input', size: 'aspect_ratio', resolution: { to: 'resolution', value: (v) => (v === '512px' ? '1K' : v) } } },
    extra: () => ({ output_format: 'png' }),
    // kie's nano-banana-2 has 1K, 2K, 4K only: a 512px request (priced below 1K) would be made, and
    // paid to kie, at 1K. Refused so a route with the 512 tier (Google, fal) serves it. Nano Banana
    // Pro prices 512px as 1K, so it is still sent there as 1K.
    refusal: (input, kieModel) =>
      kieModel === 'nano-banana-2' && input.resolution === '512px' ? { field: 'resolution', message: "kie's nano-banana-2 has no 512px tier (1K, 2K, 4K)" } : undefined,
  },
  I2: {
    model: named((_m, input) => `grok-imagine/${has(input, 'urls') ? 'image-to-image' : 'text-to-image'}`),
    fields: { rules: { size: 'aspect_ratio', urls: 'image_urls' } },
  },
  I3: {
    model: named((m) => base(m)),
    fields: { rules: { size: 'aspect_ratio' } },
    refusal: (input, kieModel) =>
      kieModel === 'z-image' && !Z_IMAGE_ASPECTS.has(input.size) ? { field: 'size', message: `kie's z-image does not offer size ${String(input.size)}` } : undefined,
  },
  /** GPT Image on kie's relay: 1.5 and 2 take different bodies (kie-gpt-image.ts). */
  I4: {
    model: named((m, input) => `${base(m)}-${has(input, 'urls') ? 'image-to-image' : 'text-to-image'}`),
    fields: gptImageFields,
    extra: gptImageExtra,
    refusal: gptImageRefusal,
  },
  V6: { model: named((m) => base(m)), fields: SEEDANCE_FIELDS, extra: seedanceRoles },
  V7: { model: named((m) => base(m)), fields: SEEDANCE_FIELDS, extra: seedanceRoles },
  /** Seedance 1.5 Pro: input images as `input_urls`. */
  V8: {
    model: named((m) => base(m)),
    fields: { rules: { ...SEEDANCE_FIELDS.rules, imageUrls: 'input_urls' } },
    extra: (input) => {
      const roles = roleItems(input);
      return roles.length > 0 ? { input_urls: roles.map((r) => r.url) } : {};
    },
  },
  /** Kling motion control: the image in `input_urls`, the motion video in `video_urls`, resolution as `mode`. */
  V9: {
    model: named((m) => base(m)),
    fields: { rules: { imageUrls: 'input_urls', videoUrls: 'video_urls', characterOrientation: 'character_orientation', resolution: 'mode' } },
  },
  /** PixVerse: the mode selects the kie model; extension names the parent's kie task. */
  V10: {
    model: named((m, input) => `${base(m)}/${pixverseMode(input)}`),
    fields: {
      rules: {
        size: 'aspect_ratio',
        duration: asString('duration'),
        imageUrls: firstItem('image_url'),
        firstFrameImage: 'first_frame_url',
        lastFrameImage: 'last_frame_url',
        audio: 'generate_audio_switch',
        extendFromTaskId: false,
      },
    },
    extra: (input, job) => {
      const parent = parentUpstreamId(job, input.extendFromTaskId);
      return parent ? { task_id: parent } : {};
    },
  },
  /** Seedream: text-to-image or edit; 4.0 and 4.5 take different bodies on kie (their Market pages). */
  I5: {
    model: named((m, input) => {
      const b = base(m);
      const edit = has(input, 'urls');
      if (b === 'bytedance/seedream-v4') return `${b}-${edit ? 'edit' : 'text-to-image'}`;
      return `${b}-${edit ? (b === 'seedream/4.5' ? 'edit' : 'image-to-image') : 'text-to-image'}`;
    }),
    fields: seedreamFields,
    extra: (input, _job, kieModel) => (isSeedreamV4(kieModel) || isSeedream45(kieModel) ? {} : { quality: input.resolution === '4K' ? 'high' : 'basic' }),
    refusal: seedreamRefusal,
  },
  /** Wan 2.7: one kie model per workflow. */
  V11: {
    model: named((m, input) => {
      const workflow = wan27Workflow(input);
      const suffix = workflow === 'edit-video' ? 'video-edit' : workflow === 'continuation' ? 'video-extend' : workflow;
      return `${base(m)}-${suffix}`;
    }),
    fields: {
      rules: {
        duration: asString('duration'),
        size: 'aspect_ratio',
        imageUrls: false,
        editVideoUrl: 'video_url',
        continueVideoUrl: 'video_url',
        referenceImageUrl: 'reference_image_url',
      },
    },
    extra: (input) => {
      const images = stringList(input.imageUrls);
      return { ...(images[0] ? { first_frame_url: images[0] } : {}), ...(images[1] ? { last_frame_url: images[1] } : {}) };
    },
  },
  V12: {
    model: named((m) => base(m)),
    fields: { rules: { duration: asString('duration'), size: 'aspect_ratio', audio: 'generate_audio', fileUrl: 'file_url', linkUrl: 'link_url' } },
  },
  /** Qwen Image: text-to-image or edit of one image. */
  I6: {
    model: named((m, input) => `${base(m)}/${has(input, 'urls') ? 'image-edit' : 'text-to-image'}`),
    fields: { rules: { urls: firstItem('image_url'), size: lookup('image_size', QWEN_IMAGE_SIZE) } },
  },
  I7: {
    model: named((m, input) => (has(input, 'urls') ? `${base(m)}-edit` : base(m))),
    fields: { rules: { urls: 'image_urls', size: 'aspect_ratio' } },
  },
};

/** Families without an entry (V2, I8, V13, …) go out with every field snake_cased and `urls` as `image_urls`. */
const FALLBACK: KieJobRoute = {
  model: (m) => m,
  fields: { rules: { urls: 'image_urls', size: 'aspect_ratio' } },
};

export function kieJobRequest(job: MediaJob): KieJobRequest {
  const route = KIE_JOB_ROUTES[job.family] ?? FALLBACK;
  const model = route.model(job.upstreamModel, job.input);
  const fields = typeof route.fields === 'function' ? route.fields(model) : route.fields;
  const input = { ...mapFields(job.input, fields), ...route.extra?.(job.input, job, model) };
  return { model, input };
}

/** What kie's documented body for this request's model cannot express, found before dispatch. */
export function kieJobRefusal(request: RouteRequest): RouteRefusal | undefined {
  const route = KIE_JOB_ROUTES[request.family] ?? FALLBACK;
  return route.refusal?.(request.input, route.model(request.upstreamModel, request.input));
}
