/**
 * The non-streaming Message object, both ways: rendered for our clients from a canonical response,
 * and parsed from an Anthropic upstream into one. Anthropic's `input_tokens` excludes cache reads and
 * writes, while canonical `inputTokens` counts every prompt token: the conversion happens here only.
 */
import { anthropicUsageParts, usageFromParts } from './anthropic-usage.combiner.ts';
import type { ChatResponse, ChatUsage, ResponseBlock, StopReason } from '../../domain/chat/chat-response.types.ts';
import { expectArray, expectObject, isObject, type JsonObject, parseJsonObject } from '../../domain/chat/json-input.ts';

export interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

export interface AnthropicMessage {
  id: string;
  type: 'message';
  role: 'assistant';
  model: string;
  content: JsonObject[];
  stop_reason: string;
  stop_sequence: string | null;
  usage: AnthropicUsage;
}

const STOP_REASONS: Record<StopReason, string> = {
  end_turn: 'end_turn',
  max_tokens: 'max_tokens',
  stop_sequence: 'stop_sequence',
  tool_use: 'tool_use',
  content_filter: 'refusal',
  error: 'end_turn',
};

export function anthropicStopReason(reason: StopReason): string {
  return STOP_REASONS[reason];
}

export function stopReasonFromAnthropic(reason: unknown): StopReason {
  switch (reason) {
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'max_tokens';
    case 'stop_sequence':
      return 'stop_sequence';
    case 'tool_use':
      return 'tool_use';
    case 'refusal':
      return 'content_filter';
    default:
      // end_turn, and pause_turn (a server tool paused the turn: the answer so far is complete).
      return 'end_turn';
  }
}

export function renderAnthropicUsage(usage: ChatUsage): AnthropicUsage {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cachedInputTokens - usage.cacheCreationTokens),
    output_tokens: usage.outputTokens,
    cache_read_input_tokens: usage.cachedInputTokens,
    cache_creation_input_tokens: usage.cacheCreationTokens,
  };
}

/**
 * Canonical counts from an Anthropic usage object. Fields that are absent stay undefined; input is
 * only known when `input_tokens` is present. A stream combines its events' objects field by field
 * (`AnthropicUsageCombiner`).
 */
export function usageFromAnthropic(value: unknown): Partial<ChatUsage> {
  return usageFromParts(anthropicUsageParts(value));
}

export function renderAnthropicContent(block: ResponseBlock): JsonObject {
  switch (block.type) {
    case 'text':
      return { type: 'text', text: block.text };
    case 'tool_call':
      return { type: 'tool_use', id: block.id, name: block.name, input: parseJsonObject(block.arguments) };
    case 'reasoning':
      if (block.redactedData !== undefined) return { type: 'redacted_thinking', data: block.redactedData };
      return { type: 'thinking', thinking: block.text, signature: block.signature ?? '' };
  }
}

export function renderAnthropicMessage(response: ChatResponse): AnthropicMessage {
  return {
    id: response.id,
    type: 'message',
    role: 'assistant',
    model: response.model,
    content: response.content.map(renderAnthropicContent),
    stop_reason: anthropicStopReason(response.stopReason),
    stop_sequence: response.stopSequence ?? null,
    usage: renderAnthropicUsage(response.usage),
  };
}

/**
 * Parses an upstream Message. Server-tool blocks (web search results and the like) are not part of
 * the canonical response and are left out. Throws when the body is not a message at all.
 */
export function parseAnthropicMessage(body: unknown): { response: Omit<ChatResponse, 'usage'>; usage: Partial<ChatUsage> } {
  const b = expectObject(body, 'response');
  const content: ResponseBlock[] = [];
  for (const raw of expectArray(b.content, 'response.content')) {
    if (!isObject(raw)) continue;
    if (raw.type === 'text' && typeof raw.text === 'string') content.push({ type: 'text', text: raw.text });
    else if (raw.type === 'tool_use') {
      content.push({
        type: 'tool_call',
        id: typeof raw.id === 'string' ? raw.id : '',
        name: typeof raw.name === 'string' ? raw.name : '',
        arguments: JSON.stringify(isObject(raw.input) ? raw.input : {}),
      });
    } else if (raw.type === 'thinking' && typeof raw.thinking === 'string') {
      const block: ResponseBlock = { type: 'reasoning', text: raw.thinking };
      if (typeof raw.signature === 'string') block.signature = raw.signature;
      content.push(block);
    } else if (raw.type === 'redacted_thinking' && typeof raw.data === 'string') {
      content.push({ type: 'reasoning', text: '', redactedData: raw.data });
    }
  }
  const response: Omit<ChatResponse, 'usage'> = {
    id: typeof b.id === 'string' ? b.id : '',
    model: typeof b.model === 'string' ? b.model : '',
    content,
    stopReason: stopReasonFromAnthropic(b.stop_reason),
  };
  if (typeof b.stop_sequence === 'string') response.stopSequence = b.stop_sequence;
  return { response, usage: usageFromAnthropic(b.usage) };
}
