import { Transform, type TransformCallback } from 'node:stream';
import { BlobSizeError } from '../../ports/blob-store.port.ts';

/** Passes a stream through while counting it: more than `expected` bytes, or fewer at the end, is a BlobSizeError. */
export function countBytes(expected: number): Transform {
  let received = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      received += chunk.length;
      if (received > expected) callback(new BlobSizeError(expected, received));
      else callback(null, chunk);
    },
    flush(callback: TransformCallback) {
      callback(received === expected ? null : new BlobSizeError(expected, received));
    },
  });
}
