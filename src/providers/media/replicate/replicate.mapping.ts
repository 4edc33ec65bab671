/**
 * Replicate model inputs per family. The route's upstream model is `owner/name` (official models:
 * `POST /models/{owner}/{name}/predictions`) or `owner/name:version` (`POST /predictions {version}`).
 * Replicate models name their inputs freely; the entries below follow the models the catalog routes
 * there (GPT Image, Wan 2.7 video edit), and others get snake_case names with `urls` as `image_input`.
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import { type FieldTable, firstItem, mapFields } from '../shared/field-mapping.ts';
import type { MediaJob } from '../media-provider.ts';

interface ReplicateRoute {
  fields: FieldTable;
  extra?: (input: ValidatedInput) => Record<string, unknown>;
}

export const REPLICATE_ROUTES: Readonly<Record<string, ReplicateRoute>> = {
  /** openai/gpt-image-*: aspect ratio, input images, quality from the resolution tier. */
  I4: {
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

export function replicateInput(job: MediaJob): Record<string, unknown> {
  const route = REPLICATE_ROUTES[job.family] ?? FALLBACK;
  return { ...mapFields(job.input, route.fields), ...route.extra?.(job.input) };
}
