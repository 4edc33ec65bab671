/**
 * An approximate count of a prompt's input tokens, for answering count_tokens when no upstream of
 * the model can count (docs/decisions.md "count_tokens"). Unlike prompt-size.estimator.ts, which is
 * an upper bound for holds (about one token per byte, several times too high), this aims at the
 * count itself, without the vendor's tokenizer, from how byte-pair tokenizers split text:
 * - a run of ASCII letters or digits is one token per 6 characters, rounded up (common English words
 *   are one token, long or rare ones a few);
 * - every other ASCII symbol is one token, spaces and tabs none (they join the next word), a run of
 *   line breaks one;
 * - Chinese, Japanese and Korean characters are one token each; other non-ASCII letters (accented,
 *   Cyrillic, Greek, …) one per 2 characters of a run; anything else (emoji, rare symbols) one per
 *   2 UTF-8 bytes;
 * - per message 3 tokens of framing, per tool its name, description and schema as text plus 10, and
 *   when tools are given, 350 for the tool-use preamble vendors add (Anthropic documents 313 to 346);
 * - an image 1,600 tokens (Anthropic's cap for a resized image, about 1.15 megapixels / 750); a
 *   vendor block (a PDF) one token per 4 bytes of its JSON.
 * It is not exact: it is flagged as an estimate wherever it is answered.
 */
import type { ChatRequest, ImagePart, NativePart, ReasoningPart, TextPart } from './chat-request.types.ts';

const PER_MESSAGE = 3;
const PER_TOOL = 10;
const TOOL_PREAMBLE = 350;
const PER_IMAGE = 1_600;
const PIECE = /[A-Za-z0-9]+|[\n\r]+|[ \t]+|[\x21-\x2f\x3a-\x40\x5b-\x60\x7b-\x7e]|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]|\p{L}+|[\s\S]/gu;

/** The approximate tokens of a text. */
export function approximateTextTokens(text: string): number {
  let total = 0;
  for (const [piece] of text.matchAll(PIECE)) {
    const first = piece.charCodeAt(0);
    if (first === 0x20 || first === 0x09) continue;
    if (first === 0x0a || first === 0x0d) total += 1;
    else if (/^[A-Za-z0-9]/.test(piece)) total += Math.ceil(piece.length / 6);
    else if (first < 0x80) total += 1;
    else if (/^[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u.test(piece)) total += 1;
    else if (/^\p{L}/u.test(piece)) total += Math.ceil([...piece].length / 2);
    else total += Math.ceil(Buffer.byteLength(piece, 'utf8') / 2);
  }
  return total;
}

function partTokens(part: TextPart | ImagePart | NativePart | ReasoningPart): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return approximateTextTokens(part.text);
    case 'image':
      return PER_IMAGE;
    case 'native':
      return Math.ceil(Buffer.byteLength(JSON.stringify(part.value), 'utf8') / 4);
  }
}

/** The approximate input tokens of a request (what count_tokens answers when nobody upstream counts). */
export function approximatePromptTokens(request: ChatRequest): number {
  let total = 0;
  if (request.system.length > 0) total += PER_MESSAGE;
  for (const part of request.system) total += partTokens(part);
  for (const message of request.messages) {
    total += PER_MESSAGE;
    for (const part of message.content) total += partTokens(part);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) total += PER_TOOL + approximateTextTokens(call.name) + approximateTextTokens(call.arguments);
    }
  }
  if (request.tools.length > 0) total += TOOL_PREAMBLE;
  for (const tool of request.tools) {
    total += PER_TOOL + (tool.type === 'function'
      ? approximateTextTokens(tool.name) + approximateTextTokens(tool.description ?? '') + approximateTextTokens(JSON.stringify(tool.parameters))
      : approximateTextTokens(JSON.stringify(tool.value)));
  }
  return total;
}
