/**
 * How large an upstream's embeddings answer may be, and where it is read. The limit follows what was
 * asked (inputs × dimensions, at most MAX_EMBEDDING_VALUES): a value printed as a float, with the
 * indentation OpenAI's answers carry, is at most about 40 bytes (base64 takes 5.4), so an answer past
 * that is not an answer to this request. At the bound that is about 126 MB of floats, whose JSON.parse
 * alone held the event loop for a few hundred milliseconds: an answer past 1 MiB is read in the CPU
 * pool, its chunks first copied into 4 MiB segments with a turn of the loop between them (the chunks
 * are the HTTP client's, not ours to hand over), the vectors coming back in one buffer.
 */
import { isInputTooCostly, type CpuPool } from '../../../ports/cpu-pool.port.ts';
import { readEmbeddingsAnswer } from '../../../protocols/openai-embeddings/openai-embeddings.answer.ts';
import type { Embeddings } from '../embedding-provider.ts';

const MAX_FLOAT_BYTES = 40;
const ITEM_OVERHEAD_BYTES = 256;
const ANSWER_OVERHEAD_BYTES = 64 * 1024;
/** Answers up to 1 MiB (about 40,000 floats) are read here: a few milliseconds. */
const READ_ON_LOOP_BYTES = 1024 * 1024;
const SEGMENT_BYTES = 4 * 1024 * 1024;

/** The most bytes an answer of `count` vectors of `dimensions` may take, floats or base64 (a server may answer floats when asked base64). */
export function embeddingAnswerLimit(count: number, dimensions: number): number {
  return ANSWER_OVERHEAD_BYTES + count * (ITEM_OVERHEAD_BYTES + dimensions * MAX_FLOAT_BYTES);
}

/** The vectors and usage (-1: none reported), or what is wrong (a phrase after "The upstream's embeddings answer"). */
export async function readEmbeddingsBytes(answer: { parts: Buffer[]; size: number }, count: number, dimensions: number, cpu: CpuPool | undefined): Promise<Embeddings | string> {
  if (answer.size <= READ_ON_LOOP_BYTES || !cpu) return readEmbeddingsAnswer(Buffer.concat(answer.parts, answer.size).toString('utf8'), count, dimensions);
  const parts = await segments(answer.parts, answer.size);
  try {
    const read = await cpu.run('decodeEmbeddings', { parts, count, dimensions }, { transfer: parts.map((p) => p.buffer as ArrayBuffer) });
    if (!read.ok) return read.problem;
    const vectors = Array.from({ length: count }, (_, i) => read.values.subarray(i * dimensions, (i + 1) * dimensions));
    return { vectors, promptTokens: read.promptTokens };
  } catch (error) {
    if (isInputTooCostly(error)) return `could not be read within the gateway's limits (${error.reason})`;
    return `could not be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The chunks copied into segments of our own, one segment per turn of the loop. */
async function segments(chunks: Buffer[], size: number): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  let segment = new Uint8Array(Math.min(SEGMENT_BYTES, size));
  let at = 0;
  let left = size;
  for (const chunk of chunks) {
    let from = 0;
    while (from < chunk.length) {
      const n = Math.min(chunk.length - from, segment.length - at);
      segment.set(chunk.subarray(from, from + n), at);
      at += n;
      from += n;
      if (at === segment.length) {
        out.push(segment);
        left -= at;
        at = 0;
        if (left > 0) {
          await new Promise((resolve) => setImmediate(resolve));
          segment = new Uint8Array(Math.min(SEGMENT_BYTES, left));
        }
      }
    }
  }
  return out;
}
