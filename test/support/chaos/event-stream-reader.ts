/**
 * An agent conversation's event stream read as a browser's EventSource does: through the front, and
 * after the stream ends, again with Last-Event-ID after the `retry:` delay the server gave. What it
 * records is what a reader would notice: a refused or failed (re)connection, a stream that ended
 * without a retry hint, an event seen twice or out of order.
 */
export class EventStreamReader {
  /** Sequences in the order they arrived. */
  readonly sequences: number[] = [];
  readonly failures: string[] = [];
  connections = 0;
  /** Streams the server ended with a `retry:` hint (a process shutting down). */
  endedWithRetryHint = 0;
  readonly #url: string;
  readonly #key: string;
  readonly #stop = new AbortController();
  #loop: Promise<void> | undefined;

  constructor(frontUrl: string, key: string, conversationId: string) {
    this.#url = `${frontUrl}/api/v1/agent/conversations/${conversationId}/events`;
    this.#key = key;
  }

  start(): void {
    this.#loop = this.#run();
  }

  async stop(): Promise<void> {
    this.#stop.abort();
    await this.#loop;
  }

  async #run(): Promise<void> {
    let retryMs = 1000;
    while (!this.#stop.signal.aborted) {
      const last = this.sequences.at(-1);
      let hinted = false;
      let frames = 0;
      try {
        this.connections += 1;
        const res = await fetch(this.#url, {
          headers: { authorization: `Bearer ${this.#key}`, accept: 'text/event-stream', ...(last !== undefined ? { 'last-event-id': String(last) } : {}) },
          signal: this.#stop.signal,
        });
        if (res.status !== 200 || !res.body) {
          this.failures.push(`connection ${this.connections}: ${res.status} ${await res.text()}`);
        } else {
          let buffered = '';
          const decoder = new TextDecoder();
          for await (const chunk of res.body) {
            buffered += decoder.decode(chunk as Uint8Array, { stream: true });
            let cut = buffered.indexOf('\n\n');
            while (cut >= 0) {
              const frame = buffered.slice(0, cut);
              buffered = buffered.slice(cut + 2);
              cut = buffered.indexOf('\n\n');
              for (const line of frame.split('\n')) {
                if (line.startsWith('retry:')) {
                  retryMs = Number(line.slice(6).trim());
                  // The first frame of every stream is a retry hint too: only one after it counts.
                  hinted = frames > 0;
                } else if (line.startsWith('id:')) {
                  this.#record(Number(line.slice(3).trim()));
                  hinted = false;
                }
              }
              frames += 1;
            }
          }
          if (!this.#stop.signal.aborted) {
            if (hinted) this.endedWithRetryHint += 1;
            else this.failures.push(`connection ${this.connections} ended without a retry hint`);
          }
        }
      } catch (error) {
        if (!this.#stop.signal.aborted) this.failures.push(`connection ${this.connections}: ${(error as Error).message} ${String((error as Error).cause ?? '')}`);
      }
      if (!this.#stop.signal.aborted) await new Promise((r) => setTimeout(r, retryMs));
    }
  }

  #record(sequence: number): void {
    const last = this.sequences.at(-1);
    if (last !== undefined && sequence <= last) this.failures.push(`event ${sequence} after ${last}: seen twice or out of order`);
    this.sequences.push(sequence);
  }
}
