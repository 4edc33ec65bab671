/**
 * The port every text upstream style implements (decision 11). Failures are values, never throws:
 * failover reads only `retryable`, and a stream that has started reports its end (clean or not) as
 * its last event.
 */
import type { ChatProtocol, ChatRequest } from '../../domain/chat/chat-request.types.ts';
import type { ChatResponse, ChatStreamEvent } from '../../domain/chat/chat-response.types.ts';

export interface ChatTarget {
  /** The upstream's name for the model (the route's `model`). */
  upstreamModel: string;
}

export interface ChatUpstreamError {
  /**
   * The upstream's HTTP status; for failures without one: 502 (connection refused, reset, bad
   * answer), 504 (time-out), 499 (the client went away), 400 (a request this upstream cannot express).
   */
  status: number;
  /** Another attempt (on another route) may succeed. */
  retryable: boolean;
  /** Seconds from the upstream's Retry-After. */
  retryAfterS?: number;
  /** The upstream's own message when it sent one, else ours. */
  message: string;
  /** The upstream's own error type (e.g. `overloaded_error`, `invalid_request_error`). */
  type?: string;
  /** The request field at fault, when we refused the request for this upstream ourselves. */
  param?: string;
  /** The upstream's error body as received (at most 64 KiB), to forward verbatim on same-protocol routes. */
  upstreamBody?: string;
}

export type ChatUpstreamResult =
  | { ok: true; kind: 'response'; response: ChatResponse }
  /**
   * Consumed once, as it arrives. The first event has already been read (a stream whose first event
   * is an error is returned as a failure instead, so it can fail over); the last event is always
   * `message_end` or `error`. Leaving the loop early (`break`) cancels the upstream request.
   */
  | { ok: true; kind: 'stream'; events: AsyncIterable<ChatStreamEvent> }
  | { ok: false; error: ChatUpstreamError };

export interface ChatProvider {
  /** The wire protocol it speaks upstream; passthrough fields reach it only from a client of the same one. */
  readonly protocol: ChatProtocol | 'local';
  /**
   * Sends the request; `request.stream` chooses the result kind. Aborting `signal` cancels the
   * upstream call (and ends a running stream with an error event).
   */
  send(request: ChatRequest, target: ChatTarget, signal: AbortSignal): Promise<ChatUpstreamResult>;
}

/**
 * Whether a failed upstream answer may succeed elsewhere. Rate limits, time-outs and server errors
 * can; so can answers that concern our account at that upstream rather than the request (401, 402,
 * 403 for our key, 404 for a model that upstream lacks). The request itself being invalid (400, 413,
 * 422 and other 4xx) cannot.
 */
export function isRetryableStatus(status: number): boolean {
  return status >= 500 || [401, 402, 403, 404, 408, 409, 425, 429].includes(status);
}
