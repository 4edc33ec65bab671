/** The usage figures an exchange settles with when the upstream reported none, or not all. */
import type { ChatUsage } from '../../domain/chat/chat-response.types.ts';

export const NO_USAGE: ChatUsage = { inputTokens: 0, outputTokens: 0, cachedInputTokens: 0, cacheCreationTokens: 0 };

/** Usage last reported, with the output counted since (UTF-8 bytes, an upper bound) added as an estimate. */
export function withCountedOutput(usage: ChatUsage | undefined, countedOutput: number): ChatUsage {
  const base = usage ?? NO_USAGE;
  if (countedOutput === 0 && usage !== undefined) return base;
  return { ...base, outputTokens: base.outputTokens + countedOutput, estimated: true };
}
