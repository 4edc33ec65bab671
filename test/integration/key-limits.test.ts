/**
 * Per-key limits (issue 21, item 15) on whole gateways in both modes: the spend cap holds under 200
 * concurrent requests on one key (media creates and chat completions), in the transaction of the
 * debit or hold, and `ledger verify` stays clean; an expired key is invalid.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

interface KeyData {
  id: string;
  limits: { spendCapMicroUsd: number | null; spendCapPeriod: string | null; expiresAt: string | null };
  spendThisMonthMicroUsd: number;
  key?: string;
}

async function createKey(gw: TestGateway, owner: string, limits: Record<string, unknown>): Promise<KeyData & { key: string }> {
  const created = await gw.api(owner, 'POST', '/api/v1/keys', { name: 'limited', limits });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return (created.body as { data: KeyData & { key: string } }).data;
}

async function keySpend(gw: TestGateway, keyId: string): Promise<{ spent: number; held: number }> {
  const row = await gw.gateway.services.database.db.selectFrom('api_key_spend').select(['spent_micro', 'held_micro']).where('key_id', '=', keyId).where('period', '=', 'total').executeTakeFirst();
  return { spent: Number(row?.spent_micro ?? 0), held: Number(row?.held_micro ?? 0) };
}

/** What `read` returns once it returns something (the chat ledger's settlements may linger). */
async function eventually<T>(read: () => Promise<T | undefined>): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const value = await read();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('never happened');
}

describeEachMode('per-key limits', (ctx) => {
  test('200 concurrent media creates on one key: exactly what the cap covers passes, the rest 402', async () => {
    const { key: owner } = await ctx.gw.createUser(100_000);
    const quote = await ctx.gw.api(owner, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'price probe' } });
    assert.equal(quote.status, 200, JSON.stringify(quote.body));
    const taskId = (quote.body as { data: { taskId: string } }).data.taskId;
    const task = await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('cost_micro').where('id', '=', taskId).executeTakeFirstOrThrow();
    const unit = Number(task.cost_micro);
    assert.ok(unit > 0);
    const limited = await createKey(ctx.gw, owner, { spendCapMicroUsd: unit * 7, spendCapPeriod: 'month' });
    assert.deepEqual([limited.limits.spendCapMicroUsd, limited.limits.spendCapPeriod], [unit * 7, 'month']);

    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, i) => ctx.gw.api(limited.key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: `capped ${i}` } })),
    );
    const passed = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 402);
    assert.equal(passed, 7, JSON.stringify(answers.find((a) => a.status !== 200 && a.status !== 402)?.body));
    assert.equal(refused.length, 193);
    const error = (refused[0]?.body as { error: { code: string } } | undefined)?.error;
    assert.ok(error);
    assert.equal(error.code, 'key_spend_cap_reached');

    const spend = await keySpend(ctx.gw, limited.id);
    assert.ok(spend.spent <= unit * 7);
    const debits = await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('cost_micro').where('api_key_id', '=', limited.id).execute();
    assert.equal(
      debits.reduce((n, t) => n + Number(t.cost_micro), 0),
      spend.spent,
    );
    const listed = (await ctx.gw.api(owner, 'GET', '/api/v1/keys')).body as { data: KeyData[] };
    assert.equal(listed.data.find((k) => k.id === limited.id)?.spendThisMonthMicroUsd, spend.spent);
    assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
  });

  test('200 concurrent chat completions on one key: the charges never pass the cap, the rest 402 in the OpenAI shape', async () => {
    const { key: owner } = await ctx.gw.createUser(100_000);
    const probe = await ctx.gw.api(owner, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 50 });
    assert.equal(probe.status, 200, JSON.stringify(probe.body));
    const hold = await eventually(() => ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select(['hold_micro', 'cost_micro']).executeTakeFirst());
    const cap = Number(hold.hold_micro) * 5;
    const limited = await createKey(ctx.gw, owner, { spendCapMicroUsd: cap });

    const answers = await Promise.all(
      Array.from({ length: 200 }, () => ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hello' }], max_tokens: 50 })),
    );
    const passed = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 402);
    assert.equal(passed + refused.length, 200, JSON.stringify(answers.find((a) => a.status !== 200 && a.status !== 402)?.body));
    assert.ok(passed >= 5, `at least the holds the cap covers pass (${passed})`);
    assert.ok(refused.length > 0);
    const error = (refused[0]?.body as { error: { type: string; message: string } } | undefined)?.error;
    assert.ok(error);
    assert.equal(typeof error.type, 'string');
    assert.ok(error.message.includes('spend cap'), JSON.stringify(refused[0]?.body));

    // A whole answer's settlement may linger a few milliseconds to share a commit.
    const spend = await eventually(async () => {
      const now = await keySpend(ctx.gw, limited.id);
      return now.held === 0 ? now : undefined;
    });
    assert.ok(spend.spent <= cap, `${spend.spent} <= ${cap}`);
    const charged = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('cost_micro').where('api_key_id', '=', limited.id).execute();
    assert.equal(
      charged.reduce((n, r) => n + Number(r.cost_micro), 0),
      spend.spent,
    );
    assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
  });

  test('an expired key is invalid; limits change and clear through PATCH', async () => {
    const { key: owner } = await ctx.gw.createUser(1_000);
    const soon = await createKey(ctx.gw, owner, { expiresAt: new Date(Date.now() + 1_500).toISOString() });
    assert.equal((await ctx.gw.api(soon.key, 'GET', '/api/v1/keys')).status, 200);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    assert.equal((await ctx.gw.api(soon.key, 'GET', '/api/v1/keys')).status, 401);

    const other = await createKey(ctx.gw, owner, {});
    const past = await ctx.gw.api(owner, 'PATCH', `/api/v1/keys/${other.id}`, { limits: { expiresAt: new Date(Date.now() - 1_000).toISOString() } });
    assert.equal(past.status, 400);
    const set = await ctx.gw.api(owner, 'PATCH', `/api/v1/keys/${other.id}`, { limits: { spendCapMicroUsd: 1_000_000, requestsPerMinute: 60, allowedModels: ['gpt-5.4-mini'] } });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const changed = (set.body as { data: KeyData & { limits: { requestsPerMinute: number; allowedModels: string[] } } }).data;
    assert.deepEqual([changed.limits.spendCapMicroUsd, changed.limits.spendCapPeriod, changed.limits.requestsPerMinute, changed.limits.allowedModels], [1_000_000, 'total', 60, ['gpt-5.4-mini']]);
    const cleared = await ctx.gw.api(owner, 'PATCH', `/api/v1/keys/${other.id}`, { name: 'renamed', limits: { spendCapMicroUsd: null } });
    const after = (cleared.body as { data: KeyData & { name: string } }).data;
    assert.deepEqual([after.name, after.limits.spendCapMicroUsd, after.limits.spendCapPeriod], ['renamed', null, null]);
  });

  test('the model allow-list refuses other models with 403, in the route\'s own error shape', async () => {
    const { key: owner } = await ctx.gw.createUser(10_000);
    const limited = await createKey(ctx.gw, owner, { allowedModels: ['gpt-5.4-mini'] });
    const media = await ctx.gw.api(limited.key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'not allowed' } });
    assert.equal(media.status, 403, JSON.stringify(media.body));
    assert.equal((media.body as { error: { code: string } }).error.code, 'forbidden');
    const chat = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages', { model: 'claude-haiku-4.5', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] });
    assert.equal(chat.status, 403, JSON.stringify(chat.body));
    assert.equal((chat.body as { type: string }).type, 'error', 'the Anthropic error object');
    const allowed = await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
    assert.equal(allowed.status, 200, JSON.stringify(allowed.body));
  });

  test('requests per minute: 429 with Retry-After past the limit', async () => {
    const { key: owner } = await ctx.gw.createUser(10_000);
    const limited = await createKey(ctx.gw, owner, { requestsPerMinute: 3 });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 }));
    assert.deepEqual(
      answers.map((a) => a.status),
      [200, 200, 200, 429, 429],
    );
    const refused = answers[3];
    assert.ok(refused);
    assert.ok(Number(refused.headers.get('retry-after')) >= 1);
    assert.ok((refused.body as { error: { message: string } }).error.message.includes('per minute'));
  });

  test('concurrent generations: a burst past the limit is refused with 429', async () => {
    const { key: owner } = await ctx.gw.createUser(100_000);
    const limited = await createKey(ctx.gw, owner, { concurrentGenerations: 2 });
    const answers = await Promise.all(
      Array.from({ length: 20 }, (_, i) => ctx.gw.api(limited.key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: `burst ${i}` } })),
    );
    const passed = answers.filter((a) => a.status === 200).length;
    const refused = answers.filter((a) => a.status === 429);
    assert.equal(passed + refused.length, 20);
    assert.ok(passed >= 1 && refused.length > 0, `${passed} passed, ${refused.length} refused`);
    assert.equal((refused[0]?.body as { error: { code: string } } | undefined)?.error.code, 'rate_limited');
  });

  test('the refusal counts in words: a limit of 1 is "1 concurrent request", of 2 "2 concurrent requests"', async () => {
    const { key: owner } = await ctx.gw.createUser(100_000);
    for (const [limit, words] of [
      [1, 'this API key allows 1 concurrent request'],
      [2, 'this API key allows 2 concurrent requests'],
    ] as const) {
      const limited = await createKey(ctx.gw, owner, { concurrentGenerations: limit });
      const answers = await Promise.all(
        Array.from({ length: 10 }, (_, i) => ctx.gw.api(limited.key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: `words ${limit} ${i}` } })),
      );
      const refused = answers.find((a) => a.status === 429);
      assert.ok(refused, answers.map((a) => a.status).join(','));
      assert.equal((refused.body as { error: { message: string } }).error.message, words);
    }
  });
});
