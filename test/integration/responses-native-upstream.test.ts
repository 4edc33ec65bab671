/**
 * An OpenAI route whose upstream speaks the Responses API (`options.api: "responses"`, issue 20): the
 * strict fake Responses server (built from openai 7.57.0's published types) answers; clients of every
 * protocol the gateway speaks reach it translated, and are charged the usage the fake reports times
 * the published price, to the micro-USD.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText } from 'ai';
import OpenAI from 'openai';
import { OpenAiResponsesFake } from '../fakes/openai-responses.fake.ts';
import { assertSettled, expectedCost, latestRow, prices, upstreamBody } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fake = await OpenAiResponsesFake.start();
after(() => fake.close());

const config = {
  chat: { maxOutputTokens: 4096 },
  providers: { 'oa-responses': { type: 'openai', baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs: 5000, options: { api: 'responses' } } },
  routes: { 'gpt-5.4-mini': [{ provider: 'oa-responses', model: 'gpt-upstream-mini' }], 'claude-haiku-4-5': [{ provider: 'oa-responses', model: 'haiku-on-responses' }] },
};

async function assertCharged(gw: TestGateway, key: string, userId: string, model: string, usage: { input: number; output: number }): Promise<void> {
  const row = await latestRow(gw, userId);
  await assertSettled(gw, userId, row.id, expectedCost(await prices(gw, key, model), usage));
}

describeEachMode(
  'an upstream that speaks Responses',
  (ctx) => {
    beforeEach(() => fake.reset());

    test('responses.create reaches /v1/responses with store false and the upstream model; charged to the micro-USD', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fake.enqueue({ text: 'Native hello.', usage: { input: 17, output: 3 } });
      const client = new OpenAI({ baseURL: `${ctx.gw.url}/api/v1`, apiKey: key, maxRetries: 0 });
      const response = await client.responses.create({ model: 'gpt-5.4-mini', instructions: 'Be brief.', input: 'Say hello.' });
      assert.equal(response.output_text, 'Native hello.');
      assert.equal(fake.requests[0]?.path, '/v1/responses');
      const sent = upstreamBody<{ model: string; store: boolean; instructions: string }>(fake, 0);
      assert.deepEqual([sent.model, sent.store, sent.instructions], ['gpt-upstream-mini', false, 'Be brief.']);
      await assertCharged(ctx.gw, key, userId, 'gpt-5.4-mini', { input: 17, output: 3 });
    });

    test('a chat-completions client and an Anthropic client are translated to it, streamed too', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fake.enqueue({ text: 'From chat.', usage: { input: 9, output: 2 } }, { text: 'From messages.', usage: { input: 8, output: 2 } });
      const openai = new OpenAI({ baseURL: `${ctx.gw.url}/api/v1`, apiKey: key, maxRetries: 0 });
      const stream = await openai.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, stream_options: { include_usage: true } });
      let text = '';
      for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
      assert.equal(text, 'From chat.');
      await assertCharged(ctx.gw, key, userId, 'gpt-5.4-mini', { input: 9, output: 2 });
      const anthropic = new Anthropic({ baseURL: `${ctx.gw.url}/api`, apiKey: key, maxRetries: 0 });
      const message = await anthropic.messages.create({ model: 'claude-haiku-4-5', max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(message.content[0]?.type === 'text' ? message.content[0].text : '', 'From messages.');
      assert.equal(upstreamBody<{ model: string }>(fake, 1).model, 'haiku-on-responses');
      await assertCharged(ctx.gw, key, userId, 'claude-haiku-4-5', { input: 8, output: 2 });
    });

    test('the Vercel AI SDK default openai() provider, whole and streamed', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fake.enqueue({ text: 'Whole.', usage: { input: 12, output: 2 } }, { text: 'Streamed answer.', usage: { input: 13, output: 3 } });
      const provider = createOpenAI({ baseURL: `${ctx.gw.url}/api/v1`, apiKey: key });
      const whole = await generateText({ model: provider('gpt-5.4-mini'), prompt: 'One.', maxRetries: 0 });
      assert.equal(whole.text, 'Whole.');
      const streamed = streamText({ model: provider('gpt-5.4-mini'), prompt: 'Two.', maxRetries: 0 });
      let text = '';
      for await (const delta of streamed.textStream) text += delta;
      assert.equal(text, 'Streamed answer.');
      await assertCharged(ctx.gw, key, userId, 'gpt-5.4-mini', { input: 13, output: 3 });
      assert.ok(fake.requests.every((r) => r.path === '/v1/responses'));
    });
  },
  { configFile: config },
);
