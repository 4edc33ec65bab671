/**
 * What a caller hands the chat service and what it gets back (chat.service.ts), and what an exchange
 * settles with (chat-exchange.ts, billed-events.ts).
 */
import type { ChatModelDefinition } from '../../domain/catalog/catalog.types.ts';
import type { ChatProtocol, ChatRequest } from '../../domain/chat/chat-request.types.ts';
import type { ChatResponse, ChatStreamEvent, ChatUsage, StopReason } from '../../domain/chat/chat-response.types.ts';
import type { ChatRequestOutcome } from '../../ports/ledger.port.ts';

export interface ChatCall {
  userId: string;
  apiKeyId: string | undefined;
  /** The wire protocol the client speaks. */
  protocol: ChatProtocol;
  request: ChatRequest;
  /**
   * Aborted when the client goes away (the route ties it to the connection), and by the service on
   * shutdown. What it does to the upstream call is `onAbort`'s.
   */
  abort: AbortController;
  /**
   * `finish` (the default: a client that left): nothing more is handed to the caller, but the
   * upstream call goes on, read silently for at most `upstreamAfterLeaveMs`, so that the usage it
   * reports is what is charged (the upstream bills it whether we listen or not). `cancel` (an agent
   * run stopped, which must stop at once): the upstream call is cancelled and what was observed is
   * charged, at least the prompt estimate once the request was sent.
   */
  onAbort?: 'finish' | 'cancel';
  /**
   * Aborted to stop the request at once whatever `onAbort` says (a revoked key, an ended session: its
   * owner wants the spending stopped): the upstream call is cancelled and what was observed charged.
   */
  stop?: AbortSignal;
  /** The request's id (`chat_…`), when the caller must know it before the call (an agent run records it first). */
  id?: string;
  /**
   * The most this request may be charged (an agent run's commitment): a reported usage above it is
   * charged at this amount, so a run's settled charges never pass what it committed.
   */
  maxChargeMicro?: number;
  /**
   * The definition of `request.model` a quote was made with (ChatQuote.model): the request is held
   * and charged at its prices, even when the catalog changed since the quote. Absent: the catalog's now.
   */
  model?: ChatModelDefinition;
  /**
   * The account's group multiplier a quote was made with (ChatQuote.priceMultiplierPpm): the request
   * is held and charged at it, even when the account's group changed since. Absent: its group's now.
   */
  priceMultiplierPpm?: number;
}

/** What a request will hold: its prompt estimate, its output cap and the money they can cost. */
export interface ChatQuote {
  promptTokens: number;
  maxOutputTokens: number;
  holdMicro: number;
  /** The definition (and so the prices) the quote was computed with: give it to `complete` as `model`. */
  model: ChatModelDefinition;
  /** The group multiplier `holdMicro` was computed with: give it to `complete` as `priceMultiplierPpm`. */
  priceMultiplierPpm: number;
}

export type ChatAnswer = (
  /** Settled just after (the settlement is queued behind the reply); `response.id` and `response.model` are ours. */
  | { kind: 'response'; id: string; response: ChatResponse; ended: Promise<void> }
  /**
   * Settled when its terminal event (message_end or error) is reached, before that event is yielded;
   * for a client that left, once its upstream call has ended, after the error event. `ended` resolves
   * when it is settled (the request no longer runs anywhere).
   */
  | { kind: 'stream'; id: string; events: AsyncIterable<ChatStreamEvent>; ended: Promise<void> }
) & {
  /** Sampling fields the model refuses that were left out of the request (sampling-rules.ts), as the client named them. */
  droppedFields?: readonly string[];
};

export type FinalStatus = ChatRequestOutcome['status'];

export interface Settlement {
  status: FinalStatus;
  /** What to bill, as reported (bounded by the settlement: usage-bounds.ts); undefined charges nothing. */
  usage: ChatUsage | undefined;
  /** UTF-8 bytes of the output that reached us: the estimate of an output count that is not a number. */
  outputSeen?: number;
  stopReason?: StopReason;
  error?: { code: string; message: string };
}
