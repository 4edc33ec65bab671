/**
 * Canonical stream events → chat.completion.chunk SSE frames, as the OpenAI SDKs expect them: the
 * role in the first delta, tool calls as indexed deltas (id and name once, then argument pieces), a
 * chunk with the finish reason, then (with `stream_options.include_usage`) a chunk with empty
 * `choices` and the usage, then `data: [DONE]`. A broken stream ends with a `data: {"error": …}`
 * frame and no `[DONE]`: the SDKs raise it as an APIError instead of returning a truncated answer.
 */
import type { ChatStreamEncoder, ChatStreamEvent, ChatUsage } from '../../domain/chat/chat-response.types.ts';
import { emptyUsage } from '../../domain/chat/chat-response.types.ts';
import { renderOpenAiStreamError } from './openai-chat.errors.ts';
import { openAiFinishReason, renderOpenAiUsage } from './openai-chat.response.ts';

export interface OpenAiStreamEncoderOptions {
  /** Send the usage chunk before `[DONE]` (and before an error frame). */
  includeUsage: boolean;
  /** Overrides the id and model of the upstream (the gateway shows its own model id). */
  id?: string;
  model?: string;
  created?: number;
}

type Delta = Record<string, unknown>;

export function createOpenAiStreamEncoder(options: OpenAiStreamEncoderOptions): ChatStreamEncoder {
  let id = options.id ?? '';
  let model = options.model ?? '';
  const created = options.created ?? Math.floor(Date.now() / 1000);
  let started = false;
  let ended = false;
  let usage: ChatUsage = emptyUsage();

  const frame = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
  const chunk = (delta: Delta, finishReason: string | null = null): string =>
    frame({
      id,
      object: 'chat.completion.chunk',
      created,
      model,
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
    });
  // Events may arrive without a message_start (a replayed or synthetic stream); open it lazily.
  const start = (): string => {
    if (started) return '';
    started = true;
    return chunk({ role: 'assistant', content: '' });
  };
  const usageChunk = (): string =>
    options.includeUsage ? frame({ id, object: 'chat.completion.chunk', created, model, choices: [], usage: renderOpenAiUsage(usage) }) : '';

  return {
    encode(event: ChatStreamEvent): string {
      if (ended) return '';
      switch (event.type) {
        case 'message_start':
          if (options.id === undefined) id = event.id;
          if (options.model === undefined) model = event.model;
          usage = event.usage;
          return start();
        case 'text_delta':
          return start() + chunk({ content: event.text });
        case 'reasoning_delta':
          // DeepSeek's and vLLM's name; the OpenAI SDKs pass unknown delta fields through.
          return start() + chunk({ reasoning_content: event.text });
        case 'reasoning_signature':
        case 'reasoning_redacted':
          return start();
        case 'tool_call_start':
          return start() + chunk({
            tool_calls: [{ index: event.index, id: event.id, type: 'function', function: { name: event.name, arguments: '' } }],
          });
        case 'tool_call_delta':
          return start() + chunk({ tool_calls: [{ index: event.index, function: { arguments: event.arguments } }] });
        case 'usage':
          usage = event.usage;
          return '';
        case 'message_end':
          ended = true;
          usage = event.usage;
          return `${start()}${chunk({}, openAiFinishReason(event.stopReason))}${usageChunk()}data: [DONE]\n\n`;
        case 'error':
          ended = true;
          usage = event.usage;
          return `${start()}${usageChunk()}${frame(renderOpenAiStreamError(event.error))}`;
      }
    },
    ping(): string {
      return ': ping\n\n';
    },
  };
}
