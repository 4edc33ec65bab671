/**
 * JSON request bodies, as both the Fastify routes and the chat lane read them: prototype poisoning
 * refused (secure-json-parse), nesting bounded before anything walks the value (a body of thousands of
 * nested arrays is a 400 here instead of a stack overflow in recursive code later), and the number of
 * values bounded (src/domain/json-text.ts).
 *
 * Small bodies are read on the event loop: up to INLINE_JSON_BYTES, with the values bounded, that is a
 * few milliseconds at most. Larger ones (pictures in base64, up to a route's limit) are decoded, checked
 * and parsed in the CPU pool, and the value comes back by structured clone; with the values bounded the
 * copy is cheap too (a 30 MB string arrives in about 15 ms).
 */
import { AppError } from '../domain/errors.ts';
import { type JsonTextLimits, parseJsonText } from '../domain/json-text.ts';
import { type CpuPool, isTaskError } from '../ports/cpu-pool.port.ts';

/** Far beyond any real request (a tool's JSON schema is rarely ten levels deep). */
export const MAX_JSON_DEPTH = 128;
/** Far beyond any real request too: a 2,000-message chat with tool calls holds about 20,000. */
export const MAX_JSON_VALUES = 100_000;
export const JSON_BODY_LIMITS: JsonTextLimits = { maxDepth: MAX_JSON_DEPTH, maxValues: MAX_JSON_VALUES };
/** Bodies above this size are parsed in the CPU pool. */
export const INLINE_JSON_BYTES = 1024 * 1024;

export function parseJsonBody(text: string): unknown {
  const result = parseJsonText(text, JSON_BODY_LIMITS);
  if (!result.ok) throw new AppError('invalid_input', result.message);
  return result.value;
}

/**
 * A body as received, answered through `done` (the shape of Fastify's content-type parsers): a small one
 * at once, without a promise, the common case on the hot path; a large one from the CPU pool.
 */
export function parseJsonBuffer(body: Buffer, cpu: CpuPool, done: (error: Error | null, value?: unknown) => void): void {
  if (body.length > INLINE_JSON_BYTES) {
    readJsonBody(body, cpu).then(
      (value) => done(null, value),
      (error: unknown) => done(error as Error),
    );
    return;
  }
  let value: unknown;
  try {
    value = parseJsonBody(body.toString('utf8'));
  } catch (error) {
    done(error as Error);
    return;
  }
  done(null, value);
}

/** A body as received; when it goes to the pool its buffer is handed over, so the caller must not reuse it. */
export async function readJsonBody(body: Buffer, cpu: CpuPool): Promise<unknown> {
  if (body.length <= INLINE_JSON_BYTES) return parseJsonBody(body.toString('utf8'));
  const whole = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength && body.buffer instanceof ArrayBuffer;
  let result: Awaited<ReturnType<typeof parseJsonText>>;
  try {
    result = await cpu.run('parseJson', { bytes: body, limits: JSON_BODY_LIMITS }, whole ? { transfer: [body.buffer] } : {});
  } catch (error) {
    throw bodyTaskError(error);
  }
  if (!result.ok) throw new AppError('invalid_input', result.message);
  return result.value;
}

function bodyTaskError(error: unknown): unknown {
  if (!isTaskError(error)) return error;
  switch (error.reason) {
    case 'deadline':
    case 'memory':
      return new AppError('payload_too_large', 'the JSON body is too costly to read; send a smaller or simpler one', { cause: error });
    case 'busy':
    case 'closed':
      return new AppError('service_unavailable', 'the server is busy reading other large requests; try again shortly', { retryAfter: 1, cause: error });
    case 'crashed':
      return error;
  }
}
