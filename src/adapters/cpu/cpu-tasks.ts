/** The gateway's CPU tasks (src/ports/cpu-pool.port.ts) and how long each may run. */
import { countLocalInputTokens } from '../../domain/chat/local-tokens.ts';
import { approximatePromptTokens } from '../../domain/chat/token-count.estimator.ts';
import { countMaskPixels } from '../../domain/files/mask-pixels.ts';
import { inspectPdf } from '../../domain/files/pdf-inspect.ts';
import { inspectText } from '../../domain/files/text-file.ts';
import { parseJsonText } from '../../domain/json-text.ts';
import type { CpuTaskCatalog } from '../../ports/cpu-pool.port.ts';
import { readEmbeddingsAnswerPacked } from '../../protocols/openai-embeddings/openai-embeddings.answer.ts';
import { encodeFloatEmbeddingsBody } from '../../protocols/openai-embeddings/openai-embeddings.float-body.ts';
import type { TaskImplementations, TaskOutputTransfers } from './serve-tasks.ts';

export const CPU_TASKS: TaskImplementations<CpuTaskCatalog> = {
  parseJson: ({ parts, limits }) => parseJsonText(new TextDecoder().decode(Buffer.concat(parts)), limits),
  inspectPdf: ({ bytes, maxChars }) => inspectPdf(bytes, maxChars),
  inspectText: ({ bytes, json, maxChars }) => inspectText(bytes, json, maxChars),
  countMaskPixels: ({ grey }) => countMaskPixels(grey),
  encodeEmbeddings: (body) => encodeFloatEmbeddingsBody(body),
  decodeEmbeddings: ({ parts, count, dimensions }) => readEmbeddingsAnswerPacked(parts, count, dimensions),
  countPromptTokens: ({ request, tokenizer }) => (tokenizer === 'local' ? countLocalInputTokens(request) : approximatePromptTokens(request)),
};

/** Large outputs go back to the event loop without a copy (67 MB of JSON, 12.6 MB of vectors at the bound). */
export const CPU_TASK_TRANSFERS: TaskOutputTransfers<CpuTaskCatalog> = {
  encodeEmbeddings: (bytes) => [bytes.buffer as ArrayBuffer],
  decodeEmbeddings: (read) => (read.ok ? [read.values.buffer as ArrayBuffer] : []),
};

/**
 * Deadlines with a wide margin over legitimate input at each limit, measured on this machine: a
 * 32 MiB body parses in about 0.1 s, 25 MiB of text or a 25 MiB PDF (64 MiB inflated at most) is
 * read in well under a second, a 4096×4096 mask is counted in 20 ms, the largest embeddings answer
 * (3,145,728 floats, 67 MB of JSON) is written in about half a second (and read back from an
 * upstream's floats in about as long), the most text count_tokens
 * takes (8 MiB) is counted in about 0.15 s.
 */
export const CPU_TASK_DEADLINES_MS: Readonly<Record<keyof CpuTaskCatalog, number>> = {
  parseJson: 5_000,
  inspectPdf: 20_000,
  inspectText: 10_000,
  countMaskPixels: 5_000,
  encodeEmbeddings: 15_000,
  decodeEmbeddings: 15_000,
  countPromptTokens: 5_000,
};
