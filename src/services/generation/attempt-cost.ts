/**
 * What an attempt's upstream charged us for a task's result (issue 32, item 6): the cost its route
 * entry carried when the task was created (kept in the task's routes) for the task's price tier, times
 * its units. Null when that entry had no cost for the tier.
 */
import type { RouteTarget } from '../../config/config.types.ts';
import { mediaUpstreamCostMicro } from '../../domain/routing/route-cost.ts';
import type { AttemptRow, TaskRow } from '../../ports/task-store.port.ts';

export function attemptUpstreamCost(task: Pick<TaskRow, 'price_tier' | 'price_units'>, routes: readonly RouteTarget[], attempt: Pick<AttemptRow, 'route_index' | 'provider'>): number | null {
  const entry = routes[attempt.route_index];
  if (!entry || entry.provider !== attempt.provider) return null;
  return mediaUpstreamCostMicro(entry.cost, task.price_tier, Number(task.price_units));
}
