/**
 * Issue 30, item 8: the sampling fields each Claude model refuses, through the official SDKs, against
 * the strict Anthropic fake (which refuses per model what Anthropic refuses). On chat completions the
 * refused field is dropped and named in `x-switchboard-dropped-fields`; on messages it is refused with
 * a 400 naming it before any hold or upstream call (docs/decisions.md, "Sampling fields per model").
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { anthropicClient, balanceMicro, heldMicro, openAiClient, settledRow, startChatFakes, upstreamBody } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

const base = fakes.config as { routes: Record<string, unknown> };
// The fake's rules are keyed by Anthropic's own model ids, so these routes use them.
const config = {
  ...fakes.config,
  routes: { ...base.routes, 'claude-opus-4-7': [{ provider: 'an', model: 'claude-opus-4-7' }], 'claude-sonnet-4-6': [{ provider: 'an', model: 'claude-sonnet-4-6' }] },
};

async function assertNothingHappened(gw: TestGateway, userId: string): Promise<void> {
  assert.equal(fakes.anthropic.requests.length, 0, 'no upstream call');
  assert.equal(await balanceMicro(gw, userId), 1_000_000);
  assert.equal(await heldMicro(gw, userId), 0);
  const rows = await gw.gateway.services.database.db.selectFrom('chat_requests').select('id').where('user_id', '=', userId).execute();
  assert.equal(rows.length, 0, 'nothing recorded: refused before the hold');
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
}

async function refusedBy(call: Promise<unknown>): Promise<{ status: number; type: string; message: string }> {
  try {
    await call;
  } catch (error) {
    assert.ok(error instanceof Anthropic.APIError, String(error));
    const body = error.error as { type: string; error: { type: string; message: string } };
    assert.equal(body.type, 'error');
    return { status: error.status ?? 0, type: body.error.type, message: body.error.message };
  }
  assert.fail('the request was accepted');
}

describeEachMode(
  'sampling fields per model',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('the strict fake refuses what Anthropic refuses per model', async () => {
      const upstream = new Anthropic({ baseURL: fakes.anthropic.baseUrl, apiKey: fakes.anthropic.apiKey, maxRetries: 0, defaultHeaders: { 'anthropic-version': '2023-06-01' } });
      const ask = (body: Record<string, unknown>) =>
        refusedBy(upstream.messages.create({ max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], ...body } as unknown as Anthropic.MessageCreateParamsNonStreaming));
      assert.deepEqual(await ask({ model: 'claude-opus-4-7', temperature: 0.7 }), { status: 400, type: 'invalid_request_error', message: '`temperature` is deprecated for this model.' });
      assert.equal((await ask({ model: 'claude-opus-4-7', top_k: 5 })).message, '`top_k` is deprecated for this model.');
      assert.match((await ask({ model: 'claude-opus-4-7', thinking: { type: 'enabled', budget_tokens: 1024 } })).message, /thinking\.type\.enabled" is not supported/);
      for (const model of ['claude-sonnet-4-6', 'claude-haiku-4-5-20251001']) {
        assert.match((await ask({ model, temperature: 0.5, top_p: 0.9 })).message, /`temperature` and `top_p` cannot both be specified/, model);
      }
    });

    test('openai SDK: temperature 0.7 to claude-opus-4-7 succeeds, dropped and named in the header, streaming and not', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = openAiClient(ctx.gw, key);
      fakes.anthropic.enqueue({ text: 'Hello.', usage: { input: 10, output: 2 } }, { text: 'Hello.', usage: { input: 10, output: 2 } });
      const { data, response } = await client.chat.completions
        .create({ model: 'claude-opus-4-7', temperature: 0.7, messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      assert.equal(data.choices[0]?.message.content, 'Hello.');
      assert.equal(response.headers.get('x-switchboard-dropped-fields'), 'temperature');
      assert.equal(upstreamBody<Record<string, unknown>>(fakes.anthropic, 0).temperature, undefined, 'not sent upstream');
      await settledRow(ctx.gw, data.id);

      const streamed = await client.chat.completions
        .create({ model: 'claude-opus-4-7', temperature: 0.7, top_p: 0.5, stream: true, messages: [{ role: 'user', content: 'Hi' }] })
        .withResponse();
      assert.equal(streamed.response.headers.get('x-switchboard-dropped-fields'), 'temperature, top_p');
      let text = '';
      for await (const chunk of streamed.data) text += chunk.choices[0]?.delta.content ?? '';
      assert.equal(text, 'Hello.');
      const sent = upstreamBody<Record<string, unknown>>(fakes.anthropic, 1);
      assert.deepEqual([sent.temperature, sent.top_p], [undefined, undefined]);
      assert.ok((await balanceMicro(ctx.gw, userId)) < 1_000_000, 'billed as usual');
    });

    test('openai SDK: temperature with top_p to claude-sonnet-4-6 keeps temperature and drops top_p; one of them passes untouched', async () => {
      const { key } = await ctx.gw.createUser(100);
      const client = openAiClient(ctx.gw, key);
      fakes.anthropic.enqueue({ text: 'A.', usage: { input: 10, output: 2 } }, { text: 'B.', usage: { input: 10, output: 2 } });
      const both = await client.chat.completions.create({ model: 'claude-sonnet-4-6', temperature: 0.2, top_p: 0.9, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
      assert.equal(both.response.headers.get('x-switchboard-dropped-fields'), 'top_p');
      const sent = upstreamBody<Record<string, unknown>>(fakes.anthropic, 0);
      assert.deepEqual([sent.temperature, sent.top_p], [0.2, undefined]);
      const one = await client.chat.completions.create({ model: 'claude-sonnet-4-6', top_p: 0.9, messages: [{ role: 'user', content: 'Hi' }] }).withResponse();
      assert.equal(one.response.headers.get('x-switchboard-dropped-fields'), null);
      assert.equal(upstreamBody<Record<string, unknown>>(fakes.anthropic, 1).top_p, 0.9);
    });

    test('both HTTP paths (the chat lane, Fastify by a query string) and the Responses protocol say what was dropped', async () => {
      const { key } = await ctx.gw.createUser(100);
      const post = (path: string, body: Record<string, unknown>) =>
        fetch(`${ctx.gw.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const chat = { model: 'claude-opus-4-7', temperature: 0.7, messages: [{ role: 'user', content: 'Hi' }] };
      for (const path of ['/api/v1/chat/completions', '/api/v1/chat/completions?path=fastify']) {
        fakes.anthropic.enqueue({ text: 'Hi.', usage: { input: 10, output: 2 } });
        const res = await post(path, chat);
        assert.equal(res.status, 200, path);
        assert.equal(res.headers.get('x-switchboard-dropped-fields'), 'temperature', path);
        await res.json();
      }
      fakes.anthropic.enqueue({ text: 'Hi.', usage: { input: 10, output: 2 } });
      const responses = await openAiClient(ctx.gw, key).responses.create({ model: 'claude-opus-4-7', temperature: 0.7, input: 'Hi' }).withResponse();
      assert.equal(responses.response.headers.get('x-switchboard-dropped-fields'), 'temperature');
      assert.equal(responses.data.output_text, 'Hi.');
      for (let i = 0; i < 3; i++) assert.equal(upstreamBody<Record<string, unknown>>(fakes.anthropic, i).temperature, undefined);
    });

    test('@anthropic-ai/sdk on /api/v1/messages: a refused field is a 400 naming it before any hold', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = anthropicClient(ctx.gw, key);
      const ask = (body: Record<string, unknown>) =>
        refusedBy(client.messages.create({ max_tokens: 16, messages: [{ role: 'user', content: 'Hi' }], ...body } as unknown as Anthropic.MessageCreateParamsNonStreaming));
      const temperature = await ask({ model: 'claude-opus-4-7', temperature: 0.7 });
      assert.equal(temperature.status, 400);
      assert.equal(temperature.type, 'invalid_request_error');
      assert.match(temperature.message, /^`temperature` is deprecated for this model/);
      assert.match((await ask({ model: 'claude-opus-4-7', top_k: 5 })).message, /`top_k`/);
      assert.match((await ask({ model: 'claude-opus-4-7', stream: true, thinking: { type: 'enabled', budget_tokens: 1024 } })).message, /thinking\.type\.enabled/);
      assert.match((await ask({ model: 'claude-sonnet-4-6', temperature: 0.5, top_p: 0.9 })).message, /`temperature` and `top_p` cannot both be specified/);
      await assertNothingHappened(ctx.gw, userId);
    });

    test('@anthropic-ai/sdk on /api/v1/messages: the default temperature (1) is dropped and named; adaptive thinking passes', async () => {
      const { key } = await ctx.gw.createUser(100);
      fakes.anthropic.enqueue({ text: 'Hi.', usage: { input: 10, output: 2 } });
      const { data, response } = await anthropicClient(ctx.gw, key)
        .messages.create({ model: 'claude-opus-4-7', max_tokens: 16, temperature: 1, thinking: { type: 'adaptive' }, messages: [{ role: 'user', content: 'Hi' }] } as unknown as Anthropic.MessageCreateParamsNonStreaming)
        .withResponse();
      assert.equal(data.content[0]?.type, 'text');
      assert.equal(response.headers.get('x-switchboard-dropped-fields'), 'temperature');
      const sent = upstreamBody<Record<string, unknown>>(fakes.anthropic, 0);
      assert.equal(sent.temperature, undefined);
      assert.deepEqual(sent.thinking, { type: 'adaptive' });
    });
  },
  { configFile: config },
);
