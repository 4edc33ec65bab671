/**
 * CPU work on user input (parse, decode, extract) off the event loop (issue 17, item 12): a service
 * hands a task to the pool and awaits its answer; each task runs on a worker thread with a deadline
 * and a memory limit, so no request holds the loop that every tenant shares. Built once in the
 * composition root (src/gateway.ts) and passed down; the threads start on first use.
 */
import type { ChatRequest } from '../domain/chat/chat-request.types.ts';
import type { MaskCounts } from '../domain/files/mask-pixels.ts';
import type { PdfInspection } from '../domain/files/pdf-inspect.ts';
import type { TextInspection } from '../domain/files/text-file.ts';
import type { JsonTextLimits, JsonTextResult } from '../domain/json-text.ts';
import type { PackedEmbeddings } from '../protocols/openai-embeddings/openai-embeddings.answer.ts';
import type { FloatEmbeddingsBody } from '../protocols/openai-embeddings/openai-embeddings.float-body.ts';

/** Which of the gateway's counters: the local model's tokenizer, or the approximate count. */
export type PromptTokenizer = 'local' | 'approximate';

/** A catalog of tasks: kind → what it takes and what it gives back (both structured-cloneable). */
export type TaskCatalog = Record<string, { input: unknown; output: unknown }>;

/** The gateway's tasks. Expected refusals are values in the output, never thrown. */
export type CpuTaskCatalog = {
  /** A large JSON request body, in the parts it was received in (src/http/json-body.ts). */
  parseJson: { input: { parts: Uint8Array[]; limits: JsonTextLimits }; output: JsonTextResult };
  /** An uploaded PDF: structure, pages and the text a run reads. */
  inspectPdf: { input: { bytes: Uint8Array; maxChars: number }; output: PdfInspection };
  /** An uploaded text or JSON file: UTF-8, no NUL, JSON syntax, and the text a run reads. */
  inspectText: { input: { bytes: Uint8Array; json: boolean; maxChars: number }; output: TextInspection };
  /** A mask's decoded grey levels counted near white and near black. */
  countMaskPixels: { input: { grey: Uint8Array }; output: MaskCounts };
  /** A large float embeddings answer, written whole as JSON bytes (handed back without a copy). */
  encodeEmbeddings: { input: FloatEmbeddingsBody; output: Uint8Array };
  /** A large upstream embeddings answer, in the segments it was gathered in: its vectors end to end, or what is wrong with it. */
  decodeEmbeddings: { input: { parts: Uint8Array[]; count: number; dimensions: number }; output: PackedEmbeddings };
  /** A large prompt's input tokens (count_tokens), without its pictures' data. */
  countPromptTokens: { input: { request: ChatRequest; tokenizer: PromptTokenizer }; output: number };
};

export interface TaskOptions {
  /** Longest the task may run once a thread has taken it (default: the kind's); past it the thread is stopped. */
  deadlineMs?: number;
  /** Buffers handed to the thread without a copy; the caller must not touch them afterwards. */
  transfer?: ArrayBuffer[];
}

export interface TaskPool<C extends TaskCatalog> {
  run<K extends keyof C & string>(kind: K, input: C[K]['input'], options?: TaskOptions): Promise<C[K]['output']>;
  /** Tasks of this kind that answered since the pool was built (for tests and metrics). */
  answered(kind: keyof C & string): number;
  /** Refuses new tasks, fails the waiting ones and stops every thread. */
  close(): Promise<void>;
}

export type CpuPool = TaskPool<CpuTaskCatalog>;

/**
 * Why a task gave no answer: it ran past its deadline, or past the thread's memory limit (both the
 * input's doing); the queue was full (`busy`, try again shortly); the thread failed (`crashed`, our
 * bug); or the pool is shutting down (`closed`).
 */
export type TaskFailure = 'deadline' | 'memory' | 'busy' | 'crashed' | 'closed';

export class TaskError extends Error {
  readonly reason: TaskFailure;
  readonly kind: string;

  constructor(reason: TaskFailure, kind: string, message: string) {
    super(message);
    this.name = 'TaskError';
    this.reason = reason;
    this.kind = kind;
  }
}

export function isTaskError(value: unknown): value is TaskError {
  return value instanceof TaskError;
}

/** The input's own doing: it is refused like bad input, not retried. */
export function isInputTooCostly(error: unknown): error is TaskError {
  return isTaskError(error) && (error.reason === 'deadline' || error.reason === 'memory');
}
