import type { RouteTarget } from '../../config/config.types.ts';
import type { MediaModelInfo } from '../../domain/catalog/catalog.types.ts';
import type { RouteRefusal, RouteRequest } from '../../providers/media/media-provider.ts';
import { routesForModel } from './task-routes.ts';

/**
 * The media models none of whose routes can serve anything (issue 30, item 11): every route refuses
 * with `scope: 'route'`, whatever the input (an upstream API that was shut down, such as OpenAI's Sora
 * Videos API, or a route the operator has not finished configuring). The catalog tags them
 * `no-live-route`; their creates answer 503. Route refusals are pure, so this is computed once.
 */
export function modelsWithoutLiveRoute(
  models: readonly Pick<MediaModelInfo, 'id' | 'family'>[],
  routes: Record<string, RouteTarget[]>,
  check: (route: RouteTarget, request: RouteRequest) => RouteRefusal | undefined,
): ReadonlySet<string> {
  const dead = new Set<string>();
  for (const model of models) {
    const live = routesForModel(routes, model.id).some((route) => {
      try {
        return check(route, { model: model.id, family: model.family, input: {}, upstreamModel: route.model })?.scope !== 'route';
      } catch {
        // A check that needs a real input to decide is a route that may serve some input.
        return true;
      }
    });
    if (!live) dead.add(model.id);
  }
  return dead;
}

export const NO_LIVE_ROUTE_TAG = 'no-live-route';
