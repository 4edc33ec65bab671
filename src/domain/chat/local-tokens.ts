/**
 * The local text model's tokenizer: a run of letters, digits and underscores is one token, and so is
 * every other non-space character. It is exact for our own billing and never exceeds the UTF-8 byte
 * count, so the prompt estimator stays an upper bound for the local model too.
 */
import type { ChatRequest } from './chat-request.types.ts';

const TOKEN = /[\p{L}\p{N}_]+|[^\s\p{L}\p{N}_]/gu;
/** What one image costs in the local model (a fixed amount, like a low-detail image elsewhere). */
export const LOCAL_IMAGE_TOKENS = 85;
const PER_MESSAGE = 4;

export function countLocalTokens(text: string): number {
  let count = 0;
  for (const _ of text.matchAll(TOKEN)) count++;
  return count;
}

/** The prefix of `text` that holds at most `max` tokens, and whether it had to be cut. */
export function truncateToTokens(text: string, max: number): { text: string; truncated: boolean } {
  let count = 0;
  for (const match of text.matchAll(TOKEN)) {
    count++;
    if (count > max) return { text: text.slice(0, match.index).trimEnd(), truncated: true };
  }
  return { text, truncated: false };
}

/** Words with the spaces after them, the unit the local model streams. */
export function splitWords(text: string): string[] {
  return text.match(/\s*\S+\s*/g) ?? (text === '' ? [] : [text]);
}

export function countLocalInputTokens(request: ChatRequest): number {
  let total = 0;
  for (const part of request.system) total += countLocalTokens(part.text) + PER_MESSAGE;
  for (const message of request.messages) {
    total += PER_MESSAGE;
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'reasoning') total += countLocalTokens(part.text);
      else if (part.type === 'image') total += LOCAL_IMAGE_TOKENS;
      else total += countLocalTokens(JSON.stringify(part.value));
    }
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) total += countLocalTokens(call.name) + countLocalTokens(call.arguments);
    }
  }
  for (const tool of request.tools) {
    total += tool.type === 'function'
      ? countLocalTokens(tool.name) + countLocalTokens(tool.description ?? '') + countLocalTokens(JSON.stringify(tool.parameters))
      : countLocalTokens(JSON.stringify(tool.value));
  }
  return total;
}
