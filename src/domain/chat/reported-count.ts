/**
 * A token count as an upstream's usage object gives it, read at the protocol edge. A count that is
 * absent stays undefined (not reported: billing estimates it); one that is present but not a finite
 * number (a string, null, an object) becomes NaN, so the settlement's bounds (usage-bounds.ts) bill
 * our estimate and record the anomaly instead of silently treating it as unreported. Fractions,
 * negatives and huge numbers pass through as numbers: the bounds correct and record them too.
 */
export function reportedCount(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'number' && Number.isFinite(value) ? value : Number.NaN;
}

/** A detail count (cache reads, cache writes) that some servers send as null when they have none. */
export function reportedDetailCount(value: unknown): number | undefined {
  return value === null ? undefined : reportedCount(value);
}
