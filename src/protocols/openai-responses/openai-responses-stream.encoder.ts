/**
 * Canonical stream events → the Responses API's typed server-sent events, in OpenAI's order:
 * `response.created`, `response.in_progress`, then per output item `response.output_item.added`,
 * its deltas (`response.output_text.delta` inside a `response.content_part.added`/`.done` pair,
 * `response.function_call_arguments.delta`, `response.reasoning_summary_text.delta` inside a
 * `response.reasoning_summary_part.added`/`.done` pair), its `.done` events and
 * `response.output_item.done`; then `response.completed` (or `response.incomplete` when the output
 * was cut by max_output_tokens) with the usage and the whole output. A broken stream ends with
 * `response.failed` and an `error` event: the openai SDK raises that as an APIError instead of
 * returning a truncated answer. Every event carries `sequence_number`, from 0.
 */
import { type ChatStreamEncoder, type ChatStreamEvent, type ChatUsage, emptyUsage } from '../../domain/chat/chat-response.types.ts';
import type { ResponsesEcho } from './openai-responses.parser.ts';
import {
  failedResponseObject,
  type FunctionCallItem,
  ItemIds,
  type MessageItem,
  type OutputItem,
  type OutputText,
  type ReasoningItem,
  type ResponseShell,
  responseObject,
  responsesErrorCode,
  statusOf,
} from './openai-responses.response.ts';

export interface ResponsesStreamEncoderOptions {
  /** Our request id and model id (the client's names, not the upstream's). */
  id: string;
  model: string;
  echo: ResponsesEcho;
  createdAt?: number;
}

/** The item being written: deltas continue it; another kind of delta closes it. */
type OpenItem =
  | { kind: 'message'; index: number; item: MessageItem; text: string }
  | { kind: 'reasoning'; index: number; item: ReasoningItem; text: string }
  | { kind: 'function_call'; index: number; item: FunctionCallItem };

export function createResponsesStreamEncoder(options: ResponsesStreamEncoderOptions): ChatStreamEncoder {
  const shell: ResponseShell = { id: options.id, model: options.model, createdAt: options.createdAt ?? Math.floor(Date.now() / 1000), echo: options.echo };
  const ids = new ItemIds(options.id);
  const output: OutputItem[] = [];
  /** Output index of each tool call, by the canonical tool-call index. */
  const calls = new Map<number, { index: number; item: FunctionCallItem }>();
  let sequence = 0;
  let started = false;
  let ended = false;
  let usage: ChatUsage = emptyUsage();
  let open: OpenItem | undefined;
  let messages = 0;
  let reasonings = 0;

  const event = (type: string, data: Record<string, unknown>): string =>
    `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: sequence++ })}\n\n`;

  const start = (): string => {
    if (started) return '';
    started = true;
    const response = responseObject(shell, 'in_progress', [], undefined);
    return event('response.created', { response }) + event('response.in_progress', { response });
  };

  const add = (item: OutputItem): number => {
    output.push(item);
    return output.length - 1;
  };

  const close = (status: 'completed' | 'incomplete'): string => {
    const current = open;
    if (!current) return '';
    open = undefined;
    const at = { item_id: current.item.id, output_index: current.index };
    let frames = '';
    switch (current.kind) {
      case 'message': {
        const part: OutputText = { type: 'output_text', text: current.text, annotations: [], logprobs: [] };
        current.item.content = [part];
        current.item.status = status;
        frames += event('response.output_text.done', { ...at, content_index: 0, text: current.text, logprobs: [] });
        frames += event('response.content_part.done', { ...at, content_index: 0, part });
        break;
      }
      case 'reasoning':
        current.item.status = status;
        if (current.text !== '') {
          const part = { type: 'summary_text', text: current.text } as const;
          current.item.summary = [part];
          frames += event('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: current.text });
          frames += event('response.reasoning_summary_part.done', { ...at, summary_index: 0, part });
        }
        break;
      case 'function_call':
        current.item.status = status;
        frames += event('response.function_call_arguments.done', { ...at, arguments: current.item.arguments });
        break;
    }
    return frames + event('response.output_item.done', { output_index: current.index, item: current.item });
  };

  const textDelta = (text: string): string => {
    let frames = '';
    if (open?.kind !== 'message') {
      frames += close('completed');
      const item: MessageItem = { type: 'message', id: ids.message(messages++), role: 'assistant', status: 'in_progress', content: [] };
      const index = add(item);
      open = { kind: 'message', index, item, text: '' };
      frames += event('response.output_item.added', { output_index: index, item });
      frames += event('response.content_part.added', { item_id: item.id, output_index: index, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
    }
    open.text += text;
    return frames + event('response.output_text.delta', { item_id: open.item.id, output_index: open.index, content_index: 0, delta: text, logprobs: [] });
  };

  const reasoningItem = (): { frames: string; current: Extract<OpenItem, { kind: 'reasoning' }> } => {
    if (open?.kind === 'reasoning') return { frames: '', current: open };
    const frames = close('completed');
    const item: ReasoningItem = { type: 'reasoning', id: ids.reasoning(reasonings++), summary: [], status: 'in_progress' };
    const index = add(item);
    const current = { kind: 'reasoning' as const, index, item, text: '' };
    open = current;
    return { frames: frames + event('response.output_item.added', { output_index: index, item: { ...item } }), current };
  };

  return {
    encode(e: ChatStreamEvent): string {
      if (ended) return '';
      switch (e.type) {
        case 'message_start':
          usage = e.usage;
          return start();
        case 'text_delta':
          return start() + textDelta(e.text);
        case 'reasoning_delta': {
          const { frames, current } = reasoningItem();
          const at = { item_id: current.item.id, output_index: current.index, summary_index: 0 };
          // The summary part opens with the first text (a signature alone makes an item without one).
          const opened = current.text === '' ? event('response.reasoning_summary_part.added', { ...at, part: { type: 'summary_text', text: '' } }) : '';
          current.text += e.text;
          return start() + frames + opened + event('response.reasoning_summary_text.delta', { ...at, delta: e.text });
        }
        case 'reasoning_signature': {
          const { frames, current } = reasoningItem();
          current.item.encrypted_content = e.signature;
          return start() + frames;
        }
        case 'reasoning_redacted':
          return start();
        case 'tool_call_start': {
          const frames = start() + close('completed');
          const item: FunctionCallItem = { type: 'function_call', id: ids.functionCall(e.index), call_id: e.id, name: e.name, arguments: '', status: 'in_progress' };
          const index = add(item);
          calls.set(e.index, { index, item });
          open = { kind: 'function_call', index, item };
          return frames + event('response.output_item.added', { output_index: index, item: { ...item } });
        }
        case 'tool_call_delta': {
          const call = calls.get(e.index);
          if (!call) return '';
          call.item.arguments += e.arguments;
          return event('response.function_call_arguments.delta', { item_id: call.item.id, output_index: call.index, delta: e.arguments });
        }
        case 'usage':
          usage = e.usage;
          return '';
        case 'message_end': {
          ended = true;
          usage = e.usage;
          const { status, incomplete } = statusOf(e.stopReason);
          const frames = start() + close(status === 'incomplete' ? 'incomplete' : 'completed');
          const response = responseObject(shell, status, output, usage);
          response.incomplete_details = incomplete;
          return frames + event(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
        }
        case 'error': {
          ended = true;
          usage = e.usage;
          const frames = start() + close('incomplete');
          const response = failedResponseObject(shell, output, e.error, usage);
          return `${frames}${event('response.failed', { response })}${event('error', { code: responsesErrorCode(e.error.status), message: e.error.message, param: null })}`;
        }
      }
    },
    ping(): string {
      return ': ping\n\n';
    },
  };
}
