/**
 * How much text the gateway's own counters (the local model's tokenizer, the approximate count) would
 * read in a request, and the bound on it (issue 29, item 8): their regular expressions take about
 * 16 ms per MB, so 30 MB of text in a free count_tokens call held the event loop for half a second.
 * Above the bound the request is refused; large ones are counted in the CPU pool.
 */
import type { ChatRequest, ImagePart } from './chat-request.types.ts';

/**
 * 8 MiB of characters: twice the text of the largest context window (1M tokens, about 4 MB of
 * English), so no prompt a model could take is refused, and the pool counts it in about 0.15 s.
 */
export const MAX_COUNTED_TEXT_CHARS = 8 * 1024 * 1024;
/** Up to 256 Ki characters (a few milliseconds) are counted on the event loop, without a thread hop. */
export const COUNT_ON_LOOP_CHARS = 256 * 1024;

/** The characters a counter reads: the texts, tool calls and tool definitions; JSON values by their size as text. */
export function countedTextChars(request: ChatRequest): number {
  let chars = 0;
  const parts: Array<{ type: string; text?: string; value?: unknown }> = [...request.system];
  for (const message of request.messages) parts.push(...message.content);
  for (const part of parts) {
    if (part.type === 'native') chars += jsonChars(part.value);
    else chars += part.text?.length ?? 0;
  }
  for (const message of request.messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls) chars += call.name.length + call.arguments.length;
  }
  for (const tool of request.tools) chars += tool.type === 'function' ? tool.name.length + (tool.description ?? '').length + jsonChars(tool.parameters) : jsonChars(tool.value);
  return chars;
}

/** The request without its pictures' data (counters give a picture a fixed count), for the copy to a thread. */
export function withoutImageData(request: ChatRequest): ChatRequest {
  const light = (part: ImagePart): ImagePart => ({ ...part, source: { kind: 'url', url: '' } });
  return {
    ...request,
    system: request.system,
    messages: request.messages.map((message) => ({ ...message, content: message.content.map((part) => (part.type === 'image' ? light(part) : part)) })) as ChatRequest['messages'],
  };
}

/** About the length of JSON.stringify(value), without building it: strings and keys, plus a little per value. */
function jsonChars(value: unknown): number {
  let chars = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const item = stack.pop();
    if (typeof item === 'string') chars += item.length + 2;
    else if (Array.isArray(item)) {
      chars += 2;
      for (const child of item) stack.push(child);
    } else if (item !== null && typeof item === 'object') {
      chars += 2;
      for (const [key, child] of Object.entries(item)) {
        chars += key.length + 4;
        stack.push(child);
      }
    } else chars += 6;
  }
  return chars;
}
