/**
 * An upper bound of the input tokens of a chat request, to reserve money before the call (decision
 * 11). The exact count comes back from the upstream and settles the charge; this number only has to
 * be safe, cheap and tokenizer-free.
 *
 * Why UTF-8 bytes bound the tokens: every tokenizer the upstreams use (byte-level BPE for OpenAI,
 * Anthropic, DeepSeek, Qwen, xAI; SentencePiece with byte fallback for Gemini) splits the text into
 * tokens that each cover at least one byte, so a text of n bytes is at most n tokens. What is not
 * text is bounded separately: the chat template adds a few marker tokens per message (under 16 in
 * every known template), an image costs at most a fixed number of tokens (vendors downscale large
 * images: Claude about 1,600, GPT-4o tiles about 1,100, patch-based models under 2,500; we take 6,000),
 * and a vendor may add a hidden preamble (Anthropic's tool-use system prompt is about 350 tokens).
 */
import type { ChatRequest, ImagePart, NativePart, TextPart } from './chat-request.types.ts';

export interface PromptEstimateOptions {
  /** Tokens charged for one image, whatever its size. */
  perImageTokens: number;
  /** Template tokens around one message (role markers, separators). */
  perMessageTokens: number;
  /** Fixed preamble a vendor may add (tool-use instructions, JSON-mode instruction). */
  perRequestTokens: number;
}

export const PROMPT_ESTIMATE_DEFAULTS: Readonly<PromptEstimateOptions> = {
  perImageTokens: 6_000,
  perMessageTokens: 16,
  perRequestTokens: 1_024,
};

function bytes(text: string): number {
  // UTF-8 bytes, exactly what the wire carries (string length would undercount non-ASCII text),
  // counted without encoding a copy.
  return Buffer.byteLength(text, 'utf8');
}

export function estimatePromptTokens(request: ChatRequest, options: Partial<PromptEstimateOptions> = {}): number {
  const o = { ...PROMPT_ESTIMATE_DEFAULTS, ...options };
  const part = (p: TextPart | ImagePart | NativePart | { type: 'reasoning'; text: string }): number => {
    switch (p.type) {
      case 'text':
        return bytes(p.text);
      case 'image':
        return o.perImageTokens;
      case 'reasoning':
        return bytes(p.text);
      case 'native':
        // A vendor block (a PDF, audio): its JSON bytes, base64 payload included, exceed the tokens
        // its content becomes; a block given only by URL is charged like one image.
        return Math.max(bytes(JSON.stringify(p.value)), o.perImageTokens);
    }
  };
  let total = o.perRequestTokens + bytes(request.model);
  for (const p of request.system) total += part(p) + o.perMessageTokens;
  for (const message of request.messages) {
    total += o.perMessageTokens;
    for (const p of message.content) total += part(p);
    if (message.role === 'assistant') {
      for (const call of message.toolCalls) total += bytes(call.id) + bytes(call.name) + bytes(call.arguments) + o.perMessageTokens;
    }
    if (message.role === 'tool') total += bytes(message.toolCallId);
    if ((message.role === 'user' || message.role === 'assistant') && message.name !== undefined) total += bytes(message.name);
  }
  for (const tool of request.tools) {
    total += o.perMessageTokens + (tool.type === 'function'
      ? bytes(tool.name) + bytes(tool.description ?? '') + bytes(JSON.stringify(tool.parameters))
      : bytes(JSON.stringify(tool.value)));
  }
  for (const stop of request.stop) total += bytes(stop);
  if (request.responseFormat?.type === 'json_schema') total += bytes(JSON.stringify(request.responseFormat.schema));
  return total;
}
