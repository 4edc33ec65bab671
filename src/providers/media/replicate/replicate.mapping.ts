/**
 * Replicate model inputs per family. The route's upstream model is `owner/name` (official models:
 * `POST /models/{owner}/{name}/predictions`) or `owner/name:version` (`POST /predictions {version}`).
 * Replicate models name their inputs freely. The GPT Image models follow their published
 * `openapi_schema` (docs/media-providers.md, fixtures under test/fixtures/upstreams/replicate/), and
 * `replicateRefusal` names what they cannot serve, so that the route is skipped before any charge;
 * other models get snake_case names with `urls` as `image_input` (a guess).
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import { type FieldTable, firstItem, has, mapFields } from '../shared/field-mapping.ts';
import type { MediaJob, RouteRefusal, RouteRequest } from '../media-provider.ts';

/** What the adapter knows beyond the request: the operator's OpenAI key, for models that take one. */
export interface ReplicateMappingOptions {
  openaiApiKey: string | undefined;
}

/** A GPT Image model on Replicate as its `openapi_schema` describes it. */
interface GptImageModel {
  /** The `aspect_ratio` values the schema lists. */
  aspects: ReadonlySet<string>;
  /** `openai_api_key` is required (the model bills the operator's own OpenAI account). */
  needsOpenAiKey: boolean;
}

const FIXED_SIZES: ReadonlySet<string> = new Set(['1:1', '3:2', '2:3']);

/**
 * The checked GPT Image models. None has a resolution input: each makes OpenAI's 1024x1024,
 * 1536x1024 or 1024x1536, which is our 1k tier. gpt-image-2's copies disagree; we hold to what both
 * list (docs/media-providers.md).
 */
const GPT_IMAGE_MODELS: Readonly<Record<string, GptImageModel>> = {
  'openai/gpt-image-1': { aspects: FIXED_SIZES, needsOpenAiKey: true },
  'openai/gpt-image-1.5': { aspects: FIXED_SIZES, needsOpenAiKey: false },
  'openai/gpt-image-2': { aspects: FIXED_SIZES, needsOpenAiKey: false },
};

/** `auto` lets the model choose the shape; these models have no such value, and 1:1 is their default. */
function gptImageAspect(size: unknown): string {
  return size === undefined || size === 'auto' ? '1:1' : String(size);
}

function gptImageRefusal(model: string, known: GptImageModel, input: ValidatedInput, options: ReplicateMappingOptions): RouteRefusal | undefined {
  if (known.needsOpenAiKey && !options.openaiApiKey) {
    return { field: 'model', scope: 'route', message: `Replicate's ${model} needs the operator's OpenAI key (options.openaiApiKey)` };
  }
  if (input.resolution !== undefined && input.resolution !== '1k') {
    return { field: 'resolution', message: `Replicate's ${model} makes 1k images only (no resolution input), not ${String(input.resolution)}` };
  }
  const aspect = gptImageAspect(input.size);
  if (!known.aspects.has(aspect)) return { field: 'size', message: `Replicate's ${model} offers the sizes 1:1, 3:2 and 2:3 (and auto), not ${aspect}` };
  return undefined;
}

function gptImageInput(input: ValidatedInput, options: ReplicateMappingOptions): Record<string, unknown> {
  return {
    prompt: input.prompt,
    ...(has(input, 'urls') ? { input_images: input.urls } : {}),
    aspect_ratio: gptImageAspect(input.size),
    // The catalog prices these models at OpenAI's medium quality.
    quality: 'medium',
    number_of_images: 1,
    output_format: 'png',
    ...(options.openaiApiKey ? { openai_api_key: options.openaiApiKey } : {}),
  };
}

interface ReplicateRoute {
  fields: FieldTable;
  /** Models of this family whose published schema we follow instead of `fields`, by `owner/name`. */
  schemaModels?: Readonly<Record<string, GptImageModel>>;
  extra?: (input: ValidatedInput) => Record<string, unknown>;
}

export const REPLICATE_ROUTES: Readonly<Record<string, ReplicateRoute>> = {
  /** openai/gpt-image-* models without a recorded schema: aspect ratio, input images, quality from the tier (a guess). */
  I4: {
    schemaModels: GPT_IMAGE_MODELS,
    fields: { rules: { urls: 'input_images', size: 'aspect_ratio', resolution: false } },
    extra: (input) => ({ quality: input.resolution === '1k' ? 'medium' : 'high', number_of_images: 1, output_format: 'png' }),
  },
  /** wan-video/wan-2.7-*: the source video as `video`. */
  V11: {
    fields: { rules: { editVideoUrl: 'video', continueVideoUrl: 'video', imageUrls: firstItem('image'), size: 'aspect_ratio' } },
  },
};

const FALLBACK: ReplicateRoute = { fields: { rules: { urls: 'image_input', size: 'aspect_ratio' } } };

export interface ReplicateTarget {
  /** `owner/name`, as predictions report it in `model`. */
  model: string;
  version: string | undefined;
}

export function replicateTarget(upstreamModel: string): ReplicateTarget {
  const [model = upstreamModel, version] = upstreamModel.split(':', 2);
  return { model, version: version || undefined };
}

function schemaModel(family: string, model: string): GptImageModel | undefined {
  const models = Object.hasOwn(REPLICATE_ROUTES, family) ? REPLICATE_ROUTES[family]?.schemaModels : undefined;
  return models && Object.hasOwn(models, model) ? models[model] : undefined;
}

/** Why this route cannot serve the request as asked, before anything is sent; undefined when it can. */
export function replicateRefusal(request: RouteRequest, options: ReplicateMappingOptions): RouteRefusal | undefined {
  const { model } = replicateTarget(request.upstreamModel);
  const known = schemaModel(request.family, model);
  return known ? gptImageRefusal(model, known, request.input, options) : undefined;
}

export function replicateInput(job: MediaJob, options: ReplicateMappingOptions): Record<string, unknown> {
  const known = schemaModel(job.family, replicateTarget(job.upstreamModel).model);
  if (known) return gptImageInput(job.input, options);
  const route = REPLICATE_ROUTES[job.family] ?? FALLBACK;
  return { ...mapFields(job.input, route.fields), ...route.extra?.(job.input) };
}
