/**
 * The body of an embeddings answer. A float answer of more than one piece (32,768 values) is written
 * whole in the CPU pool (openai-embeddings.float-body.ts) and its bytes sent as they come back: printing
 * millions of floats is about 0.2 µs each, 0.6 s for the largest answer, which in pieces on the event
 * loop still held it for about a second in all. base64 is a byte copy per vector and stays here, in
 * pieces. The money is settled before this runs, so a pool that cannot take the task (busy, closing,
 * past its deadline) makes no error: the answer is then written here in pieces, as before.
 */
import { Readable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { type CpuPool, isTaskError } from '../ports/cpu-pool.port.ts';
import { type EmbeddingsAnswer, renderOpenAiEmbeddings, VALUES_PER_PIECE } from '../protocols/openai-embeddings/openai-embeddings.response.ts';

export async function embeddingsBody(answer: EmbeddingsAnswer, cpu: CpuPool, logger: FastifyBaseLogger): Promise<Buffer | Readable> {
  const dimensions = answer.vectors[0]?.length ?? 0;
  const values = answer.vectors.length * dimensions;
  if (answer.encoding === 'base64' || values <= VALUES_PER_PIECE) return pieces(answer);
  // One buffer of every vector, handed to the thread without a copy; the answer's own vectors stay
  // whole for the fallback.
  const packed = new Float32Array(values);
  for (const [i, vector] of answer.vectors.entries()) packed.set(vector, i * dimensions);
  try {
    const bytes = await cpu.run('encodeEmbeddings', { values: packed, dimensions, model: answer.model, promptTokens: answer.promptTokens }, { transfer: [packed.buffer] });
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (error) {
    if (!isTaskError(error)) throw error;
    logger.warn({ reason: error.reason, values }, 'the CPU pool did not write an embeddings answer; written on the event loop in pieces');
    return pieces(answer);
  }
}

function pieces(answer: EmbeddingsAnswer): Readable {
  return Readable.from(renderOpenAiEmbeddings(answer), { objectMode: false });
}
