/** The media routes served now (MediaRouteSource) over the directory and the planner. */
import type { RouteTarget } from '../../config/config.types.ts';
import type { MediaRouteSource } from '../generation/task-routes.ts';
import type { RoutePlanner } from './route-planner.ts';
import type { UpstreamDirectory } from './upstream-directory.ts';

export function liveMediaRoutes(directory: UpstreamDirectory, planner: RoutePlanner): MediaRouteSource {
  const fallbacks = new Map<string, RouteTarget[]>();
  const configured = (modelId: string): RouteTarget[] => {
    const own = directory.targets(modelId);
    if (own && own.length > 0) return own;
    let fallback = fallbacks.get(modelId);
    if (!fallback) {
      // Decision 13: a model without routes of its own is served by the built-in `local` provider.
      fallback = [{ provider: 'local', model: modelId }];
      fallbacks.set(modelId, fallback);
    }
    return fallback;
  };
  return {
    configured,
    forNewTask: (modelId) => planner.orderEntries(configured(modelId)),
    hasProvider: (name) => directory.provider(name) !== undefined,
  };
}
