/**
 * The popular TypeScript AI clients, unchanged, against POST /api/v1/responses (issue 20): the Vercel
 * AI SDK's default `openai()` provider (generateText, streamText, tools over two steps, generateObject),
 * the OpenAI Agents SDK with a function tool, and LangChain's ChatOpenAI with `useResponsesApi`. Whole
 * gateways in both modes; the upstream is the strict fake OpenAI server (spoken to over chat
 * completions). Each call is charged its usage times the price, to the micro-USD, and the ledger
 * verifies clean.
 */
import assert from 'node:assert/strict';
import { after, before, beforeEach, test } from 'node:test';
import { createOpenAI } from '@ai-sdk/openai';
import { ChatOpenAI } from '@langchain/openai';
import { Agent, OpenAIProvider, Runner, setTracingDisabled, tool as agentTool } from '@openai/agents';
import { generateObject, generateText, stepCountIs, streamText, tool } from 'ai';
import OpenAI from 'openai';
import { z } from 'zod';
import { assertSettled, expectedCost, latestRow, prices, startChatFakes, upstreamBody } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
before(() => setTracingDisabled(true));

function aiSdk(gw: TestGateway, key: string) {
  return createOpenAI({ baseURL: `${gw.url}/api/v1`, apiKey: key });
}

/** The user's only settled request, checked to the micro-USD. */
async function assertCharged(gw: TestGateway, key: string, userId: string, model: string, usage: { input: number; output: number }): Promise<void> {
  const row = await latestRow(gw, userId);
  await assertSettled(gw, userId, row.id, expectedCost(await prices(gw, key, model), usage));
}

const weatherParameters = z.object({ city: z.string() });

describeEachMode(
  'responses (AI SDK, Agents SDK, LangChain)',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('Vercel AI SDK generateText with the default openai() provider', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'Hello from Paris.', usage: { input: 21, output: 4 } });
      const result = await generateText({ model: aiSdk(ctx.gw, key)('gpt-5.4-mini'), system: 'Be brief.', prompt: 'Say hello.', maxRetries: 0 });
      assert.equal(result.text, 'Hello from Paris.');
      assert.deepEqual([result.usage.inputTokens, result.usage.outputTokens], [21, 4]);
      assert.equal(fakes.openai.requests[0]?.path, '/v1/chat/completions');
      await assertCharged(ctx.gw, key, userId, 'gpt-5.4-mini', { input: 21, output: 4 });
    });

    test('Vercel AI SDK streamText', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'One two three.', usage: { input: 12, output: 3 }, fragment: true });
      const result = streamText({ model: aiSdk(ctx.gw, key)('gpt-5.4-mini'), prompt: 'Count.', maxRetries: 0 });
      let text = '';
      for await (const delta of result.textStream) text += delta;
      assert.equal(text, 'One two three.');
      const usage = await result.usage;
      assert.deepEqual([usage.inputTokens, usage.outputTokens], [12, 3]);
      await assertCharged(ctx.gw, key, userId, 'gpt-5.4-mini', { input: 12, output: 3 });
    });

    test('Vercel AI SDK tools over two steps: the tool runs, its result goes back as function_call_output', async () => {
      const { key } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ toolCalls: [{ id: 'call_1', name: 'weather', arguments: { city: 'Paris' } }] }, { text: 'It is sunny in Paris.' });
      const cities: string[] = [];
      const result = await generateText({
        model: aiSdk(ctx.gw, key)('gpt-5.4-mini'),
        prompt: 'Weather in Paris?',
        tools: {
          weather: tool({
            description: 'Weather of a city',
            inputSchema: weatherParameters,
            execute: async ({ city }) => {
              cities.push(city);
              return { city, sky: 'sunny' };
            },
          }),
        },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      assert.deepEqual(cities, ['Paris']);
      assert.equal(result.text, 'It is sunny in Paris.');
      const second = upstreamBody<{ messages: Array<{ role: string; tool_call_id?: string; content: unknown }> }>(fakes.openai, 1).messages;
      assert.deepEqual(second.map((m) => m.role), ['user', 'assistant', 'tool']);
      assert.equal(second[2]?.tool_call_id, 'call_1');
      assert.deepEqual(JSON.parse(String(second[2]?.content)), { city: 'Paris', sky: 'sunny' });
    });

    test('Vercel AI SDK streamText with a tool: streamed arguments, the tool run, the second step streamed; both steps charged', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue(
        { toolCalls: [{ id: 'call_s', name: 'weather', arguments: { city: 'Lima' } }], usage: { input: 30, output: 10 } },
        { text: 'Lima is cloudy.', usage: { input: 45, output: 5 } },
      );
      const result = streamText({
        model: aiSdk(ctx.gw, key)('gpt-5.4-mini'),
        prompt: 'Weather in Lima?',
        tools: { weather: tool({ inputSchema: weatherParameters, execute: async ({ city }) => `${city}: cloudy` }) },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      const parts: string[] = [];
      for await (const part of result.fullStream) parts.push(part.type);
      assert.equal(await result.text, 'Lima is cloudy.');
      assert.ok(parts.includes('tool-input-delta') && parts.includes('tool-result'), parts.join(','));
      const usage = await result.totalUsage;
      assert.deepEqual([usage.inputTokens, usage.outputTokens], [75, 15]);
      const p = await prices(ctx.gw, key, 'gpt-5.4-mini');
      const rows = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select(['id', 'cost_micro']).where('user_id', '=', userId).execute();
      assert.deepEqual(rows.map((r) => r.cost_micro).sort((a, b) => a - b), [expectedCost(p, { input: 30, output: 10 }), expectedCost(p, { input: 45, output: 5 })].sort((a, b) => a - b));
      for (const row of rows) await assertSettled(ctx.gw, userId, row.id, row.cost_micro);
    });

    test('Vercel AI SDK tools when the model reasons: the reference to our reasoning item is left out, the loop completes', async () => {
      const { key } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ reasoning: 'Need the weather.', toolCalls: [{ id: 'call_r', name: 'weather', arguments: { city: 'Rome' } }] }, { text: 'Rome is warm.' });
      const result = await generateText({
        model: aiSdk(ctx.gw, key)('gpt-5.4-mini'),
        prompt: 'Weather in Rome?',
        tools: { weather: tool({ inputSchema: weatherParameters, execute: async ({ city }) => `${city}: warm` }) },
        stopWhen: stepCountIs(3),
        maxRetries: 0,
      });
      assert.equal(result.text, 'Rome is warm.');
      assert.equal(result.steps[0]?.reasoningText, 'Need the weather.');
      const second = upstreamBody<{ messages: Array<{ role: string }> }>(fakes.openai, 1).messages;
      assert.deepEqual(second.map((m) => m.role), ['user', 'assistant', 'tool']);
    });

    test('Vercel AI SDK multi-turn: a stored-item reference is refused clearly; with store: false the history is sent and answered', async () => {
      const { key } = await ctx.gw.createUser(100);
      const model = aiSdk(ctx.gw, key)('claude-haiku-4-5');
      fakes.openai.enqueue({ text: 'Hi, I am Claude.' }, { text: 'You said hello.' });
      const first = await generateText({ model, prompt: 'Hello.', maxRetries: 0 });
      const messages = [{ role: 'user' as const, content: 'Hello.' }, ...first.response.messages, { role: 'user' as const, content: 'What did I say?' }];
      await assert.rejects(generateText({ model, messages, maxRetries: 0 }), (error: unknown) => error instanceof Error && /not stored.*store: false/s.test(error.message));
      const second = await generateText({ model, messages, providerOptions: { openai: { store: false } }, maxRetries: 0 });
      assert.equal(second.text, 'You said hello.');
      const history = upstreamBody<{ messages: Array<{ role: string; content: unknown }> }>(fakes.openai, 1).messages;
      assert.deepEqual(history.map((m) => [m.role, m.content]), [['user', 'Hello.'], ['assistant', 'Hi, I am Claude.'], ['user', 'What did I say?']]);
    });

    test('Vercel AI SDK generateObject: text.format json_schema reaches the upstream as response_format', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: '{"name":"Ada","age":36}', usage: { input: 30, output: 8 } });
      const result = await generateObject({
        model: aiSdk(ctx.gw, key)('gpt-5.4-mini'),
        schema: z.object({ name: z.string(), age: z.number() }),
        prompt: 'A person.',
        maxRetries: 0,
      });
      assert.deepEqual(result.object, { name: 'Ada', age: 36 });
      const format = upstreamBody<{ response_format: { type: string; json_schema: { name: string; strict: boolean } } }>(fakes.openai, 0).response_format;
      assert.equal(format.type, 'json_schema');
      assert.equal(format.json_schema.strict, true);
      await assertCharged(ctx.gw, key, userId, 'gpt-5.4-mini', { input: 30, output: 8 });
    });

    test('OpenAI Agents SDK: an agent with a function tool, through the Responses model', async () => {
      const { key } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ toolCalls: [{ id: 'call_a', name: 'weather', arguments: { city: 'Oslo' } }] }, { text: 'Oslo: snow.' });
      const cities: string[] = [];
      const weather = agentTool({
        name: 'weather',
        description: 'Weather of a city',
        parameters: weatherParameters,
        execute: async ({ city }) => {
          cities.push(city);
          return `${city}: snow`;
        },
      });
      const client = new OpenAI({ baseURL: `${ctx.gw.url}/api/v1`, apiKey: key, maxRetries: 0 });
      const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }), tracingDisabled: true });
      const agent = new Agent({ name: 'Forecaster', instructions: 'Answer with the tool.', model: 'gpt-5.4-mini', tools: [weather] });
      const result = await runner.run(agent, 'Weather in Oslo?');
      assert.deepEqual(cities, ['Oslo']);
      assert.equal(result.finalOutput, 'Oslo: snow.');
      assert.equal(fakes.openai.requests.length, 2);
      const first = upstreamBody<{ messages: Array<{ role: string; content: unknown }>; tools: Array<{ function: { name: string } }> }>(fakes.openai, 0);
      assert.deepEqual(first.messages[0], { role: 'system', content: 'Answer with the tool.' });
      assert.equal(first.tools[0]?.function.name, 'weather');
    });

    test('LangChain ChatOpenAI with useResponsesApi: invoke and stream', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'Bonjour.', usage: { input: 9, output: 2 } }, { text: 'Salut tout le monde.', usage: { input: 9, output: 4 } });
      const model = new ChatOpenAI({ model: 'gpt-5.4-mini', apiKey: key, configuration: { baseURL: `${ctx.gw.url}/api/v1` }, useResponsesApi: true, maxRetries: 0 });
      const answer = await model.invoke('Say hello in French.');
      assert.equal(answer.text, 'Bonjour.');
      let streamed = '';
      for await (const chunk of await model.stream('Say hello to everyone in French.')) streamed += chunk.text;
      assert.equal(streamed, 'Salut tout le monde.');
      const row = await latestRow(ctx.gw, userId);
      await assertSettled(ctx.gw, userId, row.id, expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: 9, output: 4 }));
    });
  },
  { configFile: fakes.config },
);
