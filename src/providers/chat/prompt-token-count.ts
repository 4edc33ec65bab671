/**
 * The gateway's own counts of a prompt (the local model's exact tokenizer, or the approximate count
 * when no upstream counts), bounded like any work that grows with user input: more than
 * MAX_COUNTED_TEXT_CHARS of text is refused (400 naming `messages`), a large text is counted in the
 * CPU pool with its deadline, a small one here. Failures are values, as the TokenCounter port has
 * them, except a pool that cannot take the task (the gateway's state: a 503 thrown).
 */
import type { ChatRequest } from '../../domain/chat/chat-request.types.ts';
import { COUNT_ON_LOOP_CHARS, countedTextChars, MAX_COUNTED_TEXT_CHARS, withoutImageData } from '../../domain/chat/counted-text.ts';
import { countLocalInputTokens } from '../../domain/chat/local-tokens.ts';
import { approximatePromptTokens } from '../../domain/chat/token-count.estimator.ts';
import { AppError } from '../../domain/errors.ts';
import { type CpuPool, isInputTooCostly, isTaskError, type PromptTokenizer } from '../../ports/cpu-pool.port.ts';
import type { TokenCountResult } from './embedding-provider.ts';

export async function countPromptTokens(request: ChatRequest, tokenizer: PromptTokenizer, cpu: CpuPool | undefined): Promise<TokenCountResult> {
  const chars = countedTextChars(request);
  if (chars > MAX_COUNTED_TEXT_CHARS) {
    return {
      ok: false,
      error: { status: 400, retryable: false, param: 'messages', message: `The prompt holds ${chars} characters of text; the gateway counts at most ${MAX_COUNTED_TEXT_CHARS} (twice the largest context window) per request.` },
    };
  }
  if (chars <= COUNT_ON_LOOP_CHARS || !cpu) return { ok: true, inputTokens: tokenizer === 'local' ? countLocalInputTokens(request) : approximatePromptTokens(request) };
  try {
    return { ok: true, inputTokens: await cpu.run('countPromptTokens', { request: withoutImageData(request), tokenizer }) };
  } catch (error) {
    if (isInputTooCostly(error)) return { ok: false, error: { status: 400, retryable: false, param: 'messages', message: 'The prompt is too costly to count.' } };
    // The gateway's own state, not the upstream's or the prompt's: 503 with Retry-After, as for a body.
    if (isTaskError(error) && (error.reason === 'busy' || error.reason === 'closed')) throw new AppError('service_unavailable', 'The gateway is busy counting other prompts; try again in a second.', { retryAfter: 1 });
    throw error;
  }
}
