/**
 * Canonical stream events → Anthropic's named SSE events, as the Anthropic SDK expects them:
 * `message_start`, a `ping`, then per content block `content_block_start` / `content_block_delta`
 * (`text_delta`, `input_json_delta`, `thinking_delta`, `signature_delta`) / `content_block_stop`,
 * then `message_delta` (stop reason and final usage) and `message_stop`. A broken stream ends with
 * `event: error` and no `message_stop`, which the SDK raises as an APIError.
 *
 * Canonical events carry no block boundaries for text: a block opens on the first delta of its kind
 * and closes when another kind starts. Blocks are numbered here, in the order they open.
 */
import type { ChatStreamEncoder, ChatStreamEvent, ChatUsage } from '../../domain/chat/chat-response.types.ts';
import { emptyUsage } from '../../domain/chat/chat-response.types.ts';
import { renderAnthropicStreamError } from './anthropic-messages.errors.ts';
import { anthropicStopReason, renderAnthropicUsage } from './anthropic-messages.response.ts';

export interface AnthropicStreamEncoderOptions {
  /** Overrides the id and model of the upstream (the gateway shows its own model id). */
  id?: string;
  model?: string;
}

type OpenBlock = { index: number; kind: 'text' | 'thinking' | 'tool' };

export function createAnthropicStreamEncoder(options: AnthropicStreamEncoderOptions = {}): ChatStreamEncoder {
  let started = false;
  let ended = false;
  let open: OpenBlock | undefined;
  let nextIndex = 0;
  const toolBlocks = new Map<number, number>();
  let usage: ChatUsage = emptyUsage();

  const frame = (name: string, data: unknown): string => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`;
  const start = (id: string, model: string): string => {
    if (started) return '';
    started = true;
    const message = {
      id: options.id ?? id,
      type: 'message',
      role: 'assistant',
      model: options.model ?? model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { ...renderAnthropicUsage(usage), output_tokens: 0 },
    };
    return frame('message_start', { type: 'message_start', message }) + frame('ping', { type: 'ping' });
  };
  const close = (): string => {
    if (!open) return '';
    const index = open.index;
    open = undefined;
    return frame('content_block_stop', { type: 'content_block_stop', index });
  };
  const openBlock = (kind: OpenBlock['kind'], block: Record<string, unknown>): string => {
    const out = close();
    open = { index: nextIndex++, kind };
    return out + frame('content_block_start', { type: 'content_block_start', index: open.index, content_block: block });
  };
  const delta = (index: number, body: Record<string, unknown>): string =>
    frame('content_block_delta', { type: 'content_block_delta', index, delta: body });

  return {
    encode(event: ChatStreamEvent): string {
      if (ended) return '';
      let out = event.type === 'message_start' ? '' : start('', '');
      switch (event.type) {
        case 'message_start':
          // An estimate (the upstream reports input only at the end) is not shown as a count.
          usage = event.usage.estimated ? emptyUsage() : event.usage;
          return start(event.id, event.model);
        case 'text_delta':
          if (open?.kind !== 'text') out += openBlock('text', { type: 'text', text: '' });
          return out + delta(open!.index, { type: 'text_delta', text: event.text });
        case 'reasoning_delta':
          if (open?.kind !== 'thinking') out += openBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
          return out + delta(open!.index, { type: 'thinking_delta', thinking: event.text });
        case 'reasoning_signature':
          if (open?.kind !== 'thinking') out += openBlock('thinking', { type: 'thinking', thinking: '', signature: '' });
          return out + delta(open!.index, { type: 'signature_delta', signature: event.signature }) + close();
        case 'reasoning_redacted':
          return out + openBlock('thinking', { type: 'redacted_thinking', data: event.data }) + close();
        case 'tool_call_start':
          out += openBlock('tool', { type: 'tool_use', id: event.id, name: event.name, input: {} });
          toolBlocks.set(event.index, open!.index);
          return out;
        case 'tool_call_delta': {
          const index = toolBlocks.get(event.index);
          // A delta for a call never started has no block to go to; the SDK would fail on it.
          if (index === undefined) return out;
          return out + delta(index, { type: 'input_json_delta', partial_json: event.arguments });
        }
        case 'usage':
          usage = event.usage;
          return out;
        case 'message_end': {
          ended = true;
          usage = event.usage;
          const body = {
            type: 'message_delta',
            delta: { stop_reason: anthropicStopReason(event.stopReason), stop_sequence: event.stopSequence ?? null },
            // Every total, not only output_tokens: the input is unknown at message_start when the
            // upstream speaks OpenAI, and the SDK takes the values given here over the earlier ones.
            usage: renderAnthropicUsage(usage),
          };
          return out + close() + frame('message_delta', body) + frame('message_stop', { type: 'message_stop' });
        }
        case 'error':
          ended = true;
          return out + frame('error', renderAnthropicStreamError(event.error));
      }
    },
    ping(): string {
      return frame('ping', { type: 'ping' });
    },
  };
}
