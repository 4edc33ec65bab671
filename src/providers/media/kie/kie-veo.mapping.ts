/**
 * kie's Veo 3.1 API for families V3 and V4: `POST /api/v1/veo/generate`, polled at
 * `GET /api/v1/veo/record-info` (`successFlag` 0 generating, 1 done, 2 and 3 failed). 720p and 1080p
 * come from the same record; 4k needs kie's separate upgrade call, which this adapter does not make,
 * so 4k requests are refused as unsupported (retryable: the reserve route may serve them).
 */
import type { MediaJob, ProviderError } from '../media-provider.ts';
import { has, stringList } from '../shared/field-mapping.ts';

const VEO_MODELS: Readonly<Record<string, string>> = {
  'veo-3.1-fast': 'veo3_fast',
  'veo-3.1-quality': 'veo3',
  'veo-3.1-lite': 'veo3_lite',
};

export const VEO_GENERATE_PATH = '/api/v1/veo/generate';
export const VEO_RECORD_PATH = '/api/v1/veo/record-info';

export function veoRequest(job: MediaJob): { body: Record<string, unknown> } | { error: ProviderError } {
  const input = job.input;
  if (input.resolution === '4k') return { error: { message: 'kie Veo: 4k needs the separate upgrade call, not supported on this route', retryable: true, code: 'unsupported' } };
  const urls = stringList(input.urls);
  const generationType = !has(input, 'urls')
    ? 'TEXT_2_VIDEO'
    : input.generationType === 'reference'
      ? 'REFERENCE_2_VIDEO'
      : 'FIRST_AND_LAST_FRAMES_2_VIDEO';
  const body: Record<string, unknown> = {
    prompt: input.prompt,
    model: VEO_MODELS[job.upstreamModel] ?? job.upstreamModel,
    aspectRatio: input.aspectRatio ?? '16:9',
    generationType,
    enableTranslation: false,
    callBackUrl: job.callbackUrl,
  };
  if (urls.length > 0) body.imageUrls = urls;
  return { body };
}
