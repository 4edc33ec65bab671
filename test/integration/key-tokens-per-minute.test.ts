/**
 * Tokens per minute per API key (issue 33, item 6): a request takes its worst case (prompt estimate
 * plus max_tokens) from the key's minute before its hold and gives back what it did not use when it
 * settles; a request that does not fit is refused with 429 and Retry-After in the protocol's own
 * shape (OpenAI's RateLimitError, Anthropic's rate_limit_error), one larger than the whole limit
 * without; nothing is held for a refusal. Across two API processes on shared stores the minute is one.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { OpenAiChatFake } from '../fakes/openai-chat.fake.ts';
import { anthropicClient, openAiClient, startChatFakes } from '../support/chat-gateway.ts';
import { ADMIN_TOKEN, describeEachMode } from '../support/gateway.ts';
import { assertBooks, createLimitedKey } from '../support/limited-keys.ts';
import { call, createSharedStores, type GatewayProcess, spawnGateways } from '../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Minutes are aligned to the clock: start a test's requests with at least 20 s of its minute left. */
async function freshMinute(): Promise<void> {
  const left = 60_000 - (Date.now() % 60_000);
  if (left < 20_000) await sleep(left + 50);
}

const ask = (maxTokens: number, content = 'hi') => ({ model: 'gpt-5.4-mini', messages: [{ role: 'user' as const, content }], max_tokens: maxTokens });

describeEachMode('tokens per minute per API key', (ctx) => {
  before(async () => {
    // The text model is served by the OpenAI fake (scripted usage and delays), not the built-in local provider.
    await ctx.gw.admin('PUT', '/admin/v1/providers/tpm-openai', { type: 'openai', baseUrl: fakes.openai.baseUrl, keys: [{ secret: 'sk-tpm-openai-0000000000000001' }] });
    fakes.openai.moreKeys.add('sk-tpm-openai-0000000000000001');
    await ctx.gw.admin('PUT', '/admin/v1/routes/gpt-5.4-mini', { entries: [{ provider: 'tpm-openai', model: 'gpt-fake' }] });
  });

  test('running requests count their worst case; a settled one counts what it used, and the rest comes back', async () => {
    const { key: owner, userId } = await ctx.gw.createUser(1_000);
    const limited = await createLimitedKey(ctx.gw, owner, { tokensPerMinute: 3000 });
    await freshMinute();
    const client = openAiClient(ctx.gw, limited.key);
    // Each may use its prompt (its estimate: about 1,050 tokens, the bound the hold is priced with) and 400
    // of output: two fit in 3,000, a third does not while they run.
    fakes.openai.enqueue({ text: 'one', usage: { input: 5, output: 20 }, delayMs: 600 }, { text: 'two', usage: { input: 5, output: 20 }, delayMs: 600 });
    const running = [client.chat.completions.create(ask(400, 'one')), client.chat.completions.create(ask(400, 'two'))];
    await sleep(200);
    const refused = await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', ask(400, 'three'));
    assert.equal(refused.status, 429, JSON.stringify(refused.body));
    assert.equal((refused.body as { error: { type: string } }).error.type, 'rate_limit_error', 'the OpenAI error object');
    assert.match((refused.body as { error: { message: string } }).error.message, /3000 tokens per minute/);
    const retryAfter = Number(refused.headers.get('retry-after'));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    const answers = await Promise.all(running);
    assert.deepEqual(answers.map((a) => a.usage?.completion_tokens), [20, 20]);
    // Settled: 2 × 25 are counted, so two more worst cases fit.
    fakes.openai.enqueue({ text: 'four', usage: { input: 5, output: 20 } }, { text: 'five', usage: { input: 5, output: 20 } });
    assert.equal((await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', ask(400, 'four'))).status, 200);
    assert.equal((await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', ask(400, 'five'))).status, 200);
    // A whole answer's settlement may linger a few milliseconds to share a commit.
    const rowsOf = () => ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('status').where('api_key_id', '=', limited.id).execute();
    for (const deadline = Date.now() + 5000; (await rowsOf()).length < 4 && Date.now() < deadline; ) await sleep(20);
    await sleep(100);
    assert.deepEqual((await rowsOf()).map((r) => r.status), ['succeeded', 'succeeded', 'succeeded', 'succeeded'], 'the refused request held nothing and left no row');
    assert.equal(await ctx.gw.gateway.services.database.db.selectFrom('chat_holds').select('id').where('api_key_id', '=', limited.id).executeTakeFirst(), undefined);
    assert.ok(userId);
    await assertBooks(ctx.gw);
  });

  test('429 in the Anthropic shape on /v1/messages; a request larger than the whole limit is refused without Retry-After; no limit, no count', async () => {
    const { key: owner } = await ctx.gw.createUser(1_000);
    const limited = await createLimitedKey(ctx.gw, owner, { tokensPerMinute: 1500 });
    await freshMinute();
    const tooLarge = await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', ask(1000));
    assert.equal(tooLarge.status, 429, JSON.stringify(tooLarge.body));
    assert.match((tooLarge.body as { error: { message: string } }).error.message, /Request too large.*Lower max_tokens/);
    assert.equal(tooLarge.headers.get('retry-after'), null, 'waiting would not help');

    fakes.openai.enqueue({ text: 'slow', usage: { input: 5, output: 10 }, delayMs: 800 });
    const first = openAiClient(ctx.gw, limited.key).chat.completions.create(ask(300));
    await sleep(200);
    const anthropic = anthropicClient(ctx.gw, limited.key);
    await assert.rejects(anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 300, messages: [{ role: 'user', content: 'over' }] }), (error: unknown) => {
      assert.ok(error instanceof Anthropic.RateLimitError, String(error));
      assert.equal((error.error as { type: string; error: { type: string } }).type, 'error');
      assert.equal((error.error as { error: { type: string } }).error.type, 'rate_limit_error');
      assert.ok(Number(error.headers?.get('retry-after')) >= 1);
      return true;
    });
    await first;

    const unlimited = await createLimitedKey(ctx.gw, owner, { requestsPerMinute: 1000 });
    for (let i = 0; i < 3; i++) {
      fakes.openai.enqueue({ text: 'free', usage: { input: 5, output: 10 } });
      assert.equal((await ctx.gw.api(unlimited.key, 'POST', '/api/v1/chat/completions', ask(4000))).status, 200);
    }
  });

  test('embeddings take their input bound and give back to exactly what the upstream counted', async () => {
    const { key: owner } = await ctx.gw.createUser(1_000);
    const limited = await createLimitedKey(ctx.gw, owner, { tokensPerMinute: 100 });
    await freshMinute();
    const embed = (bytes: number) => ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'a '.repeat(bytes / 2) });
    assert.equal((await embed(60)).status, 200);
    const rowsOf = () => ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('input_tokens').where('api_key_id', '=', limited.id).execute();
    for (const deadline = Date.now() + 5000; (await rowsOf()).length < 1 && Date.now() < deadline; ) await sleep(20);
    const used = Number((await rowsOf())[0]?.input_tokens);
    assert.ok(used > 0 && used < 60, `the upstream counted ${used} of the 60 bytes' bound`);
    const tooLarge = await embed(102);
    assert.equal(tooLarge.status, 429, JSON.stringify(tooLarge.body));
    assert.match(JSON.stringify(tooLarge.body), /Request too large/);
    // What is left of the minute is 100 − used, to the token: a bound one above it is refused, one at it fits.
    const left = 100 - used;
    const over = await embed(left % 2 === 0 ? left + 2 : left + 1);
    assert.equal(over.status, 429, JSON.stringify(over.body));
    assert.ok(Number(over.headers.get('retry-after')) >= 1);
    assert.equal((await embed(left % 2 === 0 ? left : left - 1)).status, 200);
  });

  test('the limit is set, refused when not a positive whole number, and cleared through the keys API', async () => {
    const { key: owner } = await ctx.gw.createUser(1_000);
    const limited = await createLimitedKey(ctx.gw, owner, { tokensPerMinute: 5000 });
    const shown = await ctx.gw.api(owner, 'GET', '/api/v1/keys');
    const listed = (shown.body as { data: Array<{ id: string; limits: { tokensPerMinute: number | null } }> }).data.find((k) => k.id === limited.id);
    assert.equal(listed?.limits.tokensPerMinute, 5000);
    for (const bad of [0, -5, 1.5, '100']) {
      const refused = await ctx.gw.api(owner, 'PATCH', `/api/v1/keys/${limited.id}`, { limits: { tokensPerMinute: bad } });
      assert.equal(refused.status, 400, `${bad}: ${JSON.stringify(refused.body)}`);
    }
    const cleared = await ctx.gw.api(owner, 'PATCH', `/api/v1/keys/${limited.id}`, { limits: { tokensPerMinute: null } });
    assert.equal(cleared.status, 200, JSON.stringify(cleared.body));
    assert.equal((cleared.body as { data: { limits: { tokensPerMinute: number | null } } }).data.limits.tokensPerMinute, null);
  });
});

describe('tokens per minute across two API processes [scaleout]', async () => {
  const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));
  test('requests through either process share one minute: the third is refused in the OpenAI and the Anthropic shape', { skip }, async () => {
    const fake = await OpenAiChatFake.start({ apiKey: 'sk-tpm-fleet-file-key-0000000000' });
    const stores = await createSharedStores('scaleout', {
      providers: { file: { type: 'openai', baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs: 5000 } },
      routes: { 'gpt-5.4-mini': [{ provider: 'file', model: 'gpt-fleet' }] },
    });
    const fleet: GatewayProcess[] = [];
    try {
      const [api1, api2] = await spawnGateways(stores, ['api', 'api'], fleet);
      const user = (await call(api1.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 1000 })).body as { id: string };
      const manager = ((await call(api1.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, { manageKeys: true })).body as { key: string }).key;
      const created = (await call(api2.url, manager, 'POST', '/api/v1/keys', { name: 'tpm', limits: { tokensPerMinute: 3100 } })).body as { data: { key: string; limits: { tokensPerMinute: number } } };
      assert.equal(created.data.limits.tokensPerMinute, 3100);
      const key = created.data.key;
      await freshMinute();
      fake.enqueue({ text: 'a', usage: { input: 5, output: 10 }, delayMs: 1500 }, { text: 'b', usage: { input: 5, output: 10 }, delayMs: 1500 });
      const openai = (url: string) => new OpenAI({ baseURL: `${url}/api/v1`, apiKey: key, maxRetries: 0 });
      const running = [openai(api1.url).chat.completions.create(ask(450, 'a')), openai(api2.url).chat.completions.create(ask(450, 'b'))];
      await sleep(400);
      await assert.rejects(openai(api2.url).chat.completions.create(ask(450, 'c')), (error: unknown) => {
        assert.ok(error instanceof OpenAI.RateLimitError, String(error));
        assert.ok(Number(error.headers?.get('retry-after')) >= 1);
        return true;
      });
      const anthropic = new Anthropic({ baseURL: `${api1.url}/api`, apiKey: key, maxRetries: 0 });
      await assert.rejects(anthropic.messages.create({ model: 'claude-sonnet-4-6', max_tokens: 450, messages: [{ role: 'user', content: 'd' }] }), (error: unknown) => {
        assert.ok(error instanceof Anthropic.RateLimitError, String(error));
        return true;
      });
      assert.deepEqual((await Promise.all(running)).map((a) => a.choices[0]?.message.content).sort(), ['a', 'b']);
      assert.equal(fake.requests.length, 2, 'the refused requests reached no upstream');
    } finally {
      await Promise.all(fleet.map((p) => p.stop()));
      await stores.dispose();
      await fake.close();
    }
  });
});
