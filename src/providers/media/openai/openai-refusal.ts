/**
 * What an OpenAI route cannot make as asked, before anything is sent (pure, no I/O).
 *
 * - Fixed-size image models (gpt-image-1.5 and the other 1024/1536 models) have no 2k or 4k: a 2k or
 *   4k request would go out as 1536x1024 at quality high (4–6× medium's cost) and be delivered short.
 *   Refused, so a reserve with the tier serves it (or a 400 names `resolution`).
 * - Sora: openai-node 7.57.0 (`resources/videos.d.ts`) marks the Videos API "scheduled to permanently
 *   shut down on September 24, 2026", and its `VideoSeconds` is '4' | '8' | '12'. On OpenAI's own API
 *   (api.openai.com) every Sora request is refused with `scope: 'route'` (the route is gone: 503 when
 *   it is the only one); an OpenAI-compatible base that still serves Sora gets 4, 8 or 12 s only.
 */
import type { RouteRefusal, RouteRequest } from '../media-provider.ts';
import { isFixedSizeImageModel, OPENAI_VIDEO_SECONDS } from './openai-sizes.ts';

export const SORA_SHUTDOWN = '2026-09-24';
const OPENAI_ORIGIN = 'https://api.openai.com';

export function isSoraModel(upstreamModel: string): boolean {
  return /^sora-/u.test(upstreamModel);
}

export function openAiRefusal(request: RouteRequest, baseUrl: string): RouteRefusal | undefined {
  const { input, upstreamModel } = request;
  if (isSoraModel(upstreamModel)) {
    if (new URL(baseUrl).origin === OPENAI_ORIGIN) {
      return { field: 'model', scope: 'route', message: `OpenAI shut the Sora Videos API down on ${SORA_SHUTDOWN}: route ${upstreamModel} elsewhere` };
    }
    const seconds = Number(input.duration ?? 4);
    if (!OPENAI_VIDEO_SECONDS.has(seconds)) return { field: 'duration', message: `the OpenAI Videos API makes 4, 8 or 12 s videos, not ${String(input.duration)} s` };
    return undefined;
  }
  if (isFixedSizeImageModel(upstreamModel) && input.resolution !== undefined && String(input.resolution).toLowerCase() !== '1k') {
    return { field: 'resolution', message: `OpenAI's ${upstreamModel} makes 1024x1024, 1536x1024 and 1024x1536 only: ${String(input.resolution)} cannot be made there` };
  }
  return undefined;
}
