/**
 * An upstream's usage report, made billable (issue 29, items 4–6): every count becomes a non-negative
 * integer within what the request allowed, and each correction is named as an anomaly for the
 * operator. The report is the upstream's word; the hold is what the user agreed to risk. A count that
 * is not a number at all is replaced by our own estimate (the prompt estimate, the output bytes seen),
 * a fraction is rounded up, a negative count is zero, and a count above the request's bound (the
 * prompt estimate, max_tokens, the web searches its tools allow) is the bound. Pure: the service
 * records the anomalies and charges the result.
 */
import type { ChatUsage, ResponseBlock } from './chat-response.types.ts';

export type UsageAnomalyKind =
  /** Not a finite number (a string, null where a count belongs, NaN): our estimate was billed. */
  | 'not_a_count'
  | 'fractional'
  | 'negative'
  /** More than the request allowed (the prompt estimate, max_tokens, the searches its tools allow). */
  | 'above_bound'
  /** A part (cache reads, cache writes) larger than the whole it is part of. */
  | 'part_above_whole'
  /** The usage, at the prices of the tier reported, cost more than the hold (a tier or cache lifetime not asked for). */
  | 'cost_above_hold';

export interface UsageAnomaly {
  /** The canonical count (`inputTokens`, `outputTokens`, …), or `cost` for cost_above_hold. */
  field: string;
  kind: UsageAnomalyKind;
  /** What the upstream reported, as text (it may not be a number). */
  reported: string;
  /** What was billed instead. */
  billed: number;
}

export interface UsageBounds {
  /** The prompt estimate the hold assumed (an upper bound of the input). */
  promptTokens: number;
  /** max_tokens as sent upstream. */
  maxOutputTokens: number;
  /** The web searches the request's tools allow (0 without any). */
  webSearches: number;
  /** UTF-8 bytes of the output that reached us: the estimate of an output count that is not a number. */
  outputSeen: number;
}

export interface BoundedUsage {
  usage: ChatUsage;
  anomalies: UsageAnomaly[];
}

/**
 * The usage to bill. Counts we estimated ourselves (`estimated`: the upstream reported none) are
 * capped silently, as before; the upstream's own counts are capped with an anomaly.
 */
export function boundChatUsage(usage: ChatUsage, bounds: UsageBounds): BoundedUsage {
  const anomalies: UsageAnomaly[] = [];
  const ours = usage.estimated === true;
  let estimated = ours;
  const count = (field: string, raw: unknown, bound: number, fallback: number, kindAbove: UsageAnomalyKind = 'above_bound'): number => {
    if (typeof raw !== 'number' || !Number.isFinite(raw)) {
      const billed = Math.min(Math.max(0, fallback), bound);
      anomalies.push({ field, kind: 'not_a_count', reported: describe(raw), billed });
      estimated = true;
      return billed;
    }
    let value = raw;
    if (value < 0) {
      anomalies.push({ field, kind: 'negative', reported: String(raw), billed: 0 });
      return 0;
    }
    if (!Number.isInteger(value)) {
      value = Math.ceil(value);
      anomalies.push({ field, kind: 'fractional', reported: String(raw), billed: Math.min(value, bound) });
    }
    if (value > bound) {
      if (!ours) anomalies.push({ field, kind: kindAbove, reported: String(raw), billed: bound });
      return bound;
    }
    return value;
  };
  const inputTokens = count('inputTokens', usage.inputTokens, bounds.promptTokens, bounds.promptTokens);
  const outputTokens = count('outputTokens', usage.outputTokens, bounds.maxOutputTokens, bounds.outputSeen);
  const cachedInputTokens = count('cachedInputTokens', usage.cachedInputTokens, inputTokens, 0, 'part_above_whole');
  const cacheCreationTokens = count('cacheCreationTokens', usage.cacheCreationTokens, inputTokens - cachedInputTokens, 0, 'part_above_whole');
  const bounded: ChatUsage = { inputTokens, outputTokens, cachedInputTokens, cacheCreationTokens };
  if (usage.cacheCreation1hTokens !== undefined) {
    bounded.cacheCreation1hTokens = count('cacheCreation1hTokens', usage.cacheCreation1hTokens, cacheCreationTokens, 0, 'part_above_whole');
  }
  if (usage.reasoningTokens !== undefined) {
    bounded.reasoningTokens = count('reasoningTokens', usage.reasoningTokens, outputTokens, 0, 'part_above_whole');
  }
  if (usage.webSearchRequests !== undefined) bounded.webSearchRequests = count('webSearchRequests', usage.webSearchRequests, bounds.webSearches, 0);
  if (typeof usage.serviceTier === 'string') bounded.serviceTier = usage.serviceTier;
  if (estimated) bounded.estimated = true;
  return { usage: bounded, anomalies };
}

/** The charge, never above the hold: a tier or a cache lifetime the request did not ask for is not the user's to pay. */
export function boundCharge(costMicro: number, holdMicro: number, anomalies: UsageAnomaly[]): number {
  if (costMicro <= holdMicro) return costMicro;
  anomalies.push({ field: 'cost', kind: 'cost_above_hold', reported: String(costMicro), billed: holdMicro });
  return holdMicro;
}

/** UTF-8 bytes of an answer's output (text, reasoning, tool names and arguments): an upper bound of its tokens. */
export function outputBytesOf(content: readonly ResponseBlock[]): number {
  let bytes = 0;
  for (const block of content) {
    if (block.type === 'tool_call') bytes += Buffer.byteLength(block.name) + Buffer.byteLength(block.arguments);
    else bytes += Buffer.byteLength(block.text);
  }
  return bytes;
}

/** A reported value as text for the operator, bounded (an upstream can send anything). */
function describe(raw: unknown): string {
  if (raw === undefined) return 'missing';
  let text: string;
  try {
    text = typeof raw === 'string' ? JSON.stringify(raw) : String(JSON.stringify(raw) ?? raw);
  } catch {
    text = typeof raw;
  }
  return text.length > 64 ? `${text.slice(0, 61)}...` : text;
}
