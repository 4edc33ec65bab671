/**
 * Anthropic stream usage, combined field by field. `message_start` carries the prompt's counts (plain
 * input, cache reads, cache writes and their split by lifetime); `message_delta` carries cumulative
 * counts in which any field may be null (the SDK's `MessageDeltaUsage` types every count but
 * `output_tokens` as `number | null`). Each component keeps its last non-null value, and the prompt
 * total is computed from the components kept, never from one event alone: a delta with
 * `input_tokens` but null cache counts must not drop the cache reads message_start reported.
 */
import type { ChatUsage } from '../../domain/chat/chat-response.types.ts';
import { isObject } from '../../domain/chat/json-input.ts';
import { reportedCount, reportedDetailCount } from '../../domain/chat/reported-count.ts';

/** The components of one Anthropic usage object; absent or null fields stay undefined. */
export interface AnthropicUsageParts {
  /** `input_tokens`: the prompt tokens that were neither read from nor written to the cache. */
  input?: number;
  cacheRead?: number;
  cacheCreation?: number;
  cacheCreation1h?: number;
  output?: number;
  webSearches?: number;
  serviceTier?: string;
}

export function anthropicUsageParts(value: unknown): AnthropicUsageParts {
  if (!isObject(value)) return {};
  const parts: AnthropicUsageParts = {};
  const input = reportedDetailCount(value.input_tokens);
  if (input !== undefined) parts.input = input;
  const read = reportedDetailCount(value.cache_read_input_tokens);
  if (read !== undefined) parts.cacheRead = read;
  const creation = reportedDetailCount(value.cache_creation_input_tokens);
  if (creation !== undefined) parts.cacheCreation = creation;
  const output = reportedCount(value.output_tokens);
  if (output !== undefined) parts.output = output;
  // Cache writes by lifetime: the one-hour ones cost more (message_start and the Message carry the split).
  if (isObject(value.cache_creation)) {
    const hour = reportedDetailCount(value.cache_creation.ephemeral_1h_input_tokens);
    if (hour !== undefined) parts.cacheCreation1h = hour;
  }
  if (isObject(value.server_tool_use)) {
    const searches = reportedDetailCount(value.server_tool_use.web_search_requests);
    if (searches !== undefined) parts.webSearches = searches;
  }
  if (typeof value.service_tier === 'string') parts.serviceTier = value.service_tier;
  return parts;
}

/** Canonical counts from components: the prompt is known only once `input_tokens` is. */
export function usageFromParts(parts: AnthropicUsageParts): Partial<ChatUsage> {
  const usage: Partial<ChatUsage> = {};
  if (parts.cacheRead !== undefined) usage.cachedInputTokens = parts.cacheRead;
  if (parts.cacheCreation !== undefined) usage.cacheCreationTokens = parts.cacheCreation;
  if (parts.input !== undefined) usage.inputTokens = parts.input + (parts.cacheRead ?? 0) + (parts.cacheCreation ?? 0);
  if (parts.output !== undefined) usage.outputTokens = parts.output;
  if (parts.cacheCreation1h !== undefined) usage.cacheCreation1hTokens = parts.cacheCreation1h;
  if (parts.webSearches !== undefined) usage.webSearchRequests = parts.webSearches;
  if (parts.serviceTier !== undefined) usage.serviceTier = parts.serviceTier;
  return usage;
}

/** The last non-null value of each component over a stream's events. */
export class AnthropicUsageCombiner {
  readonly #parts: AnthropicUsageParts = {};

  /** Adds one event's usage object; `withOutput: false` for message_start, whose output is a placeholder. */
  add(value: unknown, withOutput = true): Partial<ChatUsage> {
    const { output, ...rest } = anthropicUsageParts(value);
    const next: AnthropicUsageParts = withOutput && output !== undefined ? { ...rest, output } : rest;
    // anthropicUsageParts sets only the fields present and non-null, so this keeps the others.
    Object.assign(this.#parts, next);
    return usageFromParts(this.#parts);
  }
}
