/**
 * Conversions between a whole response and a stream of events: a streamed upstream can serve a
 * non-streaming client (collect), and a whole response can be sent to a streaming client (replay).
 */
import type { ChatResponse, ChatStreamError, ChatStreamEvent, ChatUsage, ResponseBlock } from './chat-response.types.ts';
import { emptyUsage } from './chat-response.types.ts';

export type CollectedStream =
  | { ok: true; response: ChatResponse }
  /** The stream failed; `partial` holds what had arrived, `usage` what was observed (to bill). */
  | { ok: false; error: ChatStreamError; usage: ChatUsage; partial: ChatResponse };

/** Accumulates events into a response, as they arrive. */
export class ChatStreamAccumulator {
  #id = '';
  #model = '';
  #usage: ChatUsage = emptyUsage();
  #content: ResponseBlock[] = [];
  #toolBlocks = new Map<number, ResponseBlock & { type: 'tool_call' }>();
  #result: CollectedStream | undefined;

  add(event: ChatStreamEvent): void {
    switch (event.type) {
      case 'message_start':
        this.#id = event.id;
        this.#model = event.model;
        this.#usage = { ...event.usage };
        return;
      case 'text_delta': {
        const last = this.#content.at(-1);
        if (last?.type === 'text') last.text += event.text;
        else this.#content.push({ type: 'text', text: event.text });
        return;
      }
      case 'reasoning_delta': {
        const last = this.#content.at(-1);
        if (last?.type === 'reasoning' && last.redactedData === undefined && last.signature === undefined) last.text += event.text;
        else this.#content.push({ type: 'reasoning', text: event.text });
        return;
      }
      case 'reasoning_signature': {
        const last = this.#content.at(-1);
        if (last?.type === 'reasoning') last.signature = event.signature;
        else this.#content.push({ type: 'reasoning', text: '', signature: event.signature });
        return;
      }
      case 'reasoning_redacted':
        this.#content.push({ type: 'reasoning', text: '', redactedData: event.data });
        return;
      case 'tool_call_start': {
        const block = { type: 'tool_call' as const, id: event.id, name: event.name, arguments: '' };
        this.#toolBlocks.set(event.index, block);
        this.#content.push(block);
        return;
      }
      case 'tool_call_delta': {
        const block = this.#toolBlocks.get(event.index);
        if (block) block.arguments += event.arguments;
        return;
      }
      case 'usage':
        this.#usage = { ...event.usage };
        return;
      case 'message_end':
        this.#usage = { ...event.usage };
        this.#result = { ok: true, response: this.#response(event.stopReason, event.stopSequence) };
        return;
      case 'error':
        this.#usage = { ...event.usage };
        this.#result = { ok: false, error: event.error, usage: this.#usage, partial: this.#response('error', undefined) };
        return;
    }
  }

  /** The outcome; a stream that ended without a terminal event counts as cut. */
  result(): CollectedStream {
    if (this.#result) return this.#result;
    const error = { status: 502, message: 'The upstream stream ended before its final event.' };
    return { ok: false, error, usage: this.#usage, partial: this.#response('error', undefined) };
  }

  #response(stopReason: ChatResponse['stopReason'], stopSequence: string | undefined): ChatResponse {
    for (const block of this.#content) if (block.type === 'tool_call' && block.arguments === '') block.arguments = '{}';
    const response: ChatResponse = { id: this.#id, model: this.#model, content: this.#content, stopReason, usage: this.#usage };
    if (stopSequence !== undefined) response.stopSequence = stopSequence;
    return response;
  }
}

export async function collectChatStream(events: AsyncIterable<ChatStreamEvent>): Promise<CollectedStream> {
  const accumulator = new ChatStreamAccumulator();
  for await (const event of events) {
    accumulator.add(event);
    if (event.type === 'message_end' || event.type === 'error') break;
  }
  return accumulator.result();
}

/** The events that would have streamed this response. */
export function responseToEvents(response: ChatResponse): ChatStreamEvent[] {
  const usage = response.usage;
  const events: ChatStreamEvent[] = [
    { type: 'message_start', id: response.id, model: response.model, usage: { ...usage, outputTokens: 0 } },
  ];
  let toolIndex = 0;
  for (const block of response.content) {
    if (block.type === 'text') events.push({ type: 'text_delta', text: block.text });
    else if (block.type === 'tool_call') {
      events.push({ type: 'tool_call_start', index: toolIndex, id: block.id, name: block.name });
      events.push({ type: 'tool_call_delta', index: toolIndex, arguments: block.arguments });
      toolIndex++;
    } else if (block.redactedData !== undefined) events.push({ type: 'reasoning_redacted', data: block.redactedData });
    else {
      events.push({ type: 'reasoning_delta', text: block.text });
      if (block.signature !== undefined) events.push({ type: 'reasoning_signature', signature: block.signature });
    }
  }
  const end: ChatStreamEvent = { type: 'message_end', stopReason: response.stopReason, usage };
  if (response.stopSequence !== undefined) end.stopSequence = response.stopSequence;
  events.push(end);
  return events;
}
