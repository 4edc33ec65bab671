/**
 * kie's Veo 3.1 API for families V3 and V4: `POST /api/v1/veo/generate`, polled at
 * `GET /api/v1/veo/record-info` (`successFlag` 0 generating, 1 done, 2 and 3 failed).
 *
 * Field names follow kie's current Veo 3.1 page (`aspect_ratio`, `resolution`; docs/media-providers.md
 * "Veo field names"). The resolution is asked for in the body; a record that comes back at a lower
 * resolution (the older service ignored the field) is upgraded through kie's documented calls,
 * `GET /api/v1/veo/get-1080p-video` and `POST /api/v1/veo/get-4k-video`, before the task completes:
 * what was charged is what is delivered.
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import type { MediaJob, RouteRefusal, RouteRequest } from '../media-provider.ts';
import { has, stringList } from '../shared/field-mapping.ts';
import { isRecord, stringAt } from '../shared/json-values.ts';

const VEO_MODELS: Readonly<Record<string, string>> = {
  'veo-3.1-fast': 'veo3_fast',
  'veo-3.1-quality': 'veo3',
  'veo-3.1-lite': 'veo3_lite',
};

export const VEO_GENERATE_PATH = '/api/v1/veo/generate';
export const VEO_RECORD_PATH = '/api/v1/veo/record-info';
export const VEO_1080P_PATH = '/api/v1/veo/get-1080p-video';
export const VEO_4K_PATH = '/api/v1/veo/get-4k-video';

/** kie's model name for a route's upstream model (ours, or kie's own name given by the operator). */
export function veoModel(upstreamModel: string): string {
  return VEO_MODELS[upstreamModel] ?? upstreamModel;
}

/** kie's page documents REFERENCE_2_VIDEO for veo3_fast only. */
const REFERENCE_MODELS: ReadonlySet<string> = new Set(['veo3_fast']);

function generationType(input: ValidatedInput): string {
  if (!has(input, 'urls')) return 'TEXT_2_VIDEO';
  return input.generationType === 'reference' ? 'REFERENCE_2_VIDEO' : 'FIRST_AND_LAST_FRAMES_2_VIDEO';
}

/** What this route cannot do for the request, before anything is sent. */
export function veoRefusal(request: RouteRequest): RouteRefusal | undefined {
  const model = veoModel(request.upstreamModel);
  if (generationType(request.input) === 'REFERENCE_2_VIDEO' && !REFERENCE_MODELS.has(model)) {
    return { field: 'generationType', message: `kie documents generationType reference (REFERENCE_2_VIDEO) for veo3_fast only, not ${model}` };
  }
  return undefined;
}

export function veoRequest(job: MediaJob): Record<string, unknown> {
  const input = job.input;
  const urls = stringList(input.urls);
  const body: Record<string, unknown> = {
    prompt: input.prompt,
    model: veoModel(job.upstreamModel),
    aspect_ratio: input.aspectRatio ?? '16:9',
    generationType: generationType(input),
    resolution: requestedResolution(input),
    enableTranslation: false,
    callBackUrl: job.callbackUrl,
  };
  if (urls.length > 0) body.imageUrls = urls;
  return body;
}

export type VeoResolution = '720p' | '1080p' | '4k';

export function requestedResolution(input: ValidatedInput): VeoResolution {
  return input.resolution === '1080p' || input.resolution === '4k' ? input.resolution : '720p';
}

const RANK: Readonly<Record<string, number>> = { '720p': 0, '1080p': 1, '4k': 2 };

/** The upgrade the finished record still needs, or undefined when it already has the asked resolution. */
export function upgradeNeeded(input: ValidatedInput, record: Record<string, unknown>): '1080p' | '4k' | undefined {
  const asked = requestedResolution(input);
  if (asked === '720p') return undefined;
  const response = isRecord(record.response) ? record.response : undefined;
  const delivered = (stringAt(response, 'resolution') ?? '720p').toLowerCase();
  return (RANK[delivered] ?? 0) >= (RANK[asked] ?? 0) ? undefined : asked;
}
