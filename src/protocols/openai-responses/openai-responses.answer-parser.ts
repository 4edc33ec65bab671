/**
 * A Responses upstream's answer read into the canonical response (the upstream side; no provider
 * uses it yet, docs/decisions.md 2026-11-25): output items in order (reasoning summaries or texts,
 * message texts and refusals, function calls), the stop reason from the status and the items, and the
 * usage as billing reads it. Usage the upstream left out comes back as undefined fields, for the
 * caller to fill with an estimate, as for the other protocols.
 */
import { reportedCount, reportedDetailCount } from '../../domain/chat/reported-count.ts';
import type { ChatResponse, ChatUsage, ResponseBlock, StopReason } from '../../domain/chat/chat-response.types.ts';
import { expectArray, expectObject, isObject, type JsonObject } from '../../domain/chat/json-input.ts';

/** Usage as a Responses upstream reports it: cache reads and writes are parts of `input_tokens`, as in ChatUsage. */
export function usageFromResponses(value: unknown): Partial<ChatUsage> {
  if (!isObject(value)) return {};
  const num = reportedDetailCount;
  const details = isObject(value.input_tokens_details) ? value.input_tokens_details : {};
  const usage: Partial<ChatUsage> = { cachedInputTokens: num(details.cached_tokens) ?? 0, cacheCreationTokens: num(details.cache_write_tokens) ?? 0 };
  const input = reportedCount(value.input_tokens);
  const output = reportedCount(value.output_tokens);
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  const reasoning = isObject(value.output_tokens_details) ? num(value.output_tokens_details.reasoning_tokens) : undefined;
  if (reasoning !== undefined && reasoning > 0) usage.reasoningTokens = reasoning;
  return usage;
}

/** The stop reason a finished response stands for. */
export function stopReasonFromResponses(response: JsonObject, sawFunctionCall: boolean, sawRefusal: boolean): StopReason {
  const reason = isObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
  if (response.status === 'incomplete') return reason === 'content_filter' ? 'content_filter' : 'max_tokens';
  if (sawRefusal) return 'content_filter';
  return sawFunctionCall ? 'tool_use' : 'end_turn';
}

/** The text of a reasoning item: its full reasoning when given, else its summary. */
export function reasoningTextOf(item: JsonObject): string {
  for (const key of ['content', 'summary'] as const) {
    const parts = Array.isArray(item[key]) ? item[key] : [];
    const texts = parts.filter(isObject).map((p) => (typeof p.text === 'string' ? p.text : ''));
    if (texts.length > 0) return texts.join('\n');
  }
  return '';
}

export function parseResponsesAnswer(body: unknown): { response: Omit<ChatResponse, 'usage'>; usage: Partial<ChatUsage> } {
  const b = expectObject(body, 'response');
  const content: ResponseBlock[] = [];
  let sawFunctionCall = false;
  let sawRefusal = false;
  for (const raw of expectArray(b.output, 'response.output')) {
    if (!isObject(raw)) continue;
    if (raw.type === 'reasoning') {
      const block: ResponseBlock = { type: 'reasoning', text: reasoningTextOf(raw) };
      if (typeof raw.encrypted_content === 'string') block.signature = raw.encrypted_content;
      content.push(block);
    } else if (raw.type === 'message' && Array.isArray(raw.content)) {
      for (const part of raw.content) {
        if (!isObject(part)) continue;
        if (part.type === 'output_text' && typeof part.text === 'string' && part.text !== '') content.push({ type: 'text', text: part.text });
        if (part.type === 'refusal' && typeof part.refusal === 'string') {
          sawRefusal = true;
          content.push({ type: 'text', text: part.refusal });
        }
      }
    } else if (raw.type === 'function_call') {
      sawFunctionCall = true;
      content.push({
        type: 'tool_call',
        id: typeof raw.call_id === 'string' ? raw.call_id : '',
        name: typeof raw.name === 'string' ? raw.name : '',
        arguments: typeof raw.arguments === 'string' && raw.arguments !== '' ? raw.arguments : '{}',
      });
    }
  }
  const usage = usageFromResponses(b.usage);
  if (typeof b.service_tier === 'string') usage.serviceTier = b.service_tier;
  return {
    response: {
      id: typeof b.id === 'string' ? b.id : '',
      model: typeof b.model === 'string' ? b.model : '',
      content,
      stopReason: stopReasonFromResponses(b, sawFunctionCall, sawRefusal),
    },
    usage,
  };
}
