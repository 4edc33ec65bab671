/**
 * Whether one key's limits lie within another's (issue 29, item 1): a management key may create or
 * change only keys no wider than itself, so a limited key cannot mint its way out of its limits.
 * "No wider" is field by field: where the bound has a limit, the candidate must have one at least
 * as tight; where the bound has none, anything goes.
 */
import type { ApiKeyLimits } from './api-key-limits.ts';

export interface WiderLimit {
  /** The API field, as `param` of the refusal (`limits.spendCapMicroUsd`, …). */
  field: string;
  /** What the field must be, in words, for the refusal's message. */
  requirement: string;
}

/** The first limit of `candidate` that is wider than `bound`'s, or undefined when none is. */
export function widerLimit(bound: ApiKeyLimits, candidate: ApiKeyLimits): WiderLimit | undefined {
  if (bound.spendCapMicro !== null) {
    if (candidate.spendCapMicro === null || candidate.spendCapMicro > bound.spendCapMicro) {
      return { field: 'limits.spendCapMicroUsd', requirement: `at most ${bound.spendCapMicro} micro-USD` };
    }
    // A monthly cap renews: under a total cap it would spend more than the bound in time.
    if (bound.spendCapPeriod !== 'month' && candidate.spendCapPeriod === 'month') {
      return { field: 'limits.spendCapPeriod', requirement: "'total'" };
    }
  }
  if (bound.expiresAt !== null && (candidate.expiresAt === null || candidate.expiresAt > bound.expiresAt)) {
    return { field: 'limits.expiresAt', requirement: `no later than ${new Date(bound.expiresAt).toISOString()}` };
  }
  if (bound.allowedModels !== null) {
    const allowed = new Set(bound.allowedModels);
    const outside = candidate.allowedModels?.find((model) => !allowed.has(model));
    if (candidate.allowedModels === null || outside !== undefined) {
      const which = outside === undefined ? '' : ` (${outside} is not)`;
      const among = allowed.size === 0 ? 'an empty list' : `a list of models among ${[...allowed].join(', ')}`;
      return { field: 'limits.allowedModels', requirement: `${among}${which}` };
    }
  }
  for (const field of ['requestsPerMinute', 'tokensPerMinute', 'concurrentGenerations'] as const) {
    const limit = bound[field];
    const value = candidate[field];
    if (limit !== null && (value === null || value > limit)) return { field: `limits.${field}`, requirement: `at most ${limit}` };
  }
  return undefined;
}
