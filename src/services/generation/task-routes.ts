import type { RouteTarget } from '../../config/config.types.ts';

/** The media routes served now (the config file's or the live ones, issue 32). */
export interface MediaRouteSource {
  /** A model's entries as the operator listed them (the built-in `local` when it has none). */
  configured(modelId: string): RouteTarget[];
  /** A model's entries in the order a new task tries them: by priority and weight, health-aware. */
  forNewTask(modelId: string): RouteTarget[];
  /** Whether a provider of that name is served. */
  hasProvider(name: string): boolean;
}

/**
 * The ordered routes of a model: the operator's configured list, or the built-in `local` provider
 * when none is configured (decision 13).
 */
export function routesForModel(configured: Record<string, RouteTarget[]>, modelId: string): RouteTarget[] {
  return configured[modelId] ?? [{ provider: 'local', model: modelId }];
}

/**
 * Follow-up actions stay on the provider that holds the parent (decision 7): only routes of that
 * provider remain; when the model has none there, the parent's provider is tried under our model id.
 */
export function pinRoutes(routes: RouteTarget[], parentProvider: string, modelId: string): RouteTarget[] {
  const kept = routes.filter((r) => r.provider === parentProvider);
  return kept.length > 0 ? kept : [{ provider: parentProvider, model: modelId }];
}
