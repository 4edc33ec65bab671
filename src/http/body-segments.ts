/**
 * A request body gathered as it arrives, in segments of at most SEGMENT_BYTES, each copied into as its
 * chunks come. Why not the chunks and one Buffer.concat at the end: on a fresh 16 MiB buffer the copy
 * faults in every page at once, and on a busy machine that single call held the loop for 20 to 70 ms
 * (bench/json-body.ts). Here the same copying is spread over the chunks' own turns of the loop, and a
 * large body goes to the CPU pool as its segments, handed over without a copy (json-body.ts).
 */
export const SEGMENT_BYTES = 1024 * 1024;
/** The first segment of a body of unknown length; later ones grow up to SEGMENT_BYTES. */
const FIRST_SEGMENT_BYTES = 16 * 1024;

export class BodySegments {
  /** Bytes received so far. */
  size = 0;
  readonly #declared: number;
  readonly #full: Buffer[] = [];
  #current: Buffer | undefined;
  #used = 0;

  /** `declared`: the Content-Length when the request gave one (the segments are sized to it). */
  constructor(declared?: number) {
    this.#declared = declared !== undefined && Number.isSafeInteger(declared) && declared > 0 ? declared : 0;
  }

  push(chunk: Uint8Array): void {
    let from = 0;
    while (from < chunk.length) {
      if (!this.#current || this.#used === this.#current.length) this.#open(chunk.length - from);
      const current = this.#current as Buffer;
      const n = Math.min(current.length - this.#used, chunk.length - from);
      current.set(chunk.subarray(from, from + n), this.#used);
      this.#used += n;
      this.size += n;
      from += n;
    }
  }

  /**
   * The body's segments, each a view from the start of an ArrayBuffer of its own (so that the buffer
   * can be handed to a thread whole). The collector is empty after.
   */
  take(): Buffer[] {
    const parts = this.#full.splice(0);
    if (this.#current && this.#used > 0) parts.push(this.#current.subarray(0, this.#used));
    this.#current = undefined;
    this.#used = 0;
    return parts;
  }

  /** A new segment for at least the first byte of `next` more: the rest of a declared length, else growing. */
  #open(next: number): void {
    const previous = this.#current;
    if (previous) this.#full.push(previous);
    const remaining = this.#declared - this.size;
    const size = Math.min(SEGMENT_BYTES, remaining >= next ? remaining : Math.max(next, FIRST_SEGMENT_BYTES, (previous?.length ?? 0) * 2));
    // Not zero-filled (every byte is written before it is read), and its own ArrayBuffer, not the pool's.
    this.#current = Buffer.allocUnsafeSlow(size);
    this.#used = 0;
  }
}
