/**
 * JSON request bodies, as both the Fastify routes and the chat lane read them: prototype poisoning
 * refused (secure-json-parse), nesting bounded before anything walks the value (a body of thousands of
 * nested arrays is a 400 here instead of a stack overflow in recursive code later), and the number of
 * values bounded (src/domain/json-text.ts).
 *
 * Small bodies are read on the event loop: up to INLINE_JSON_BYTES, with the values bounded, that is a
 * few milliseconds at most. Larger ones (pictures in base64, up to a route's limit) arrive as the
 * segments they were gathered in (body-segments.ts), never joined on the loop, and are handed to the
 * CPU pool without a copy, where they are joined, decoded, checked and parsed; the value comes back by
 * structured clone, and with the values bounded that copy is cheap too (a 30 MB string arrives in
 * about 15 ms).
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
  if (!result.ok) throw refusal(result);
  return result.value;
}

/**
 * A body as received (its parts in order), answered through `done` (the shape of Fastify's content-type
 * parsers): a small one at once, without a promise, the common case on the hot path; a large one from
 * the CPU pool.
 */
export function parseJsonParts(parts: Buffer[], cpu: CpuPool, done: (error: Error | null, value?: unknown) => void): void {
  if (sizeOf(parts) > INLINE_JSON_BYTES) {
    readJsonBody(parts, cpu).then(
      (value) => done(null, value),
      (error: unknown) => done(error as Error),
    );
    return;
  }
  let value: unknown;
  try {
    value = parseJsonBody(textOf(parts));
  } catch (error) {
    done(error as Error);
    return;
  }
  done(null, value);
}

/**
 * A body as received: one Buffer, or the parts BodySegments gathered (each the start of an ArrayBuffer
 * of its own). When it goes to the pool the parts' buffers are handed over without a copy (a single
 * Buffer's only when it is its whole ArrayBuffer), so the caller must not reuse them.
 */
export async function readJsonBody(body: Buffer | Buffer[], cpu: CpuPool): Promise<unknown> {
  const parts = Array.isArray(body) ? body : [body];
  if (sizeOf(parts) <= INLINE_JSON_BYTES) return parseJsonBody(textOf(parts));
  const owned = Array.isArray(body) ? parts : parts.filter((part) => part.byteOffset === 0 && part.byteLength === part.buffer.byteLength);
  const transfer = owned.map((part) => part.buffer).filter((buffer) => buffer instanceof ArrayBuffer);
  let result: Awaited<ReturnType<typeof parseJsonText>>;
  try {
    result = await cpu.run('parseJson', { parts, limits: JSON_BODY_LIMITS }, { transfer });
  } catch (error) {
    throw bodyTaskError(error);
  }
  if (!result.ok) throw refusal(result);
  return result.value;
}

function refusal(result: { message: string; param?: string }): AppError {
  return new AppError('invalid_input', result.message, result.param === undefined ? {} : { param: result.param });
}

function sizeOf(parts: Buffer[]): number {
  let size = 0;
  for (const part of parts) size += part.length;
  return size;
}

/** A small body's text (a single part, the common case, without a copy). */
function textOf(parts: Buffer[]): string {
  if (parts.length === 1) return (parts[0] as Buffer).toString('utf8');
  return Buffer.concat(parts).toString('utf8');
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
