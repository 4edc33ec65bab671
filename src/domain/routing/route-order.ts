/**
 * The order in which a model's routes are tried (issue 32, item 2). The lowest priority first; within
 * one priority, a weighted random order without replacement (Efraimidis–Spirakis: each entry draws
 * `random() ** (1 / weight)` and the highest key goes first), so an entry of weight 3 comes first three
 * times as often as one of weight 1. An entry without a priority has its position in the list as its
 * priority, and a weight of 1: a plain ordered list keeps its order.
 */

/** What the order reads of a route entry. */
export interface Ranked {
  /** A non-negative integer; lower is tried first. Absent: the entry's position in the list. */
  readonly priority?: number;
  /** A positive finite number; absent: 1. */
  readonly weight?: number;
}

/**
 * The entries in the order to try them. When no two entries share a priority and the list is already
 * in priority order (every plain list), the same array is returned, with nothing allocated: this runs
 * on every chat request.
 */
export function orderRoutes<T extends Ranked>(targets: T[], random: () => number = Math.random): T[] {
  let previous = -1;
  let inOrder = true;
  for (let i = 0; i < targets.length; i++) {
    const p = (targets[i] as T).priority ?? i;
    if (p <= previous) {
      inOrder = false;
      break;
    }
    previous = p;
  }
  if (inOrder) return targets;
  const keyed = targets.map((target, i) => ({ target, priority: target.priority ?? i, key: random() ** (1 / (target.weight ?? 1)), i }));
  keyed.sort((a, b) => a.priority - b.priority || b.key - a.key || a.i - b.i);
  return keyed.map((k) => k.target);
}
