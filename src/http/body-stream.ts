/**
 * A request body read from its stream into segments (body-segments.ts), with the route's limit: what
 * Fastify's own `parseAs: 'buffer'` reading does (the same 413 on a declared or received length over
 * the limit, the same 400 on a body that ends short), without its Buffer.concat of the whole body on
 * the event loop.
 */
import type { Readable } from 'node:stream';
import { AppError } from '../domain/errors.ts';
import { payloadTooLarge } from './body-limits.ts';
import { BodySegments } from './body-segments.ts';

export function readBodyParts(stream: Readable, declaredLength: string | undefined, limit: number, done: (error: Error | null, parts?: Buffer[]) => void): void {
  const declared = declaredLength === undefined ? Number.NaN : Number(declaredLength);
  if (declared > limit) {
    done(payloadTooLarge());
    return;
  }
  const body = new BodySegments(declared);
  const stop = () => {
    stream.off('data', onData);
    stream.off('end', onEnd);
    stream.off('error', onError);
  };
  const onData = (chunk: Buffer | string) => {
    const bytes = typeof chunk === 'string' ? Buffer.from(chunk) : chunk;
    if (body.size + bytes.length > limit) {
      stop();
      body.take();
      done(payloadTooLarge());
      return;
    }
    body.push(bytes);
  };
  const onEnd = () => {
    stop();
    if (!Number.isNaN(declared) && body.size !== declared) {
      done(new AppError('invalid_input', 'the request body is shorter or longer than its Content-Length'));
      return;
    }
    done(null, body.take());
  };
  const onError = (error: Error) => {
    stop();
    done(new AppError('invalid_input', 'the request body could not be read', { cause: error }));
  };
  stream.on('data', onData);
  stream.on('end', onEnd);
  stream.on('error', onError);
  stream.resume();
}
