import type { ChatStreamEvent, ChatUsage } from '../../domain/chat/chat-response.types.ts';
import { chatErrorCodeForStatus } from '../../domain/chat/chat-wire.helpers.ts';
import type { Settlement } from './chat-call.types.ts';
import { withCountedOutput } from './chat-usage.ts';

/** What the events need of their exchange (chat-exchange.ts, ChatExchange). */
export interface BilledExchange {
  /** The caller went away: nothing more is handed on. */
  readonly signal: AbortSignal;
  /** A client that left: its upstream is read to its end for its usage. */
  readonly finishesOnAbort: boolean;
  /** The usage the settlement billed (bounded), which the client's answer reports. */
  readonly billedUsage: ChatUsage | undefined;
  settle(s: Settlement): Promise<void>;
  promptOnly(): ChatUsage;
}

/**
 * Hands the events on as they come and settles when the answer ends: at `message_end` (the usage
 * reported), at an `error` (a cut stream or a departed client: the usage observed, estimated when the
 * upstream reported none), or when the consumer stops early (the usage seen so far plus the output
 * counted since). Settlement happens before the terminal event is handed on. An iterator written out
 * rather than an async generator: one promise per event instead of a generator's machinery, on the
 * path every streamed token takes.
 */
export class BilledEvents implements AsyncIterableIterator<ChatStreamEvent> {
  readonly #source: AsyncIterator<ChatStreamEvent>;
  readonly #exchange: BilledExchange;
  #usage: ChatUsage | undefined;
  #countedOutput = 0;
  /** Every output byte seen: the estimate of an output count the upstream reports as something else than a number. */
  #outputSeen = 0;
  #done = false;
  /** The upstream of a caller that went away, read to its end (#finishUnheard). */
  #finishing: Promise<void> | undefined;

  constructor(source: AsyncIterator<ChatStreamEvent>, exchange: BilledExchange) {
    this.#source = source;
    this.#exchange = exchange;
  }

  [Symbol.asyncIterator](): AsyncIterableIterator<ChatStreamEvent> {
    return this;
  }

  async next(): Promise<IteratorResult<ChatStreamEvent>> {
    if (this.#done) return { done: true, value: undefined };
    // One property read per event: a client that left gets nothing more, the upstream is read for its usage.
    if (this.#exchange.signal.aborted) return this.#finishUnheard();
    let step: IteratorResult<ChatStreamEvent>;
    try {
      step = await this.#source.next();
    } catch (error) {
      await this.#stop();
      throw error;
    }
    if (step.done) {
      // The upstream layer always ends with a terminal event; a source that does not was cut.
      this.#done = true;
      const usage = withCountedOutput(this.#usage, this.#countedOutput);
      const error = { status: 502, message: 'The upstream stream ended before its final event.' };
      await this.#exchange.settle({ status: 'cut', usage, outputSeen: this.#outputSeen, error: { code: 'upstream_error', message: error.message } });
      return { done: false, value: { type: 'error', error, usage: this.#exchange.billedUsage ?? usage } };
    }
    const event = step.value;
    switch (event.type) {
      case 'message_start':
      case 'usage':
      case 'text_delta':
      case 'reasoning_delta':
      case 'tool_call_start':
      case 'tool_call_delta':
        this.#observe(event);
        break;
      case 'message_end':
        this.#done = true;
        await this.#exchange.settle({ status: 'succeeded', usage: event.usage, outputSeen: this.#outputSeen, stopReason: event.stopReason });
        // The client reads what was billed: the upstream's counts within the request's bounds.
        return { done: false, value: { ...event, usage: this.#exchange.billedUsage ?? event.usage } };
      case 'error': {
        this.#done = true;
        const status = event.error.status === 499 || this.#exchange.signal.aborted ? 'client_closed' : 'cut';
        await this.#exchange.settle({ status, usage: event.usage, outputSeen: this.#outputSeen, error: { code: chatErrorCodeForStatus(event.error.status), message: event.error.message } });
        const billed = this.#exchange.billedUsage;
        return { done: false, value: billed ? { ...event, usage: billed } : event };
      }
      default:
        break;
    }
    return { done: false, value: event };
  }

  /** Keeps the usage reported so far and counts the output since (what billing needs of a non-terminal event). */
  #observe(event: ChatStreamEvent): void {
    switch (event.type) {
      case 'message_start':
      case 'usage':
        this.#usage = event.usage;
        this.#countedOutput = 0;
        break;
      case 'text_delta':
      case 'reasoning_delta':
        this.#count(Buffer.byteLength(event.text));
        break;
      case 'tool_call_start':
        this.#count(Buffer.byteLength(event.name));
        break;
      case 'tool_call_delta':
        this.#count(Buffer.byteLength(event.arguments));
        break;
      default:
        break;
    }
  }

  #count(bytes: number): void {
    this.#countedOutput += bytes;
    this.#outputSeen += bytes;
  }

  /**
   * The caller went away: nothing more is handed on but one error event (499), and the rest of the
   * upstream's events are read without being handed on, until its end (the exchange cancels it
   * `upstreamAfterLeaveMs` after a client left, at once for a cancel). The request is settled from
   * the usage the upstream reported at its end or, when none came (cut, cancelled), from what was
   * observed: the prompt estimate and the output seen. A client that left does not wait for that
   * (its connection ends now; the exchange's `ended` says when the upstream did); a cancel does, as
   * it is quick and its caller reads the charge next.
   */
  async #finishUnheard(): Promise<IteratorResult<ChatStreamEvent>> {
    this.#done = true;
    const finished = this.#readToEnd();
    this.#finishing = finished;
    if (!this.#exchange.finishesOnAbort) await finished;
    const reason: unknown = this.#exchange.signal.reason;
    const message = reason instanceof Error ? reason.message : 'The client went away.';
    return { done: false, value: { type: 'error', error: { status: 499, message }, usage: this.#exchange.billedUsage ?? this.#usage ?? this.#exchange.promptOnly() } };
  }

  /** Reads the upstream to its end and settles; never throws. */
  async #readToEnd(): Promise<void> {
    let end: Extract<ChatStreamEvent, { type: 'message_end' | 'error' }> | undefined;
    for (;;) {
      let step: IteratorResult<ChatStreamEvent>;
      try {
        step = await this.#source.next();
      } catch {
        break;
      }
      if (step.done) break;
      const event = step.value;
      if (event.type === 'message_end' || event.type === 'error') {
        end = event;
        break;
      }
      this.#observe(event);
    }
    // An error's usage is the decoder's observation (the prompt estimate, the output it counted).
    const usage = end?.usage ?? withCountedOutput(this.#usage ?? this.#exchange.promptOnly(), this.#countedOutput);
    const message = 'The client went away.';
    await this.#exchange.settle({
      status: 'client_closed',
      usage,
      outputSeen: this.#outputSeen,
      ...(end?.type === 'message_end' ? { stopReason: end.stopReason } : {}),
      error: { code: 'client_closed', message: end?.type === 'error' ? `${message} Then: ${end.error.message}` : message },
    });
  }

  /** The consumer stopped early (its client left, a write failed): cancel the upstream, bill what was seen. */
  async return(): Promise<IteratorResult<ChatStreamEvent>> {
    await this.#stop();
    return { done: true, value: undefined };
  }

  async #stop(): Promise<void> {
    // The upstream is being read to its end for its usage: that settles the request.
    if (this.#finishing) return;
    const wasDone = this.#done;
    this.#done = true;
    if (!wasDone) await this.#source.return?.();
    await this.#exchange.settle({
      status: 'client_closed',
      usage: withCountedOutput(this.#usage ?? this.#exchange.promptOnly(), this.#countedOutput),
      outputSeen: this.#outputSeen,
      error: { code: 'client_closed', message: 'The client went away.' },
    });
  }
}

export async function* toAsync<T>(iterator: Iterator<T>): AsyncGenerator<T> {
  for (let step = iterator.next(); !step.done; step = iterator.next()) yield step.value;
}
