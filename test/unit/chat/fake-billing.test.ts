/**
 * The strict fakes bill like the vendor (issue 30, item 13): what a request is billed does not depend
 * on what is reported nor on whether the client read it. A whole answer is billed in full even when
 * the client left before it; a stream read to its end is billed what its usage chunk reports; a stream
 * whose client left is billed the prompt, the hidden reasoning and the output generated until the fake
 * noticed; an error answer is billed nothing.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { AnthropicMessagesFake } from '../../fakes/anthropic-messages.fake.ts';
import { OpenAiChatFake } from '../../fakes/openai-chat.fake.ts';

const openai = await OpenAiChatFake.start();
const anthropic = await AnthropicMessagesFake.start();
after(async () => {
  await openai.close();
  await anthropic.close();
});
beforeEach(() => {
  openai.reset();
  anthropic.reset();
});

const TEXT = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');

function post(body: Record<string, unknown>, signal?: AbortSignal): Promise<Response> {
  return fetch(`${openai.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${openai.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }], ...body }),
    ...(signal ? { signal } : {}),
  });
}

test('a stream read to its end is billed what its usage chunk reports, hidden reasoning included', async () => {
  openai.enqueue({ text: TEXT, hiddenReasoningTokens: 50 });
  const sse = await (await post({ stream: true, stream_options: { include_usage: true } })).text();
  const usage = sse
    .split('\n')
    .filter((line) => line.startsWith('data: {'))
    .map((line) => JSON.parse(line.slice(6)) as { usage?: { prompt_tokens: number; completion_tokens: number; completion_tokens_details: { reasoning_tokens: number } } | null })
    .find((chunk) => chunk.usage)?.usage;
  assert.ok(usage);
  assert.equal(usage.completion_tokens_details.reasoning_tokens, 50);
  assert.deepEqual(await openai.requests[0]?.billed, { inputTokens: usage.prompt_tokens, outputTokens: usage.completion_tokens, cachedInputTokens: 0, cacheCreationTokens: 0 });
});

test('a stream whose client left is billed the prompt, the hidden reasoning and the output generated until the fake noticed', async () => {
  openai.enqueue({ text: TEXT, chunkDelayMs: 10, hiddenReasoningTokens: 50, usage: { input: 100, output: 200 } });
  const controller = new AbortController();
  const res = await post({ stream: true }, controller.signal);
  const reader = res.body?.getReader();
  assert.ok(reader);
  await reader.read();
  controller.abort();
  const billed = await openai.requests[0]?.billed;
  assert.ok(billed);
  assert.equal(billed.inputTokens, 100);
  assert.ok(billed.outputTokens >= 50 && billed.outputTokens < 250, `billed ${billed.outputTokens} of 250 output tokens`);
});

test('a whole answer is billed in full even when its client left before it; an error answer nothing', async () => {
  anthropic.enqueue({ text: TEXT, delayMs: 200, usage: { input: 40, output: 70, cached: 10 } });
  const controller = new AbortController();
  const sent = fetch(`${anthropic.baseUrl}/v1/messages`, {
    method: 'POST',
    headers: { 'x-api-key': anthropic.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'claude-x', max_tokens: 500, messages: [{ role: 'user', content: 'hi' }] }),
    signal: controller.signal,
  });
  // Leave once the fake holds the request (a fixed delay could abort before it arrived on a busy machine).
  while (anthropic.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  controller.abort();
  await assert.rejects(sent);
  // Anthropic's input_tokens excludes cache reads; the bill counts every prompt token.
  assert.deepEqual(await anthropic.requests[0]?.billed, { inputTokens: 50, outputTokens: 70, cachedInputTokens: 10, cacheCreationTokens: 0 });

  openai.enqueue({ error: { status: 503 } });
  assert.equal((await post({})).status, 503);
  assert.equal(await openai.requests[0]?.billed, undefined);
});
