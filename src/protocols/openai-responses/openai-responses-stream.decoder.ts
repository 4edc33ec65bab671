/**
 * A Responses upstream's typed events turned into canonical events (the upstream side; no provider
 * uses it yet, docs/decisions.md 2026-11-25). Text, refusal and reasoning deltas (summary or full
 * text) continue their blocks; a `function_call` item opens a tool call, its argument deltas continue
 * it (matched by `output_index`); a reasoning item's `encrypted_content` is kept as its signature. Only
 * `response.completed` or `response.incomplete` ends the stream cleanly; `response.failed`, an `error`
 * event, malformed data or the end of the bytes before those is an error event with the usage
 * observed, as for the other protocols' decoders.
 */
import type { ChatStreamDecoder, ChatStreamError, ChatStreamEvent } from '../../domain/chat/chat-response.types.ts';
import { isObject, type JsonObject } from '../../domain/chat/json-input.ts';
import { UsageTracker } from '../../domain/chat/usage-tracker.ts';
import { stopReasonFromResponses, usageFromResponses } from './openai-responses.answer-parser.ts';

export interface ResponsesStreamDecoderOptions {
  /** Upper bound of the prompt, used as input usage if the upstream never reports it. */
  estimatedInputTokens: number;
}

const MALFORMED: ChatStreamError = { status: 502, message: 'The upstream sent a malformed stream event.' };

/** The HTTP status an upstream's error code stands for. */
function statusOfCode(code: unknown): number {
  if (code === 'rate_limit_exceeded') return 429;
  if (code === 'server_is_overloaded' || code === 'slow_down') return 503;
  return 502;
}

export function createResponsesStreamDecoder(options: ResponsesStreamDecoderOptions): ChatStreamDecoder {
  const usage = new UsageTracker(options.estimatedInputTokens);
  let done = false;
  let started = false;
  let sawRefusal = false;
  /** Upstream output_index → canonical tool-call index. */
  const calls = new Map<number, number>();

  const start = (out: ChatStreamEvent[], response: JsonObject): void => {
    if (started) return;
    started = true;
    out.push({ type: 'message_start', id: typeof response.id === 'string' ? response.id : '', model: typeof response.model === 'string' ? response.model : '', usage: usage.snapshot() });
  };
  const fail = (error: ChatStreamError): ChatStreamEvent[] => {
    done = true;
    const out: ChatStreamEvent[] = [];
    start(out, {});
    out.push({ type: 'error', error, usage: usage.snapshot() });
    return out;
  };
  const delta = (out: ChatStreamEvent[], type: 'text_delta' | 'reasoning_delta', text: unknown): void => {
    if (typeof text !== 'string' || text === '') return;
    usage.addOutput(text);
    out.push({ type, text });
  };

  return {
    get done() {
      return done;
    },
    push(_event: string | undefined, data: string): ChatStreamEvent[] {
      if (done) return [];
      let parsed: unknown;
      try {
        parsed = JSON.parse(data);
      } catch {
        return fail(MALFORMED);
      }
      if (!isObject(parsed) || typeof parsed.type !== 'string') return fail(MALFORMED);
      const e = parsed;
      const out: ChatStreamEvent[] = [];
      const response = isObject(e.response) ? e.response : undefined;
      if (response) start(out, response);
      switch (e.type) {
        case 'response.output_item.added': {
          const item = isObject(e.item) ? e.item : {};
          if (item.type === 'function_call' && typeof e.output_index === 'number') {
            const index = calls.size;
            calls.set(e.output_index, index);
            const name = typeof item.name === 'string' ? item.name : '';
            usage.addOutput(name);
            start(out, {});
            out.push({ type: 'tool_call_start', index, id: typeof item.call_id === 'string' ? item.call_id : `call_${index}`, name });
            if (typeof item.arguments === 'string' && item.arguments !== '') out.push({ type: 'tool_call_delta', index, arguments: item.arguments });
          }
          break;
        }
        case 'response.output_text.delta':
          start(out, {});
          delta(out, 'text_delta', e.delta);
          break;
        case 'response.refusal.delta':
          sawRefusal = true;
          start(out, {});
          delta(out, 'text_delta', e.delta);
          break;
        case 'response.reasoning_summary_text.delta':
        case 'response.reasoning_text.delta':
          start(out, {});
          delta(out, 'reasoning_delta', e.delta);
          break;
        case 'response.function_call_arguments.delta': {
          const index = typeof e.output_index === 'number' ? calls.get(e.output_index) : undefined;
          if (index !== undefined && typeof e.delta === 'string' && e.delta !== '') {
            usage.addOutput(e.delta);
            out.push({ type: 'tool_call_delta', index, arguments: e.delta });
          }
          break;
        }
        case 'response.output_item.done': {
          const item = isObject(e.item) ? e.item : {};
          if (item.type === 'reasoning' && typeof item.encrypted_content === 'string') out.push({ type: 'reasoning_signature', signature: item.encrypted_content });
          break;
        }
        case 'response.completed':
        case 'response.incomplete': {
          done = true;
          const final = response ?? {};
          usage.report(usageFromResponses(final.usage));
          if (typeof final.service_tier === 'string') usage.report({ serviceTier: final.service_tier });
          out.push({ type: 'message_end', stopReason: stopReasonFromResponses(final, calls.size > 0, sawRefusal), usage: usage.snapshot() });
          break;
        }
        case 'response.failed': {
          const error = response && isObject(response.error) ? response.error : {};
          if (response) usage.report(usageFromResponses(response.usage));
          const message = typeof error.message === 'string' ? error.message : 'The upstream reported that the response failed.';
          return [...out, ...fail({ status: statusOfCode(error.code), message, ...(typeof error.code === 'string' ? { type: error.code } : {}) })];
        }
        case 'error': {
          const message = typeof e.message === 'string' ? e.message : 'The upstream reported an error mid-stream.';
          return [...out, ...fail({ status: statusOfCode(e.code), message, ...(typeof e.code === 'string' ? { type: e.code } : {}) })];
        }
        default:
          break;
      }
      return out;
    },
    finish(cause?: ChatStreamError): ChatStreamEvent[] {
      if (done) return [];
      return fail(cause ?? { status: 502, message: 'The upstream closed the stream before it finished.' });
    },
  };
}
