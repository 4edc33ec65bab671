/**
 * Runs an upstream SSE body through a protocol decoder, for every HTTP adapter. The caller gets the
 * stream only once its first answer event has arrived: an upstream that fails before that (an error
 * event, a cut, a time-out) is reported as a failure value, so failover can still move to the next
 * route before the client has seen a byte.
 */
import type { Dispatcher } from 'undici';
import type { ChatStreamDecoder, ChatStreamError, ChatStreamEvent } from '../../domain/chat/chat-response.types.ts';
import type { ChatUpstreamResult } from './chat-provider.ts';
import { isRetryableStatus } from './chat-provider.ts';
import { readSse } from './sse-reader.ts';
import { failureFromError, type UpstreamAttempt } from './upstream-http.ts';

type Body = Dispatcher.ResponseData['body'];

export async function openUpstreamStream(body: Body, decoder: ChatStreamDecoder, attempt: UpstreamAttempt): Promise<ChatUpstreamResult> {
  const iterator = decode(body, decoder, attempt);
  const leading: ChatStreamEvent[] = [];
  // Hold back message_start and usage until the first event that says how the answer goes.
  for (;;) {
    const next = await iterator.next();
    if (next.done) break;
    const event = next.value;
    if (event.type === 'error') {
      await iterator.return(undefined);
      const { status, message, type } = event.error;
      const error = { status, retryable: isRetryableStatus(status), message };
      return { ok: false, error: type === undefined ? error : { ...error, type } };
    }
    leading.push(event);
    if (event.type !== 'message_start' && event.type !== 'usage') break;
  }
  attempt.stopTimer();
  return { ok: true, kind: 'stream', events: replay(leading, iterator) };
}

async function* replay(leading: ChatStreamEvent[], rest: AsyncGenerator<ChatStreamEvent>): AsyncGenerator<ChatStreamEvent> {
  try {
    for (const event of leading) yield event;
    if (leading.some((e) => e.type === 'message_end')) return;
    yield* rest;
  } finally {
    await rest.return(undefined);
  }
}

/** Longest wait for the end of the body after the final event, before giving the connection up. */
const DRAIN_MS = 250;

async function* decode(body: Body, decoder: ChatStreamDecoder, attempt: UpstreamAttempt): AsyncGenerator<ChatStreamEvent> {
  // The final events are held until the body has ended (normally in the same packet), so that the
  // connection is back in the keep-alive pool before the caller, told the answer is complete, sends
  // its next request; an upstream that keeps the body open past that gets DRAIN_MS.
  const held: ChatStreamEvent[] = [];
  let drainTimer: NodeJS.Timeout | undefined;
  try {
    for await (const message of readSse(body.iterator({ destroyOnReturn: false }))) {
      if (decoder.done) continue;
      const events = decoder.push(message.event, message.data);
      if (decoder.done) {
        held.push(...events);
        drainTimer = setTimeout(() => body.destroy(), DRAIN_MS);
      } else yield* events;
    }
    yield* held;
    yield* decoder.finish();
  } catch (error) {
    if (decoder.done) {
      yield* held;
      return;
    }
    const failure = failureFromError(error, attempt);
    const cause: ChatStreamError = { status: failure.status, message: failure.message };
    if (failure.status === 502) cause.message = `The upstream stream broke (${failure.message}).`;
    yield* decoder.finish(cause);
  } finally {
    clearTimeout(drainTimer);
    attempt.dispose();
    if (!body.readableEnded) body.destroy();
  }
}
