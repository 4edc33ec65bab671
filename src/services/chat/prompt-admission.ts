/**
 * Whether a prompt may be sent at all, decided before the hold (issue 30, item 2): a prompt above the
 * model's context window is refused (400 naming `messages`, in the client's protocol), and so is one
 * whose price the catalog cannot give (a long-context tier without published prices, or priority
 * processing there).
 *
 * The hold's estimate is an upper bound (about one token per UTF-8 byte, several times the real
 * count), so it cannot prove a prompt too long by itself. Only when that bound is above the window is
 * the prompt counted, by the gateway's approximate count (the one count_tokens answers without an
 * upstream; in the CPU pool for a large text): refused when that count is above the window too. An
 * ordinary prompt costs one comparison.
 */
import { assertLongContextBillable } from '../../domain/chat/chat-billing.ts';
import type { ChatModelDefinition } from '../../domain/catalog/catalog.types.ts';
import type { ChatRequest } from '../../domain/chat/chat-request.types.ts';
import { invalidInput } from '../../domain/errors.ts';
import type { CpuPool } from '../../ports/cpu-pool.port.ts';
import { countPromptTokens } from '../../providers/chat/prompt-token-count.ts';

/**
 * Throws (400) for a prompt that may not be sent. Synchronous for an ordinary prompt (no promise on
 * the hot path); a promise, to await, only when the prompt must be counted.
 */
export function admitPrompt(model: ChatModelDefinition, request: ChatRequest, promptTokens: number, cpu: CpuPool | undefined): Promise<void> | undefined {
  if (promptTokens <= model.contextWindow) {
    assertLongContextBillable(model.id, model, promptTokens, request.priceOptions);
    return undefined;
  }
  return countedAgainstWindow(model, request, cpu).then(() => assertLongContextBillable(model.id, model, promptTokens, request.priceOptions));
}

async function countedAgainstWindow(model: ChatModelDefinition, request: ChatRequest, cpu: CpuPool | undefined): Promise<void> {
  const counted = await countPromptTokens(request, 'approximate', cpu);
  if (!counted.ok) throw invalidInput(counted.error.message, 'messages');
  if (counted.inputTokens > model.contextWindow) {
    const window = model.contextWindow.toLocaleString('en-US');
    throw invalidInput(`The messages hold about ${counted.inputTokens.toLocaleString('en-US')} tokens, more than ${model.id}'s context window of ${window} tokens. Shorten them.`, 'messages');
  }
}
