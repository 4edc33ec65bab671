import { write as fsWrite, writeSync } from 'node:fs';

/**
 * The destination of the log lines (pino's, and the access log's): lines are kept in memory and
 * written to the file descriptor in batches, asynchronously, once `minBytes` have gathered, and on
 * `flush()` (a timer calls it on a quiet server).
 *
 * Written here rather than with pino's own destination (sonic-boom) because that one measures the
 * UTF-8 length of its whole pending buffer on every line (`Buffer.byteLength` of a string up to 16
 * KiB): 2.7 µs per line in a tight loop, more than the line costs to format. Here a line costs an
 * array push. The threshold counts UTF-16 units, a close enough stand-in for bytes.
 */
export class BatchedLogWriter {
  readonly #fd: number;
  readonly #minBytes: number;
  readonly #maxPendingBytes: number;
  #pending: string[] = [];
  #pendingLength = 0;
  #writing = false;
  #dropped = 0;
  #flushed: Array<(error?: Error) => void> = [];

  /** `maxPendingBytes`: what may wait in memory while the destination does not take it; lines beyond are dropped (and counted). */
  constructor(fd: number, options: { minBytes?: number; maxPendingBytes?: number } = {}) {
    this.#fd = fd;
    this.#minBytes = options.minBytes ?? 4096;
    this.#maxPendingBytes = options.maxPendingBytes ?? 64 * 1024 * 1024;
  }

  /** pino's destination interface. */
  write(line: string): boolean {
    if (this.#pendingLength >= this.#maxPendingBytes) {
      this.#dropped++;
      return false;
    }
    this.#pending.push(line);
    this.#pendingLength += line.length;
    if (!this.#writing && this.#pendingLength >= this.#minBytes) this.#startWrite();
    return true;
  }

  /**
   * Starts writing whatever is pending (unless a write is under way: it continues with the rest);
   * `done` is called once everything written before this call has left (pino's `logger.flush(cb)`).
   */
  flush(done?: (error?: Error) => void): void {
    if (done) this.#flushed.push(done);
    if (!this.#writing) this.#startWrite();
    if (!this.#writing) this.#settleFlushes();
  }

  /**
   * At exit: what is pending, written synchronously. A batch already handed to an asynchronous write
   * cannot be waited for here; it completes or not as the process ends.
   */
  flushSync(): void {
    const buffer = this.#takePending();
    let offset = 0;
    while (buffer && offset < buffer.length) {
      try {
        offset += writeSync(this.#fd, buffer, offset, buffer.length - offset);
      } catch (error) {
        // A non-blocking pipe that is full: try again; anything else, give up (logging never throws).
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') return;
      }
    }
  }

  #takePending(): Buffer | undefined {
    if (this.#pending.length === 0 && this.#dropped === 0) return undefined;
    if (this.#dropped > 0) {
      this.#pending.push(`{"level":40,"time":"${new Date().toISOString()}","msg":"${this.#dropped} log lines were dropped: the log destination did not keep up"}\n`);
      this.#dropped = 0;
    }
    const buffer = Buffer.from(this.#pending.join(''), 'utf8');
    this.#pending = [];
    this.#pendingLength = 0;
    return buffer;
  }

  #startWrite(): void {
    const buffer = this.#takePending();
    if (buffer) this.#writeFrom(buffer, 0);
  }

  #writeFrom(buffer: Buffer, offset: number): void {
    this.#writing = true;
    fsWrite(this.#fd, buffer, offset, buffer.length - offset, null, (error, written) => {
      if (error) {
        // A non-blocking pipe that is full: the same bytes again shortly. Anything else (the reader
        // went away): this batch is lost, and logging goes on; it must never stop the gateway.
        if (error.code === 'EAGAIN') {
          setTimeout(() => this.#writeFrom(buffer, offset), 10).unref();
          return;
        }
        this.#writing = false;
        this.#afterWrite();
        return;
      }
      if (offset + written < buffer.length) {
        this.#writeFrom(buffer, offset + written);
        return;
      }
      this.#writing = false;
      this.#afterWrite();
    });
  }

  #afterWrite(): void {
    // Lines that came during the write: on with them if there are enough, or if a flush waits.
    if (this.#pendingLength >= this.#minBytes || (this.#flushed.length > 0 && this.#pending.length > 0)) this.#startWrite();
    if (!this.#writing) this.#settleFlushes();
  }

  #settleFlushes(): void {
    for (const done of this.#flushed.splice(0)) done();
  }
}
