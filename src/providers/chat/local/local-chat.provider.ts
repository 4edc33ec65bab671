/**
 * The `local` style (decision 13): the deterministic local text model behind the ChatProvider port,
 * with the behaviour of a real upstream where tests need it: a delay before the first byte, injected
 * failures, word-by-word streaming, cancellation.
 *
 * options (from config; SWITCHBOARD_LOCAL_LATENCY_MS and SWITCHBOARD_LOCAL_FAILURE_RATE fill the first two):
 * - `latencyMs`: delay before the answer starts; 0.
 * - `failureRate`: share of requests (0 to 1) that fail with a retryable 503; 0.
 * - `wordDelayMs`: pause between streamed words; 0 (the loop still yields to other work).
 */
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { ProviderConfig } from '../../../config/config.types.ts';
import { newId } from '../../../domain/ids.ts';
import type { ChatRequest } from '../../../domain/chat/chat-request.types.ts';
import type { ChatResponse, ChatStreamEvent } from '../../../domain/chat/chat-response.types.ts';
import type { ChatProvider, ChatTarget, ChatUpstreamResult } from '../chat-provider.ts';
import { answerLocally } from './local-chat.model.ts';
import { countLocalTokens, splitWords } from '../../../domain/chat/local-tokens.ts';

export interface LocalChatDeps {
  /** Draws for `failureRate`; Math.random unless a test fixes it. */
  random?: () => number;
}

const CANCELLED = { status: 499, retryable: false, message: 'The client cancelled the request.' } as const;

export function createLocalChatProvider(config: ProviderConfig, deps: LocalChatDeps = {}): ChatProvider {
  const o = config.options;
  const number = (v: unknown): number => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : 0);
  const latencyMs = number(o.latencyMs);
  const failureRate = Math.min(1, number(o.failureRate));
  const wordDelayMs = number(o.wordDelayMs);
  const random = deps.random ?? Math.random;

  return {
    protocol: 'local',
    async send(request: ChatRequest, target: ChatTarget, signal: AbortSignal): Promise<ChatUpstreamResult> {
      if (latencyMs > 0) {
        try {
          await sleep(latencyMs, undefined, { signal });
        } catch {
          return { ok: false, error: { ...CANCELLED } };
        }
      }
      if (signal.aborted) return { ok: false, error: { ...CANCELLED } };
      if (failureRate > 0 && random() < failureRate) {
        return { ok: false, error: { status: 503, retryable: true, message: 'The local provider failed on purpose (failureRate).' } };
      }
      const answer = answerLocally(request);
      const response: ChatResponse = { id: newId('msg'), model: target.upstreamModel, ...answer };
      if (!request.stream) return { ok: true, kind: 'response', response };
      return { ok: true, kind: 'stream', events: stream(response, signal, wordDelayMs) };
    },
  };
}

async function* stream(response: ChatResponse, signal: AbortSignal, wordDelayMs: number): AsyncGenerator<ChatStreamEvent> {
  const usage = response.usage;
  yield { type: 'message_start', id: response.id, model: response.model, usage: { ...usage, outputTokens: 0 } };
  const pieces: ChatStreamEvent[] = [];
  let index = -1;
  for (const block of response.content) {
    if (block.type === 'text') for (const word of splitWords(block.text)) pieces.push({ type: 'text_delta', text: word });
    else if (block.type === 'tool_call') {
      index++;
      pieces.push({ type: 'tool_call_start', index, id: block.id, name: block.name });
      // Arguments in three pieces, as upstreams split them mid-token.
      const size = Math.max(1, Math.ceil(block.arguments.length / 3));
      for (let at = 0; at < block.arguments.length; at += size) {
        pieces.push({ type: 'tool_call_delta', index, arguments: block.arguments.slice(at, at + size) });
      }
    }
  }
  // Output produced so far: a cancelled answer reports (and is billed for) only what was sent.
  let sent = 0;
  for (const piece of pieces) {
    try {
      if (wordDelayMs > 0) await sleep(wordDelayMs, undefined, { signal });
      else await nextTurn();
    } catch {
      // Aborted mid-sleep: handled just below.
    }
    if (signal.aborted) {
      yield { type: 'error', error: { status: CANCELLED.status, message: CANCELLED.message }, usage: { ...usage, outputTokens: Math.min(sent, usage.outputTokens) } };
      return;
    }
    if (piece.type === 'text_delta') sent += countLocalTokens(piece.text);
    else if (piece.type === 'tool_call_start') sent += countLocalTokens(piece.name);
    else if (piece.type === 'tool_call_delta') sent += countLocalTokens(piece.arguments);
    yield piece;
  }
  const end: ChatStreamEvent = { type: 'message_end', stopReason: response.stopReason, usage };
  if (response.stopSequence !== undefined) end.stopSequence = response.stopSequence;
  yield end;
}
