import { Transform, type TransformCallback } from 'node:stream';
import { BlobSizeError } from '../../ports/blob-store.port.ts';

/**
 * Passes a stream through while counting it: more than `expected` bytes, or fewer at the end, is a
 * BlobSizeError. The last chunk is held back until the stream has ended, so a receiver that takes
 * exactly `expected` bytes (an HTTP request with that Content-Length) never gets a complete body from
 * a stream that turns out too long.
 */
export function countBytes(expected: number): Transform {
  let received = 0;
  let held: Buffer | undefined;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      received += chunk.length;
      if (received > expected) {
        callback(new BlobSizeError(expected, received));
        return;
      }
      const previous = held;
      held = chunk;
      callback(null, previous);
    },
    flush(callback: TransformCallback) {
      if (received !== expected) callback(new BlobSizeError(expected, received));
      else callback(null, held);
    },
  });
}
