/**
 * Request bodies gathered in segments (body-segments.ts, body-stream.ts): a large body never exists
 * as one buffer on the event loop; it reaches the CPU pool as its segments, handed over without a
 * copy, and comes back parsed; the route's limit is kept as Fastify kept it (413 on a declared or a
 * received length over it, 400 on a body that ends short of its declared length).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { PassThrough } from 'node:stream';
import { after, describe, test } from 'node:test';
import { CPU_TASK_DEADLINES_MS } from '../../../src/adapters/cpu/cpu-tasks.ts';
import { ThreadPool } from '../../../src/adapters/cpu/thread-pool.ts';
import { AppError } from '../../../src/domain/errors.ts';
import { BodySegments, SEGMENT_BYTES } from '../../../src/http/body-segments.ts';
import { readBodyParts } from '../../../src/http/body-stream.ts';
import { readJsonBody } from '../../../src/http/json-body.ts';
import type { CpuTaskCatalog } from '../../../src/ports/cpu-pool.port.ts';

const pool = new ThreadPool<CpuTaskCatalog>({ script: new URL('../../../src/adapters/cpu/cpu-worker.ts', import.meta.url), deadlineMs: (kind) => CPU_TASK_DEADLINES_MS[kind as keyof CpuTaskCatalog] });
after(() => pool.close());

/** `bytes` cut into chunks of `size` (the last shorter), as a socket delivers them. */
function chunked(bytes: Buffer, size: number): Buffer[] {
  const chunks: Buffer[] = [];
  for (let i = 0; i < bytes.length; i += size) chunks.push(bytes.subarray(i, i + size));
  return chunks;
}

function gathered(bytes: Buffer, chunkSize: number, declared?: number): Buffer[] {
  const body = new BodySegments(declared);
  for (const chunk of chunked(bytes, chunkSize)) body.push(chunk);
  assert.equal(body.size, bytes.length);
  return body.take();
}

/** What readBodyParts answers for `chunks` written to a stream that stands in for the request. */
function readFrom(chunks: Buffer[], declared: string | undefined, limit: number, endEarly = false): Promise<{ error: Error | null; parts?: Buffer[] }> {
  const stream = new PassThrough();
  const answer = new Promise<{ error: Error | null; parts?: Buffer[] }>((resolve) => readBodyParts(stream, declared, limit, (error, parts) => resolve({ error, ...(parts ? { parts } : {}) })));
  for (const chunk of chunks) stream.write(chunk);
  if (endEarly) stream.destroy(new Error('aborted'));
  else stream.end();
  return answer;
}

describe('request bodies in segments', () => {
  test('a body of unknown length is kept whole, in segments of at most 1 MiB, each from the start of its own buffer', () => {
    const bytes = randomBytes(5 * SEGMENT_BYTES + 12_345);
    for (const chunkSize of [1, 1000, 65_536, 3 * SEGMENT_BYTES]) {
      const parts = gathered(chunkSize === 1 ? bytes.subarray(0, 50_000) : bytes, chunkSize);
      const expected = chunkSize === 1 ? bytes.subarray(0, 50_000) : bytes;
      assert.ok(Buffer.concat(parts).equals(expected), `chunks of ${chunkSize}`);
      for (const part of parts) {
        assert.ok(part.buffer.byteLength <= SEGMENT_BYTES, `a segment of ${part.buffer.byteLength} bytes`);
        assert.equal(part.byteOffset, 0);
      }
    }
  });

  test('a declared length sizes the segments to it: a small body is one buffer of its size', () => {
    const small = Buffer.from('{"model":"m","messages":[]}');
    const parts = gathered(small, 7, small.length);
    assert.equal(parts.length, 1);
    assert.equal(parts[0]?.buffer.byteLength, small.length);
    const large = randomBytes(3 * SEGMENT_BYTES + 10);
    const segments = gathered(large, 65_536, large.length);
    assert.deepEqual(
      segments.map((part) => part.buffer.byteLength),
      [SEGMENT_BYTES, SEGMENT_BYTES, SEGMENT_BYTES, 10],
    );
    assert.ok(Buffer.concat(segments).equals(large));
  });

  test('a large body goes to the pool as its segments, handed over, and comes back parsed', async () => {
    const picture = randomBytes(3 * SEGMENT_BYTES).toString('base64');
    const body = { model: 'm', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: `data:image/png;base64,${picture}` } }, { type: 'text', text: 'é ✓ 🦊' }] }] };
    // Chunks of an odd size so that a multi-byte character is split between two segments somewhere.
    const text = Buffer.from(JSON.stringify(body));
    const parts = gathered(text, 65_537);
    assert.ok(parts.length > 1);
    assert.deepEqual(await readJsonBody(parts, pool), body);
    for (const part of parts) assert.equal(part.buffer.byteLength, 0, 'each segment was handed to the thread, not copied');
    const tiny = gathered(Buffer.from(`{"a":[${'[],'.repeat(2 * SEGMENT_BYTES / 3)}[]]}`), 65_536);
    await assert.rejects(readJsonBody(tiny, pool), (error: unknown) => error instanceof AppError && error.status === 400 && /holds more than 100000 values/.test(error.message));
  });

  test("a stream's body is read within the route's limit, as Fastify read it", async () => {
    const bytes = randomBytes(200_000);
    const read = await readFrom(chunked(bytes, 65_536), String(bytes.length), 1024 * 1024);
    assert.equal(read.error, null);
    assert.ok(Buffer.concat(read.parts ?? []).equals(bytes));
    const unknownLength = await readFrom(chunked(bytes, 65_536), undefined, 1024 * 1024);
    assert.ok(Buffer.concat(unknownLength.parts ?? []).equals(bytes));

    const declaredOver = await readFrom([], String(2 * 1024 * 1024), 1024 * 1024);
    assert.ok(declaredOver.error instanceof AppError);
    assert.deepEqual([declaredOver.error.status, declaredOver.error.code], [413, 'payload_too_large']);
    const receivedOver = await readFrom(chunked(randomBytes(1024 * 1024 + 1), 65_536), undefined, 1024 * 1024);
    assert.ok(receivedOver.error instanceof AppError);
    assert.equal(receivedOver.error.status, 413);

    const short = await readFrom([bytes.subarray(0, 1000)], String(bytes.length), 1024 * 1024);
    assert.ok(short.error instanceof AppError);
    assert.equal(short.error.status, 400);
    const aborted = await readFrom([bytes.subarray(0, 1000)], String(bytes.length), 1024 * 1024, true);
    assert.ok(aborted.error instanceof AppError);
    assert.equal(aborted.error.status, 400);
  });
});
