/**
 * Group commit for the chat ledger's two implementations (sqlite-chat-ledger.thread.ts, postgres-chat-ledger.ts):
 * operations that arrive in the same turn of the event loop leave together; one that nobody waits
 * for (a settlement after its answer was sent) may linger up to 5 ms for company; with a limit on
 * sends in flight, what arrives meanwhile waits and leaves with the next one. Each operation's caller
 * gets a promise of its own reply.
 */
const LINGER_MS = 5;

interface Waiting<R> {
  resolve(reply: R): void;
  reject(error: Error): void;
}

export interface Queued<O> {
  seq: number;
  operation: O;
}

export class LedgerQueue<O, R> {
  readonly #send: (batch: Array<Queued<O>>) => Promise<void> | undefined;
  readonly #maxInFlight: number;
  readonly #waiting = new Map<number, Waiting<R>>();
  #queue: Array<Queued<O>> = [];
  #seq = 0;
  #inFlight = 0;
  #immediate: NodeJS.Immediate | undefined;
  #lingerTimer: NodeJS.Timeout | undefined;

  /**
   * `send` writes a batch and answers each operation through `answer` (later, by its seq); when it
   * returns a promise, at most `maxInFlight` batches are out at once.
   */
  constructor(send: (batch: Array<Queued<O>>) => Promise<void> | undefined, maxInFlight = Number.POSITIVE_INFINITY) {
    this.#send = send;
    this.#maxInFlight = maxInFlight;
  }

  /** Operations waiting for their reply, sent or not. */
  get waiting(): number {
    return this.#waiting.size;
  }

  submit(operation: O, linger = false): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      const seq = ++this.#seq;
      this.#waiting.set(seq, { resolve, reject });
      this.#queue.push({ seq, operation });
      if (!linger) this.#immediate ??= setImmediate(this.flush);
      else this.#lingerTimer ??= setTimeout(this.flush, LINGER_MS);
    });
  }

  answer(seq: number, reply: R): void {
    const waiting = this.#waiting.get(seq);
    this.#waiting.delete(seq);
    waiting?.resolve(reply);
  }

  fail(seq: number, error: Error): void {
    const waiting = this.#waiting.get(seq);
    this.#waiting.delete(seq);
    waiting?.reject(error);
  }

  /** Every operation not answered fails, those not yet sent included (they will not be sent). */
  failAll(error: Error): void {
    this.#queue = [];
    for (const waiting of this.#waiting.values()) waiting.reject(error);
    this.#waiting.clear();
  }

  /** Sends what is queued now (unless the limit of batches in flight is reached: then after one returns). */
  readonly flush = (): void => {
    clearImmediate(this.#immediate);
    clearTimeout(this.#lingerTimer);
    this.#immediate = undefined;
    this.#lingerTimer = undefined;
    if (this.#queue.length === 0 || this.#inFlight >= this.#maxInFlight) return;
    const batch = this.#queue;
    this.#queue = [];
    const sent = this.#send(batch);
    if (!sent) return;
    this.#inFlight++;
    void sent.finally(() => {
      this.#inFlight--;
      this.flush();
    });
  };
}
