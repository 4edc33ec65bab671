/**
 * chat.completion.chunk SSE data from an OpenAI-style upstream → canonical events. Only `[DONE]`
 * is a clean finish; a stream that stops before it (even after a finish_reason) is cut, because the
 * usage chunk we asked for comes after the finish_reason.
 */
import type { ChatStreamDecoder, ChatStreamError, ChatStreamEvent, StopReason } from '../../domain/chat/chat-response.types.ts';
import { isObject, type JsonObject } from '../../domain/chat/json-input.ts';
import { UsageTracker } from '../../domain/chat/usage-tracker.ts';
import { type OpenAiUsageRules, serviceTierFromOpenAi, stopReasonFromOpenAi, usageFromOpenAi } from './openai-chat.response.ts';

export interface OpenAiStreamDecoderOptions {
  /** Upper bound of the prompt, used as input usage if the upstream never reports it. */
  estimatedInputTokens: number;
  /** How this vendor's usage differs from OpenAI's (reasoning outside completion_tokens). */
  usage?: OpenAiUsageRules;
}

export function createOpenAiStreamDecoder(options: OpenAiStreamDecoderOptions): ChatStreamDecoder {
  const usage = new UsageTracker(options.estimatedInputTokens);
  let done = false;
  let started = false;
  let stopReason: StopReason | undefined;
  /** Upstream tool-call index → [canonical index, upstream id]. */
  const calls = new Map<number, [number, string]>();
  let nextCall = 0;

  const start = (out: ChatStreamEvent[], chunk: JsonObject): void => {
    if (started) return;
    started = true;
    out.push({
      type: 'message_start',
      id: typeof chunk.id === 'string' ? chunk.id : '',
      model: typeof chunk.model === 'string' ? chunk.model : '',
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

  const toolDeltas = (out: ChatStreamEvent[], toolCalls: unknown[]): void => {
    toolCalls.forEach((raw, position) => {
      if (!isObject(raw)) return;
      const upstreamIndex = typeof raw.index === 'number' ? raw.index : position;
      const fn: JsonObject = isObject(raw.function) ? raw.function : {};
      const id = typeof raw.id === 'string' && raw.id !== '' ? raw.id : undefined;
      let known = calls.get(upstreamIndex);
      // Some compatible servers send every call at index 0 with its own id: a new id is a new call.
      if (!known || (id !== undefined && id !== known[1])) {
        known = [nextCall++, id ?? `call_${upstreamIndex}`];
        calls.set(upstreamIndex, known);
        out.push({ type: 'tool_call_start', index: known[0], id: known[1], name: typeof fn.name === 'string' ? fn.name : '' });
        usage.addOutput(typeof fn.name === 'string' ? fn.name : '');
      }
      if (typeof fn.arguments === 'string' && fn.arguments !== '') {
        usage.addOutput(fn.arguments);
        out.push({ type: 'tool_call_delta', index: known[0], arguments: fn.arguments });
      }
    });
  };

  return {
    get done() {
      return done;
    },
    push(_event: string | undefined, data: string): ChatStreamEvent[] {
      if (done) return [];
      const out: ChatStreamEvent[] = [];
      if (data.trim() === '[DONE]') {
        done = true;
        start(out, {});
        out.push({ type: 'message_end', stopReason: stopReason ?? 'end_turn', usage: usage.snapshot() });
        return out;
      }
      let chunk: unknown;
      try {
        chunk = JSON.parse(data);
      } catch {
        return fail({ status: 502, message: 'The upstream sent a malformed stream chunk.' });
      }
      if (!isObject(chunk)) return fail({ status: 502, message: 'The upstream sent a malformed stream chunk.' });
      if (isObject(chunk.error)) {
        const message = typeof chunk.error.message === 'string' ? chunk.error.message : 'The upstream reported an error mid-stream.';
        const type = typeof chunk.error.type === 'string' ? chunk.error.type : undefined;
        const status = type?.includes('rate_limit') ? 429 : type?.includes('overloaded') ? 503 : 502;
        return fail(type === undefined ? { status, message } : { status, message, type });
      }
      start(out, chunk);
      if (typeof chunk.service_tier === 'string') usage.report(serviceTierFromOpenAi(chunk));
      const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : undefined;
      const delta = choice && isObject(choice.delta) ? choice.delta : undefined;
      if (delta) {
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (typeof reasoning === 'string' && reasoning !== '') {
          usage.addOutput(reasoning);
          out.push({ type: 'reasoning_delta', text: reasoning });
        }
        for (const text of [delta.content, delta.refusal]) {
          if (typeof text === 'string' && text !== '') {
            usage.addOutput(text);
            out.push({ type: 'text_delta', text });
          }
        }
        if (Array.isArray(delta.tool_calls)) toolDeltas(out, delta.tool_calls);
        if (typeof delta.refusal === 'string' && delta.refusal !== '') stopReason = 'content_filter';
      }
      if (choice && typeof choice.finish_reason === 'string') stopReason ??= stopReasonFromOpenAi(choice.finish_reason);
      if (isObject(chunk.usage)) {
        usage.report(usageFromOpenAi(chunk.usage, options.usage));
        out.push({ type: 'usage', usage: usage.snapshot() });
      }
      return out;
    },
    finish(cause?: ChatStreamError): ChatStreamEvent[] {
      if (done) return [];
      return fail(cause ?? { status: 502, message: 'The upstream closed the stream before it finished.' });
    },
  };
}
