/**
 * Anthropic SSE events from an upstream → canonical events. Input usage comes with `message_start`,
 * output usage with `message_delta`; only `message_stop` is a clean finish. The `output_tokens` of
 * message_start is a placeholder (1 or so), so output counts as reported only from message_delta.
 * Usage fields may be null in any event: each keeps its last non-null value (anthropic-usage.combiner.ts).
 */
import type { ChatStreamDecoder, ChatStreamError, ChatStreamEvent, StopReason } from '../../domain/chat/chat-response.types.ts';
import { isObject, type JsonObject } from '../../domain/chat/json-input.ts';
import { UsageTracker } from '../../domain/chat/usage-tracker.ts';
import { statusForAnthropicErrorType } from './anthropic-messages.errors.ts';
import { stopReasonFromAnthropic } from './anthropic-messages.response.ts';
import { AnthropicUsageCombiner } from './anthropic-usage.combiner.ts';

export interface AnthropicStreamDecoderOptions {
  /** Upper bound of the prompt, used as input usage if the upstream never reports it. */
  estimatedInputTokens: number;
}

type Block = { kind: 'text' | 'thinking' | 'other' } | { kind: 'tool'; tool: number };

export function createAnthropicStreamDecoder(options: AnthropicStreamDecoderOptions): ChatStreamDecoder {
  const usage = new UsageTracker(options.estimatedInputTokens);
  const combined = new AnthropicUsageCombiner();
  let done = false;
  let started = false;
  let stopReason: StopReason = 'end_turn';
  let stopSequence: string | undefined;
  const blocks = new Map<number, Block>();
  let nextTool = 0;

  const start = (out: ChatStreamEvent[], message: JsonObject): void => {
    if (started) return;
    started = true;
    out.push({
      type: 'message_start',
      id: typeof message.id === 'string' ? message.id : '',
      model: typeof message.model === 'string' ? message.model : '',
      usage: usage.snapshot(),
    });
  };
  const fail = (error: ChatStreamError): ChatStreamEvent[] => {
    done = true;
    const out: ChatStreamEvent[] = [];
    start(out, {});
    out.push({ type: 'error', error, usage: usage.snapshot() });
    return out;
  };
  const text = (out: ChatStreamEvent[], type: 'text_delta' | 'reasoning_delta', value: unknown): void => {
    if (typeof value !== 'string' || value === '') return;
    usage.addOutput(value);
    out.push({ type, text: value });
  };
  const toolArguments = (out: ChatStreamEvent[], tool: number, value: string): void => {
    if (value === '') return;
    usage.addOutput(value);
    out.push({ type: 'tool_call_delta', index: tool, arguments: value });
  };

  const blockStart = (out: ChatStreamEvent[], index: number, block: JsonObject): void => {
    switch (block.type) {
      case 'text':
        blocks.set(index, { kind: 'text' });
        text(out, 'text_delta', block.text);
        return;
      case 'thinking':
        blocks.set(index, { kind: 'thinking' });
        text(out, 'reasoning_delta', block.thinking);
        return;
      case 'redacted_thinking':
        blocks.set(index, { kind: 'other' });
        if (typeof block.data === 'string') out.push({ type: 'reasoning_redacted', data: block.data });
        return;
      case 'tool_use': {
        const tool = nextTool++;
        blocks.set(index, { kind: 'tool', tool });
        const name = typeof block.name === 'string' ? block.name : '';
        usage.addOutput(name);
        out.push({ type: 'tool_call_start', index: tool, id: typeof block.id === 'string' ? block.id : `toolu_${tool}`, name });
        // Anthropic starts with `input: {}` and streams the JSON; a server that sends it whole is honoured.
        if (isObject(block.input) && Object.keys(block.input).length > 0) toolArguments(out, tool, JSON.stringify(block.input));
        return;
      }
      default:
        // Server-tool blocks (web search and the like) are not part of the canonical answer, but a
        // search that started is billed even if the stream breaks before the usage arrives.
        if (block.type === 'server_tool_use' && block.name === 'web_search') usage.addWebSearch();
        blocks.set(index, { kind: 'other' });
    }
  };

  const blockDelta = (out: ChatStreamEvent[], block: Block | undefined, delta: JsonObject): void => {
    if (!block) return;
    if (delta.type === 'text_delta' && block.kind === 'text') text(out, 'text_delta', delta.text);
    else if (delta.type === 'thinking_delta' && block.kind === 'thinking') text(out, 'reasoning_delta', delta.thinking);
    else if (delta.type === 'signature_delta' && block.kind === 'thinking' && typeof delta.signature === 'string') {
      out.push({ type: 'reasoning_signature', signature: delta.signature });
    } else if (delta.type === 'input_json_delta' && block.kind === 'tool' && typeof delta.partial_json === 'string') {
      toolArguments(out, block.tool, delta.partial_json);
    }
  };

  return {
    get done() {
      return done;
    },
    push(event: string | undefined, data: string): ChatStreamEvent[] {
      if (done) return [];
      let payload: unknown;
      try {
        payload = JSON.parse(data);
      } catch {
        return fail({ status: 502, message: 'The upstream sent a malformed stream event.' });
      }
      if (!isObject(payload)) return fail({ status: 502, message: 'The upstream sent a malformed stream event.' });
      const type = typeof payload.type === 'string' ? payload.type : event;
      const out: ChatStreamEvent[] = [];
      switch (type) {
        case 'message_start': {
          const message = isObject(payload.message) ? payload.message : {};
          usage.report(combined.add(message.usage, false));
          start(out, message);
          return out;
        }
        case 'content_block_start':
          start(out, {});
          if (typeof payload.index === 'number' && isObject(payload.content_block)) blockStart(out, payload.index, payload.content_block);
          return out;
        case 'content_block_delta':
          start(out, {});
          if (typeof payload.index === 'number' && isObject(payload.delta)) blockDelta(out, blocks.get(payload.index), payload.delta);
          return out;
        case 'message_delta': {
          start(out, {});
          const delta = isObject(payload.delta) ? payload.delta : {};
          if (delta.stop_reason !== undefined && delta.stop_reason !== null) stopReason = stopReasonFromAnthropic(delta.stop_reason);
          if (typeof delta.stop_sequence === 'string') stopSequence = delta.stop_sequence;
          if (isObject(payload.usage)) {
            usage.report(combined.add(payload.usage));
            out.push({ type: 'usage', usage: usage.snapshot() });
          }
          return out;
        }
        case 'message_stop': {
          done = true;
          start(out, {});
          const end: ChatStreamEvent = { type: 'message_end', stopReason, usage: usage.snapshot() };
          if (stopSequence !== undefined) end.stopSequence = stopSequence;
          out.push(end);
          return out;
        }
        case 'error': {
          const error = isObject(payload.error) ? payload.error : {};
          const errorType = typeof error.type === 'string' ? error.type : undefined;
          const message = typeof error.message === 'string' ? error.message : 'The upstream reported an error mid-stream.';
          const status = statusForAnthropicErrorType(errorType);
          return fail(errorType === undefined ? { status, message } : { status, message, type: errorType });
        }
        default:
          // ping, content_block_stop, and event types added later.
          return out;
      }
    },
    finish(cause?: ChatStreamError): ChatStreamEvent[] {
      if (done) return [];
      return fail(cause ?? { status: 502, message: 'The upstream closed the stream before message_stop.' });
    },
  };
}
