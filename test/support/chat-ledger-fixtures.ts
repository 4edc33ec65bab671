/** A chat request to hold and an outcome to settle it with, for the chat ledger's tests. */
import { newId } from '../../src/domain/ids.ts';
import type { ChatRequestOutcome, NewChatRequest } from '../../src/ports/ledger.port.ts';

export function heldRequest(userId: string, holdMicro: number): NewChatRequest {
  return { id: newId('chat'), userId, apiKeyId: null, model: 'gpt-5.4-mini', protocol: 'openai', stream: false, holdMicro, now: Date.now() };
}

export function chatOutcome(costMicro: number, status: ChatRequestOutcome['status'] = 'succeeded'): ChatRequestOutcome {
  return {
    status,
    provider: 'fake',
    upstreamModel: 'fast',
    attempts: 1,
    inputTokens: 10,
    outputTokens: 5,
    cachedTokens: 0,
    cacheCreationTokens: 0,
    usageEstimated: false,
    costMicro,
    upstreamCostMicro: null,
    stopReason: 'end_turn',
    latencyMs: 3,
    firstByteMs: 2,
    errorCode: null,
    errorMessage: null,
    finishedAt: Date.now(),
  };
}
