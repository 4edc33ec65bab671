/**
 * The canonical chat response and the canonical streaming events, between upstream adapters and
 * the wire encoders.
 */

/** Why the model stopped, in one vocabulary for both protocols. */
export type StopReason = 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'content_filter' | 'error';

/**
 * Token counts as billing needs them. `inputTokens` is every prompt token, cached or not (OpenAI's
 * `prompt_tokens`); `cachedInputTokens` (cache reads) and `cacheCreationTokens` (cache writes) are
 * parts of it. Anthropic reports the three separately, so its `input_tokens` is the remainder.
 */
export interface ChatUsage {
  inputTokens: number;
  outputTokens: number;
  cachedInputTokens: number;
  cacheCreationTokens: number;
  /** The part of the cache writes made with a one-hour lifetime (Anthropic `cache_creation.ephemeral_1h_input_tokens`). */
  cacheCreation1hTokens?: number;
  /**
   * The part of `outputTokens` spent on reasoning, where the upstream says (OpenAI's
   * `completion_tokens_details.reasoning_tokens`, the Responses `output_tokens_details`, or the tokens
   * Gemini counts in `total_tokens` beside `completion_tokens`). Billed as output; shown to clients.
   */
  reasoningTokens?: number;
  /** Web searches the upstream ran for the request (Anthropic `server_tool_use.web_search_requests`). */
  webSearchRequests?: number;
  /** The processing tier the upstream reports (OpenAI's `service_tier`, Anthropic's `usage.service_tier`). */
  serviceTier?: string;
  /**
   * true when the upstream reported nothing and the numbers are our upper-bound estimate (prompt
   * estimate, UTF-8 bytes of the output): billing never undercharges for a silent upstream.
   */
  estimated?: boolean;
}

export function emptyUsage(): ChatUsage {
  return { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheCreationTokens: 0 };
}

export interface TextBlock {
  type: 'text';
  text: string;
}

export interface ToolCallBlock {
  type: 'tool_call';
  id: string;
  name: string;
  /** JSON text of the arguments object. */
  arguments: string;
}

export interface ReasoningBlock {
  type: 'reasoning';
  text: string;
  signature?: string;
  redactedData?: string;
}

export type ResponseBlock = TextBlock | ToolCallBlock | ReasoningBlock;

export interface ChatResponse {
  id: string;
  model: string;
  content: ResponseBlock[];
  stopReason: StopReason;
  /** The stop sequence that matched, when the upstream says (Anthropic does, OpenAI does not). */
  stopSequence?: string;
  usage: ChatUsage;
}

/** What went wrong in a stream after it started; `status` is the HTTP status it stands for. */
export interface ChatStreamError {
  status: number;
  message: string;
  /** The upstream's own error type when it sent one (e.g. `overloaded_error`). */
  type?: string;
}

/**
 * One step of a streamed answer. A well-formed stream is `message_start`, then deltas, then exactly
 * one terminal event: `message_end` or `error`. Text and reasoning deltas continue the current block;
 * a tool call is opened by `tool_call_start` (its `index` counts tool calls from 0) and continued by
 * `tool_call_delta` with the same index. `usage` events carry cumulative totals seen so far.
 */
export type ChatStreamEvent =
  | { type: 'message_start'; id: string; model: string; usage: ChatUsage }
  | { type: 'text_delta'; text: string }
  | { type: 'reasoning_delta'; text: string }
  | { type: 'reasoning_signature'; signature: string }
  | { type: 'reasoning_redacted'; data: string }
  | { type: 'tool_call_start'; index: number; id: string; name: string }
  | { type: 'tool_call_delta'; index: number; arguments: string }
  | { type: 'usage'; usage: ChatUsage }
  | { type: 'message_end'; stopReason: StopReason; stopSequence?: string; usage: ChatUsage }
  /** The stream was cut or failed: never a clean finish. `usage` is what had been observed. */
  | { type: 'error'; error: ChatStreamError; usage: ChatUsage };

export function isTerminalEvent(event: ChatStreamEvent): boolean {
  return event.type === 'message_end' || event.type === 'error';
}

/**
 * Turns one upstream's server-sent events into canonical events. Implemented per wire protocol and
 * driven by the upstream adapters: `push` for each SSE message, `finish` once the byte stream has
 * ended (`cause` set when it broke). After a terminal event everything else is ignored, and `finish`
 * always yields one when none was seen, so a cut stream can never look like a clean finish.
 */
export interface ChatStreamDecoder {
  push(event: string | undefined, data: string): ChatStreamEvent[];
  finish(cause?: ChatStreamError): ChatStreamEvent[];
  readonly done: boolean;
}

/** Encodes canonical events as one wire protocol's SSE frames. */
export interface ChatStreamEncoder {
  /** The frames for one event ('' when the event produces none). */
  encode(event: ChatStreamEvent): string;
  /** A keep-alive frame the client ignores, for long silences (CDNs cut idle connections). */
  ping(): string;
}
