/**
 * Anthropic stream usage combined field by field (issue 30, item 6): `message_delta` repeats the
 * counts cumulatively and any of them may be null (SDK `MessageDeltaUsage`: every count but
 * `output_tokens` is `number | null`). Each component keeps its last non-null value and the prompt
 * total is computed from them, so a delta with `input_tokens` and null cache counts does not drop
 * the cache reads and writes message_start reported.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { costMicro } from '../../../src/domain/chat/chat-billing.ts';
import type { ChatStreamEvent, ChatUsage } from '../../../src/domain/chat/chat-response.types.ts';
import { createAnthropicStreamDecoder } from '../../../src/protocols/anthropic-messages/anthropic-stream.decoder.ts';

function finalUsage(frames: Array<Record<string, unknown>>): ChatUsage {
  const decoder = createAnthropicStreamDecoder({ estimatedInputTokens: 99_999 });
  const events: ChatStreamEvent[] = frames.flatMap((frame) => decoder.push(String(frame.type), JSON.stringify(frame)));
  const end = events.at(-1);
  assert.equal(end?.type, 'message_end');
  return end.usage;
}

const start = (usage: Record<string, unknown>) => ({
  type: 'message_start',
  message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude-sonnet-4-6', content: [], stop_reason: null, stop_sequence: null, usage },
});
const text = [
  { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'Hello.' } },
  { type: 'content_block_stop', index: 0 },
];
const delta = (usage: Record<string, unknown>) => ({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage });
const stop = { type: 'message_stop' };

// claude-sonnet-4-6 at Anthropic's published prices (micro-USD per million tokens): input 3, output
// 15, cache read 0.30, 5-minute write 3.75, one-hour write 6 (https://docs.anthropic.com/en/docs/about-claude/pricing).
const SONNET = {
  inputMicroPerMillion: 3_000_000,
  outputMicroPerMillion: 15_000_000,
  cachedInputMicroPerMillion: 300_000,
  cacheWriteMicroPerMillion: 3_750_000,
  cacheWrite1hMicroPerMillion: 6_000_000,
};

describe('Anthropic stream usage, field by field', () => {
  test('a delta with input_tokens and null cache counts keeps the cache counts of message_start', () => {
    const usage = finalUsage([
      start({ input_tokens: 10, output_tokens: 1, cache_read_input_tokens: 5000, cache_creation_input_tokens: 200, cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 200 } }),
      ...text,
      delta({ input_tokens: 10, cache_read_input_tokens: null, cache_creation_input_tokens: null, output_tokens: 40, server_tool_use: null }),
      delta({ input_tokens: null, cache_read_input_tokens: null, cache_creation_input_tokens: null, output_tokens: 50 }),
      stop,
    ]);
    assert.equal(usage.inputTokens, 5210);
    assert.equal(usage.cachedInputTokens, 5000);
    assert.equal(usage.cacheCreationTokens, 200);
    assert.equal(usage.cacheCreation1hTokens, 200);
    assert.equal(usage.outputTokens, 50);
    assert.equal(usage.estimated, undefined);
    // 10 × 3 + 5000 × 0.30 + 200 × 6 + 50 × 15 = 30 + 1500 + 1200 + 750 micro-USD.
    assert.equal(costMicro(SONNET, usage), 3480);
  });

  test('a later non-null component replaces the earlier one, and the total follows it', () => {
    const usage = finalUsage([
      start({ input_tokens: null, output_tokens: 1, cache_read_input_tokens: 300, cache_creation_input_tokens: null }),
      ...text,
      delta({ input_tokens: 20, cache_read_input_tokens: 400, cache_creation_input_tokens: null, output_tokens: 7 }),
      stop,
    ]);
    assert.equal(usage.inputTokens, 420);
    assert.equal(usage.cachedInputTokens, 400);
    assert.equal(usage.cacheCreationTokens, 0);
    assert.equal(usage.outputTokens, 7);
    // 20 × 3 + 400 × 0.30 + 7 × 15 = 60 + 120 + 105.
    assert.equal(costMicro(SONNET, usage), 285);
  });

  test('a stream whose deltas never report the prompt keeps message_start’s, not the estimate', () => {
    const usage = finalUsage([start({ input_tokens: 12, output_tokens: 1 }), ...text, delta({ output_tokens: 3 }), stop]);
    assert.deepEqual([usage.inputTokens, usage.outputTokens, usage.estimated], [12, 3, undefined]);
  });
});
