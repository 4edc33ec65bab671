/**
 * Parses a count_tokens body (`MessageCountTokensParams` of @anthropic-ai/sdk 1.12.0: model, messages,
 * system, tools, tool_choice, thinking, cache_control, output_config, speed) into the canonical
 * request, with the messages parser's rules: a field outside that list is refused with a 400 naming
 * it. `speed` is left out: it changes the price of an answer, never the count of a prompt.
 */
import type { ChatRequest } from '../../domain/chat/chat-request.types.ts';
import { expectObject } from '../../domain/chat/json-input.ts';
import { invalidInput } from '../../domain/errors.ts';
import { parseAnthropicMessagesRequest } from './anthropic-messages.parser.ts';

const COUNT_FIELDS = new Set(['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'cache_control', 'output_config', 'speed']);

export function parseAnthropicCountTokensRequest(body: unknown): ChatRequest {
  const b = expectObject(body, 'body');
  for (const key of Object.keys(b)) {
    if (!COUNT_FIELDS.has(key)) throw invalidInput(`${key}: Extra inputs are not permitted (count_tokens takes ${[...COUNT_FIELDS].join(', ')}).`, key);
  }
  const { speed: _speed, ...rest } = b;
  // The messages parser requires max_tokens, which counting has no use for.
  return parseAnthropicMessagesRequest({ ...rest, max_tokens: 1 });
}
