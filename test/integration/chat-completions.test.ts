/**
 * POST /api/v1/chat/completions through the official OpenAI SDK, against whole gateways (SQLite and
 * PostgreSQL) whose upstreams are the fake OpenAI and Anthropic servers: answers, streams, tools,
 * images, translation to Claude, upstream errors, cut streams, failover, a departed client, the local
 * model, concurrency on a small balance, and exact billing.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import OpenAI from 'openai';
import { estimatePromptTokens } from '../../src/domain/chat/prompt-size.estimator.ts';
import { parseOpenAiChatRequest } from '../../src/protocols/openai-chat/openai-chat.parser.ts';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import {
  assertSettled,
  balanceMicro,
  chatLedger,
  expectedCost,
  latestRow,
  ledgerEntriesMetric,
  openAiClient,
  prices,
  settledRow,
  startChatFakes,
  upstreamBody,
  TEST_MAX_OUTPUT_TOKENS,
} from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

const PNG_BASE64 = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';

describeEachMode(
  'chat completions (OpenAI SDK)',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('a completion through an OpenAI upstream: our model id, the usage, and a charge exact to the micro-USD', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'Paris is the capital.', model: 'gpt-upstream-mini-2026', usage: { input: 1000, output: 567, cached: 200 } });
      const completion = await openAiClient(ctx.gw, key).chat.completions.create({
        model: 'gpt-5.4-mini',
        messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Capital of France?' }],
        max_tokens: 600,
      });
      assert.equal(completion.model, 'gpt-5.4-mini');
      assert.equal(completion.choices[0]?.message.content, 'Paris is the capital.');
      assert.equal(completion.choices[0]?.finish_reason, 'stop');
      assert.deepEqual([completion.usage?.prompt_tokens, completion.usage?.completion_tokens], [1000, 567]);
      const upstream = fakes.openai.requests[0]?.body as Record<string, unknown>;
      assert.equal(upstream.model, 'gpt-upstream-mini');
      assert.equal(upstream.max_tokens, 600);

      const cost = expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: 1000, output: 567, cached: 200 });
      const row = await assertSettled(ctx.gw, userId, completion.id, cost);
      assert.equal(row.status, 'succeeded');
      assert.deepEqual([row.input_tokens, row.output_tokens, row.cached_tokens, row.usage_estimated], [1000, 567, 200, 0]);
      assert.deepEqual([row.provider, row.upstream_model, row.attempts, row.stop_reason], ['oa', 'gpt-upstream-mini', 1, 'end_turn']);
      assert.ok(row.latency_ms !== null && row.first_byte_ms !== null && row.first_byte_ms <= row.latency_ms);
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000 - cost);
    });

    test('streaming text: deltas as they come, the usage chunk, [DONE], and the same exact charge', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'One two three four five six seven.', usage: { input: 50, output: 9 }, fragment: true });
      const stream = await openAiClient(ctx.gw, key).chat.completions.create({
        model: 'gpt-5.4-mini',
        messages: [{ role: 'user', content: 'Count.' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | undefined | null;
      let id = '';
      const models = new Set<string>();
      for await (const chunk of stream) {
        id = chunk.id;
        models.add(chunk.model);
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
      }
      assert.equal(text, 'One two three four five six seven.');
      assert.deepEqual([...models], ['gpt-5.4-mini']);
      assert.deepEqual([usage?.prompt_tokens, usage?.completion_tokens], [50, 9]);
      assert.equal(upstreamBody<{ stream_options?: unknown }>(fakes.openai, 0).stream_options !== undefined, true);
      // Default output: min(model maximum, the configured cap).
      assert.equal(upstreamBody<{ max_tokens?: number }>(fakes.openai, 0).max_tokens, TEST_MAX_OUTPUT_TOKENS);
      const row = await assertSettled(ctx.gw, userId, id, expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: 50, output: 9 }));
      assert.equal(row.stream, 1);
    });

    test('SSE headers, and max_tokens above the cap is capped', async () => {
      const { key } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'ok' });
      const res = await fetch(`${ctx.gw.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], stream: true, max_completion_tokens: 1_000_000 }),
      });
      assert.equal(res.status, 200);
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      assert.equal(res.headers.get('cache-control'), 'no-cache');
      assert.equal(res.headers.get('x-accel-buffering'), 'no');
      assert.ok(res.headers.get('x-request-id'));
      const body = await res.text();
      assert.ok(body.endsWith('data: [DONE]\n\n'));
      assert.equal(upstreamBody<{ max_tokens?: number }>(fakes.openai, 0).max_tokens, TEST_MAX_OUTPUT_TOKENS);
    });

    test('tools round trip with streamed argument deltas', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const chargesBefore = await ledgerEntriesMetric(ctx.gw, 'chat_charge');
      const client = openAiClient(ctx.gw, key);
      const tools: OpenAI.ChatCompletionTool[] = [
        { type: 'function', function: { name: 'get_weather', description: 'Weather of a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } },
      ];
      fakes.openai.enqueue(
        { toolCalls: [{ id: 'call_w1', name: 'get_weather', arguments: { city: 'Paris', unit: 'celsius' } }] },
        { text: 'It is 21 °C in Paris.' },
      );
      const stream = await client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Weather in Paris?' }], tools, stream: true });
      const argumentPieces: string[] = [];
      let name = '';
      let finish: string | null | undefined;
      for await (const chunk of stream) {
        const call = chunk.choices[0]?.delta.tool_calls?.[0];
        if (call?.function?.name) name = call.function.name;
        if (call?.function?.arguments) argumentPieces.push(call.function.arguments);
        finish = chunk.choices[0]?.finish_reason ?? finish;
      }
      assert.equal(name, 'get_weather');
      assert.ok(argumentPieces.length > 1, 'arguments arrive in several deltas');
      assert.deepEqual(JSON.parse(argumentPieces.join('')), { city: 'Paris', unit: 'celsius' });
      assert.equal(finish, 'tool_calls');

      const answer = await client.chat.completions.create({
        model: 'gpt-5.4-mini',
        tools,
        messages: [
          { role: 'user', content: 'Weather in Paris?' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_w1', type: 'function', function: { name: 'get_weather', arguments: argumentPieces.join('') } }] },
          { role: 'tool', tool_call_id: 'call_w1', content: '{"temp":21}' },
        ],
      });
      assert.equal(answer.choices[0]?.message.content, 'It is 21 °C in Paris.');
      const sent = fakes.openai.requests[1]?.body as { messages: Array<{ role: string; tool_call_id?: string }> };
      assert.deepEqual(sent.messages.map((m) => m.role), ['user', 'assistant', 'tool']);
      assert.equal(sent.messages[2]?.tool_call_id, 'call_w1');
      await latestRow(ctx.gw, userId);
      assert.deepEqual((await chatLedger(ctx.gw, userId)).map((l) => l.kind), ['chat_charge', 'chat_charge'], 'one charge per request');
      // Counted once the settlement's commit is acknowledged, a moment after the rows are visible.
      let charges = 0;
      for (const deadline = Date.now() + 5000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 10))) {
        charges = (await ledgerEntriesMetric(ctx.gw, 'chat_charge')) - chargesBefore;
        if (charges >= 2) break;
      }
      assert.equal(charges, 2, 'and the metric counts them');
    });

    test('images by URL and in base64 reach the upstream', async () => {
      const { key } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'Two images.' });
      await openAiClient(ctx.gw, key).chat.completions.create({
        model: 'gpt-5.4-mini',
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'Describe these.' },
              { type: 'image_url', image_url: { url: 'https://example.com/cat.png', detail: 'low' } },
              { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } },
            ],
          },
        ],
      });
      const content = upstreamBody<{ messages: Array<{ content: Array<Record<string, { url: string; detail?: string }>> }> }>(fakes.openai, 0).messages[0]?.content ?? [];
      assert.deepEqual(content.slice(1).map((p) => p.image_url?.url), ['https://example.com/cat.png', `data:image/png;base64,${PNG_BASE64}`]);
      assert.equal(content[1]?.image_url?.detail, 'low');
    });

    test('an OpenAI client on a Claude model served by an Anthropic upstream: translated both ways, cache usage billed exactly', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.anthropic.enqueue(
        { text: 'Bonjour.', usage: { input: 100, output: 12, cached: 50, cacheCreation: 30 } },
        { text: 'Streamed bonjour.', usage: { input: 10, output: 4 } },
      );
      const client = openAiClient(ctx.gw, key);
      const completion = await client.chat.completions.create({
        model: 'claude-sonnet-4-6',
        messages: [{ role: 'system', content: 'Answer in French.' }, { role: 'user', content: [{ type: 'text', text: 'Hello' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_BASE64}` } }] }],
        max_tokens: 200,
      });
      assert.equal(completion.model, 'claude-sonnet-4-6');
      assert.equal(completion.choices[0]?.message.content, 'Bonjour.');
      // Every prompt token, cache reads and writes included, as OpenAI counts them.
      assert.equal(completion.usage?.prompt_tokens, 180);
      assert.equal(completion.usage?.prompt_tokens_details?.cached_tokens, 50);
      const upstream = fakes.anthropic.requests[0]?.body as { model: string; system: unknown; max_tokens: number; messages: Array<{ content: Array<{ type: string; source?: { type: string } }> }> };
      assert.equal(upstream.model, 'claude-upstream-sonnet');
      assert.equal(upstream.max_tokens, 200);
      assert.match(JSON.stringify(upstream.system), /Answer in French/);
      assert.deepEqual(upstream.messages[0]?.content.map((b) => b.source?.type ?? b.type), ['text', 'base64']);
      const p = await prices(ctx.gw, key, 'claude-sonnet-4-6');
      // The 30 cache writes at Claude's cache-write price (1.25× input), as Anthropic bills them.
      const row = await assertSettled(ctx.gw, userId, completion.id, expectedCost(p, { input: 180, output: 12, cached: 50, writes: 30 }));
      assert.deepEqual([row.input_tokens, row.cached_tokens, row.cache_creation_tokens], [180, 50, 30]);

      const stream = await client.chat.completions.create({ model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'Hi' }], stream: true, stream_options: { include_usage: true } });
      let text = '';
      let id = '';
      for await (const chunk of stream) {
        id = chunk.id;
        assert.equal(chunk.model, 'claude-sonnet-4-6');
        text += chunk.choices[0]?.delta.content ?? '';
      }
      assert.equal(text, 'Streamed bonjour.');
      await assertSettled(ctx.gw, userId, id, expectedCost(p, { input: 10, output: 4 }));
    });

    test('upstream 400 is passed through (its message, nothing charged); 429 keeps Retry-After', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = openAiClient(ctx.gw, key);
      fakes.openai.enqueue({ rejectFields: ['seed'] });
      await assert.rejects(
        client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], seed: 7 }),
        (error: unknown) => {
          assert.ok(error instanceof OpenAI.BadRequestError);
          assert.equal(error.code, 'invalid_input');
          assert.match(error.message, /Unrecognized request argument supplied: seed/);
          return true;
        },
      );
      assert.equal(upstreamBody<{ seed?: number }>(fakes.openai, 0).seed, 7, 'unknown fields are passed through');
      const failed = await latestRow(ctx.gw, userId);
      assert.deepEqual([failed.status, failed.cost_micro, failed.error_code], ['failed', 0, 'invalid_input']);

      fakes.openai.enqueue({ error: { status: 429, message: 'Slow down.', retryAfter: 7 } });
      const res = await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(res.status, 429);
      assert.equal(res.headers.get('retry-after'), '7');
      assert.deepEqual(res.body, { error: { message: 'Slow down.', type: 'rate_limit_error', param: null, code: 'rate_limited' } });
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000, 'failed requests cost nothing');
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('a cut upstream stream ends with an explicit error and is billed for what was observed (estimated)', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ text: 'alpha beta gamma delta epsilon zeta eta theta iota kappa', cutAfterChunks: 4 });
      const body = { model: 'gpt-5.4-mini', messages: [{ role: 'user' as const, content: 'Greek letters please.' }], stream: true as const };
      const stream = await openAiClient(ctx.gw, key).chat.completions.create(body);
      let text = '';
      await assert.rejects(
        (async () => {
          for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
        })(),
        (error: unknown) => error instanceof OpenAI.APIError && /stream broke/.test(error.message),
      );
      assert.equal(text, 'alpha beta gamma delta epsilon zeta ');
      const row = await latestRow(ctx.gw, userId);
      assert.equal(row.status, 'cut');
      assert.equal(row.usage_estimated, 1);
      // The upstream reported nothing: the prompt at its estimate, the output as the bytes received.
      assert.equal(row.input_tokens, estimatePromptTokens(parseOpenAiChatRequest(body).request));
      assert.equal(row.output_tokens, Buffer.byteLength(text));
      await assertSettled(ctx.gw, userId, row.id, expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: row.input_tokens, output: row.output_tokens }));
      assert.ok(row.cost_micro > 0);
    });

    test('failover: the first route answers 503, the second answers; the client sees one stream', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fakes.openai.enqueue({ error: { status: 503, message: 'Overloaded.' } }, { text: 'From the backup route.', usage: { input: 20, output: 5 } });
      const res = await fetch(`${ctx.gw.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }], stream: true }),
      });
      assert.equal(res.status, 200);
      const sse = await res.text();
      assert.equal(sse.match(/"role":"assistant"/g)?.length, 1, 'the stream opened once');
      assert.equal(sse.match(/data: \[DONE\]/g)?.length, 1);
      assert.ok(!sse.includes('Overloaded'));
      assert.deepEqual(fakes.openai.requests.map((r) => (r.body as { model: string }).model), ['gpt-primary', 'gpt-backup']);
      const row = await latestRow(ctx.gw, userId);
      assert.deepEqual([row.provider, row.upstream_model, row.attempts, row.status], ['oa-backup', 'gpt-backup', 2, 'succeeded']);
      await assertSettled(ctx.gw, userId, row.id, expectedCost(await prices(ctx.gw, key, 'gpt-5.4'), { input: 20, output: 5 }));

      fakes.openai.enqueue({ error: { status: 503, message: 'Down A.' } }, { error: { status: 503, message: 'Down B.', retryAfter: 4 } });
      const failed = await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(failed.status, 503);
      assert.equal(failed.headers.get('retry-after'), '4');
      assert.equal((failed.body as { error: { code: string } }).error.code, 'service_unavailable');
    });

    test('a client that leaves mid-stream: the upstream is read to its end silently and its usage billed', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const words = Array.from({ length: 40 }, (_, i) => `word${i}`).join(' ');
      fakes.openai.enqueue({ text: words, chunkDelayMs: 20, usage: { input: 30, output: 60 } });
      const stream = await openAiClient(ctx.gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Talk.' }], stream: true });
      let seen = '';
      for await (const chunk of stream) {
        seen += chunk.choices[0]?.delta.content ?? '';
        if (seen.length > 0) break;
      }
      assert.equal(await fakes.openai.requests[0]?.outcome, 'completed', 'the upstream was read to its end');
      const row = await latestRow(ctx.gw, userId);
      assert.equal(row.status, 'client_closed');
      assert.deepEqual([row.input_tokens, row.output_tokens, row.usage_estimated], [30, 60, 0]);
      await assertSettled(ctx.gw, userId, row.id, expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: 30, output: 60 }));
    });

    test('a model without configured routes is served by the local model, tools included', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = openAiClient(ctx.gw, key);
      const completion = await client.chat.completions.create({ model: 'deepseek-v4-flash', messages: [{ role: 'user', content: 'Hello local' }] });
      assert.equal(completion.choices[0]?.message.content, 'You said: Hello local');
      const row = await assertSettled(ctx.gw, userId, completion.id, expectedCost(await prices(ctx.gw, key, 'deepseek-v4-flash'), { input: completion.usage?.prompt_tokens ?? 0, output: completion.usage?.completion_tokens ?? 0 }));
      assert.equal(row.provider, 'local');

      const tools: OpenAI.ChatCompletionTool[] = [{ type: 'function', function: { name: 'get_time', parameters: { type: 'object', properties: { zone: { type: 'string', enum: ['UTC'] } }, required: ['zone'] } } }];
      const call = await client.chat.completions.create({ model: 'deepseek-v4-flash', messages: [{ role: 'user', content: 'please get time' }], tools });
      const toolCall = call.choices[0]?.message.tool_calls?.[0];
      assert.ok(toolCall?.type === 'function');
      assert.equal(toolCall.function.name, 'get_time');
      assert.deepEqual(JSON.parse(toolCall.function.arguments), { zone: 'UTC' });
      assert.equal(fakes.openai.requests.length + fakes.anthropic.requests.length, 0);
    });

    test('refusals: unknown model, media model, n > 1, no key (OpenAI error objects); 402 before any upstream call', async () => {
      const { key, userId } = await ctx.gw.createUser(1);
      const post = (body: unknown) => ctx.gw.api(key, 'POST', '/api/v1/chat/completions', body);
      const unknown = await post({ model: 'gpt-9', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(unknown.status, 400);
      assert.deepEqual((unknown.body as { error: { code: string; param: string; type: string } }).error.code, 'invalid_input');
      assert.equal((unknown.body as { error: { param: string } }).error.param, 'model');
      const media = await post({ model: 'nano-banana-2', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(media.status, 400);
      assert.match((media.body as { error: { message: string } }).error.message, /media model/);
      const n = await post({ model: 'gpt-5.4-mini', n: 2, messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(n.status, 400);
      assert.equal((n.body as { error: { param: string } }).error.param, 'n');
      const anonymous = await ctx.gw.api(undefined, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(anonymous.status, 401);
      assert.equal((anonymous.body as { error: { type: string } }).error.type, 'authentication_error');
      const badJson = await fetch(`${ctx.gw.url}/api/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: '{"model":' });
      assert.equal(badJson.status, 400);
      assert.ok(((await badJson.json()) as { error?: { type: string } }).error?.type);

      // One cent cannot hold 4,096 output tokens of GPT-5.4 mini (USD 0.018).
      const poor = await post({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
      assert.equal(poor.status, 402);
      assert.deepEqual([(poor.body as { error: { code: string; type: string } }).error.code, (poor.body as { error: { type: string } }).error.type], ['insufficient_balance', 'insufficient_quota']);
      assert.match((poor.body as { error: { message: string } }).error.message, /lower max_tokens/i);
      assert.equal(fakes.openai.requests.length, 0, 'no upstream call');
      assert.equal(await balanceMicro(ctx.gw, userId), 10_000);
    });

    test('reported usage above the hold is charged at most the hold, and named for the operator', async () => {
      const { key, userId } = await ctx.gw.createUser(1);
      // The prompt estimate cannot see what an upstream may add (a document by URL): 100,000 input
      // tokens reported. The hold is what the user agreed to risk (issue 29): no more is taken.
      fakes.openai.enqueue({ text: 'ok', usage: { input: 100_000, output: 2 } });
      const completion = await openAiClient(ctx.gw, key).chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 10 });
      const row = await settledRow(ctx.gw, completion.id);
      assert.ok(row.input_tokens < 100_000, `input capped at the prompt estimate (${row.input_tokens})`);
      assert.equal(completion.usage?.prompt_tokens, row.input_tokens, 'the answer reports what was billed');
      assert.ok(row.cost_micro <= row.hold_micro, 'never above the hold');
      assert.equal(row.uncollected_micro, 0);
      assert.equal(await balanceMicro(ctx.gw, userId), 10_000 - row.cost_micro);
      const lines = (await chatLedger(ctx.gw, userId)).filter((l) => l.reference === completion.id);
      assert.equal(lines.reduce((sum, l) => sum + l.amount, 0), -row.cost_micro);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('concurrent streams on a small balance never overdraw it', async () => {
      const { key, userId } = await ctx.gw.createUser(1);
      fakes.openai.setDefault({ text: 'ok then', delayMs: 150, usage: { input: 40, output: 3 } });
      const client = openAiClient(ctx.gw, key);
      // Each request holds about USD 0.004 (700 output tokens): two fit in one cent, a third does not.
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, async () => {
          const stream = await client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'go' }], max_tokens: 700, stream: true });
          let text = '';
          for await (const chunk of stream) text += chunk.choices[0]?.delta.content ?? '';
          return text;
        }),
      );
      const ok = outcomes.filter((o) => o.status === 'fulfilled');
      const refused = outcomes.filter((o) => o.status === 'rejected' && o.reason instanceof OpenAI.APIError && o.reason.status === 402);
      assert.ok(ok.length >= 1 && ok.length <= 2, `${ok.length} streams ran`);
      assert.equal(ok.length + refused.length, 8);
      const cost = expectedCost(await prices(ctx.gw, key, 'gpt-5.4-mini'), { input: 40, output: 3 });
      assert.equal(await balanceMicro(ctx.gw, userId), 10_000 - ok.length * cost);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
      const rows = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select(['status']).where('user_id', '=', userId).execute();
      assert.deepEqual(rows.map((r) => r.status), Array(ok.length).fill('succeeded'), '402s are not recorded');
      const stillHeld = await settledRow(ctx.gw, (await latestRow(ctx.gw, userId)).id);
      assert.equal(stillHeld.status, 'succeeded');
    });
  },
  { configFile: fakes.config },
);
