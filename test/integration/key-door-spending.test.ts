/**
 * The key door on every spending path (issue 29, items 2 and 3), in both modes: embeddings and
 * count_tokens pass the allow-list and count towards requests per minute; each operation an agent
 * run dispatches is checked against the key that started it (a generation outside the allow-list is
 * refused in words and debits nothing; a revoked key's run is refused); storage charges count
 * against the key's spend cap in the debit's transaction (a $0 key cannot buy a plan; a renewal
 * through a capped key that the cap does not cover is unpaid; a revoked key's renewal counts to no key).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { periodEnd } from '../../src/domain/storage/storage-plans.ts';
import { verifyLedger } from '../../src/services/ledger.service.ts';
import { ScriptedOrchestrator } from '../fakes/scripted-orchestrator.ts';
import { type AgentClient, clientFor, type RunView } from '../support/agent.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const orchestrator = await ScriptedOrchestrator.start('openai');
after(() => orchestrator.close());

interface LimitedKey {
  id: string;
  key: string;
}

/**
 * A key of the owner's account with `limits`, created through POST /api/v1/keys with the owner's
 * key (the one place to change if creating limited keys comes to need a management key).
 */
async function createLimitedKey(gw: TestGateway, ownerKey: string, limits: Record<string, unknown>): Promise<LimitedKey> {
  const created = await gw.api(ownerKey, 'POST', '/api/v1/keys', { name: 'limited', limits });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return (created.body as { data: LimitedKey }).data;
}

async function balanceMicro(gw: TestGateway, userId: string): Promise<number> {
  const row = await gw.gateway.services.database.db.selectFrom('users').select('balance_micro').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.balance_micro);
}

async function keySpent(gw: TestGateway, keyId: string): Promise<number> {
  const row = await gw.gateway.services.database.db.selectFrom('api_key_spend').select('spent_micro').where('key_id', '=', keyId).where('period', '=', 'total').executeTakeFirst();
  return Number(row?.spent_micro ?? 0);
}

async function assertBooks(gw: TestGateway): Promise<void> {
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
}

/** Quotes `planId` and carries the quote out, through `c`'s key. */
async function buyPlan(c: AgentClient, planId: string, autoRenew: boolean): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  const quote = await c.call('POST', '/api/v1/agent/storage/quote', { planId });
  assert.equal(quote.status, 200, JSON.stringify(quote.body));
  const q = quote.body.data as { quoteId: string; quotaVersion: number };
  return c.call('POST', '/api/v1/agent/storage/subscribe', { quoteId: q.quoteId, quotaVersion: q.quotaVersion, autoRenew }, { 'idempotency-key': `buy-${q.quoteId}` });
}

/** The operations of one fox run (model calls, one generate_image) made with the owner's own key: what such a run commits. */
async function priceFoxRun(gw: TestGateway, ownerKey: string, userId: string): Promise<RunView['costs']['operations']> {
  const probe = clientFor(gw, ownerKey, userId);
  const conversationId = await probe.conversation();
  orchestrator.plan(conversationId, foxTurn, { text: 'Here.' });
  const run = await probe.waitFor((await probe.send(conversationId, 'a fox')).runId, ['completed']);
  return run.costs.operations;
}

const foxTurn = { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a fox', model: 'nano-banana-2' } }] };

const countBody = (model: string) => ({ model, messages: [{ role: 'user', content: 'how many tokens is this?' }] });

describeEachMode(
  'the key door on every spending path',
  (ctx) => {
    test('embeddings and count_tokens: a model outside the allow-list is 403 in the protocol\'s shape, nothing held', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const before = await balanceMicro(ctx.gw, userId);
      const limited = await createLimitedKey(ctx.gw, owner, { allowedModels: ['text-embedding-3-small', 'claude-sonnet-4-6'] });

      const embed = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'bge-m3', input: 'not this model' });
      assert.equal(embed.status, 403, JSON.stringify(embed.body));
      assert.equal((embed.body as { error: { code: string; param: string } }).error.code, 'forbidden');
      assert.equal((embed.body as { error: { param: string } }).error.param, 'model');
      const allowed = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'this one' });
      assert.equal(allowed.status, 200, JSON.stringify(allowed.body));

      const count = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages/count_tokens', countBody('claude-opus-4-7'));
      assert.equal(count.status, 403, JSON.stringify(count.body));
      assert.equal((count.body as { type: string; error: { type: string } }).type, 'error', 'the Anthropic error object');
      assert.equal((count.body as { error: { type: string } }).error.type, 'permission_error');

      const requests = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('model').where('api_key_id', '=', limited.id).execute();
      assert.deepEqual(requests.map((r) => r.model), ['text-embedding-3-small'], 'the refused embedding held nothing');
      assert.ok((await balanceMicro(ctx.gw, userId)) <= before);
      await assertBooks(ctx.gw);
    });

    test('embeddings and count_tokens count towards the key\'s requests per minute', async () => {
      const { key: owner } = await ctx.gw.createUser(1_000);
      const limited = await createLimitedKey(ctx.gw, owner, { requestsPerMinute: 2 });
      const embed = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'one' });
      assert.equal(embed.status, 200, JSON.stringify(embed.body));
      const count = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages/count_tokens', countBody('claude-opus-4-7'));
      assert.equal(count.status, 200, JSON.stringify(count.body));
      const third = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'three' });
      assert.equal(third.status, 429, JSON.stringify(third.body));
      assert.ok(Number(third.headers.get('retry-after')) >= 1);
      const fourth = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages/count_tokens', countBody('claude-opus-4-7'));
      assert.equal(fourth.status, 429, JSON.stringify(fourth.body));
    });

    test('an agent run of an allow-listed key cannot dispatch a generation for another model: refused in words, nothing debited', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const limited = await createLimitedKey(ctx.gw, owner, { allowedModels: ['gpt-5.4-mini'] });
      const c = clientFor(ctx.gw, limited.key, userId);
      const conversationId = await c.conversation();
      orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a fox', model: 'nano-banana-2' } }] }, { text: 'I may not make images with this key.' });
      const accepted = await c.send(conversationId, 'make an image of a fox');
      const run = await c.waitFor(accepted.runId, ['completed', 'failed']);

      const tool = run.steps.find((s) => s.kind === 'tool');
      assert.ok(tool, JSON.stringify(run.steps.map((s) => [s.kind, s.name, s.status])));
      const output = tool.output as { status: string; error: string } | null;
      assert.equal(output?.status, 'refused', JSON.stringify(tool));
      assert.match(output?.error ?? '', /may not use the model "nano-banana-2"/);
      assert.equal(run.costs.operations.filter((o) => o.kind === 'generation').length, 0, 'no operation was committed for it');
      const tasks = await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('id').where('user_id', '=', userId).execute();
      assert.deepEqual(tasks, [], 'no generation was created or debited');
      const debits = await ctx.gw.gateway.services.database.db.selectFrom('ledger_entries').select('kind').where('user_id', '=', userId).where('kind', '=', 'generation_debit').execute();
      assert.deepEqual(debits, []);
      await assertBooks(ctx.gw);
    });

    test('an agent run\'s operations count towards the key\'s requests per minute, and a revoked key\'s run is refused', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const limited = await createLimitedKey(ctx.gw, owner, { requestsPerMinute: 1 });
      const c = clientFor(ctx.gw, limited.key, userId);
      const conversationId = await c.conversation();
      orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a fox', model: 'nano-banana-2' } }] }, { text: 'Done.' });
      const accepted = await c.send(conversationId, 'make an image of a fox');
      const run = await c.waitFor(accepted.runId, ['completed', 'failed']);
      // The run's first model call took the key's one request of the minute; what it dispatched next was refused.
      const refusals = run.steps.flatMap((s) => [JSON.stringify(s.output)]).filter((o) => o.includes('per minute'));
      assert.ok(refusals.length > 0, JSON.stringify(run.steps.map((s) => [s.kind, s.name, s.status, s.output])));
      assert.deepEqual(await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('id').where('user_id', '=', userId).execute(), []);
      const direct = await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
      assert.equal(direct.status, 429, 'the run\'s operation counted for the key');

      const other = await createLimitedKey(ctx.gw, owner, {});
      assert.equal((await ctx.gw.api(owner, 'DELETE', `/api/v1/keys/${other.id}`)).status, 200);
      await assert.rejects(ctx.gw.gateway.services.keyDoor.admitRunOperation(other.id, 'gpt-5.4-mini', 'chat'), (error: { code?: string; message?: string }) => {
        assert.equal(error.code, 'forbidden');
        assert.match(error.message ?? '', /revoked/);
        return true;
      });
      await assertBooks(ctx.gw);
    });

    test('a key narrowed or revoked while its run waits: the resumed run\'s generation is refused in words, nothing debited', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const ownerClient = clientFor(ctx.gw, owner, userId);
      for (const change of ['narrowed', 'revoked'] as const) {
        const limited = await createLimitedKey(ctx.gw, owner, {});
        const c = clientFor(ctx.gw, limited.key, userId);
        const conversationId = await c.conversation();
        orchestrator.plan(conversationId, foxTurn, { text: 'Done.' });
        // A limit below the image's price: the run waits for budget before the generation is dispatched.
        const accepted = await c.send(conversationId, 'a fox', { maxCostMicroUsd: '60000' });
        const waiting = await c.waitFor(accepted.runId, ['waiting_for_budget']);
        const changed =
          change === 'narrowed'
            ? await ctx.gw.api(owner, 'PATCH', `/api/v1/keys/${limited.id}`, { limits: { allowedModels: ['gpt-5.4-mini'] } })
            : await ctx.gw.api(owner, 'DELETE', `/api/v1/keys/${limited.id}`);
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
        const patched = await ownerClient.call('PATCH', `/api/v1/agent/runs/${accepted.runId}/budget`, { maxCostMicroUsd: '500000', expectedVersion: waiting.budget.version });
        assert.equal(patched.status, 200, JSON.stringify(patched.body));
        assert.equal((await ownerClient.call('POST', `/api/v1/agent/runs/${accepted.runId}/resume`)).status, 200);
        const run = await ownerClient.waitFor(accepted.runId, ['completed', 'failed']);
        const output = run.steps.find((s) => s.kind === 'tool')?.output as { status: string; error: string } | undefined;
        assert.equal(output?.status, 'refused', `${change}: ${JSON.stringify(run.steps)}`);
        assert.match(output?.error ?? '', change === 'narrowed' ? /may not use the model "nano-banana-2"/ : /revoked/);
        assert.deepEqual(await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('id').where('api_key_id', '=', limited.id).execute(), []);
      }
      await assertBooks(ctx.gw);
    });

    test('a generation of a run past the key\'s spend cap is refused in words: no debit, the run goes on', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(100_000);
      const ops = await priceFoxRun(ctx.gw, owner, userId);
      const generation = Number(ops.find((o) => o.kind === 'generation')?.estimateMicroUsd);
      const chatHolds = ops.filter((o) => o.kind === 'chat').reduce((n, o) => n + Number(o.estimateMicroUsd), 0);
      // The model calls fit the cap; the generation does not.
      const cap = generation - 1;
      assert.ok(chatHolds < cap, `${chatHolds} < ${cap}`);
      const limited = await createLimitedKey(ctx.gw, owner, { spendCapMicroUsd: cap });
      const c = clientFor(ctx.gw, limited.key, userId);
      const conversationId = await c.conversation();
      orchestrator.plan(conversationId, foxTurn, { text: 'The key\'s cap stopped the image.' });
      const run = await c.waitFor((await c.send(conversationId, 'a fox')).runId, ['completed', 'failed']);
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const output = run.steps.find((s) => s.kind === 'tool')?.output as { status: string; error: string } | undefined;
      assert.equal(output?.status, 'refused', JSON.stringify(run.steps));
      assert.match(output?.error ?? '', /spend cap/);
      assert.deepEqual(await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('id').where('api_key_id', '=', limited.id).execute(), []);
      assert.ok((await keySpent(ctx.gw, limited.id)) <= cap);
      await assertBooks(ctx.gw);
    });

    test('a run of a key whose cap is spent ends failed with key_spend_cap_reached, not after trying every fallback model', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const zero = await createLimitedKey(ctx.gw, owner, { spendCapMicroUsd: 0 });
      const c = clientFor(ctx.gw, zero.key, userId);
      const conversationId = await c.conversation();
      orchestrator.plan(conversationId, foxTurn, { text: 'Here.' });
      const run = await c.waitFor((await c.send(conversationId, 'a fox')).runId, ['completed', 'failed']);
      assert.equal(run.status, 'failed');
      assert.equal(run.error?.code, 'key_spend_cap_reached', JSON.stringify(run.error));
      assert.equal(run.budget.settledMicroUsd, '0');
      assert.equal(await keySpent(ctx.gw, zero.id), 0);
      await assertBooks(ctx.gw);
    });

    test('20 concurrent agent runs on one capped key: the key\'s spend never passes the cap, what was refused is in words and debited nothing', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(100_000);
      const db = ctx.gw.gateway.services.database.db;
      const perRun = (await priceFoxRun(ctx.gw, owner, userId)).reduce((n, o) => n + Number(o.estimateMicroUsd), 0);
      assert.ok(perRun > 0);
      const cap = perRun * 3;
      const limited = await createLimitedKey(ctx.gw, owner, { spendCapMicroUsd: cap });
      const c = clientFor(ctx.gw, limited.key, userId);

      const conversations = await Promise.all(Array.from({ length: 20 }, () => c.conversation()));
      for (const id of conversations) orchestrator.plan(id, foxTurn, { text: 'Here.' });
      const accepted = await Promise.all(conversations.map((id) => c.send(id, 'a capped fox')));
      const runs = await Promise.all(accepted.map((a) => c.waitFor(a.runId, ['completed', 'failed'], 120_000)));

      const words = runs.flatMap((r) => [JSON.stringify(r.error), ...r.steps.map((s) => JSON.stringify(s.output))]).filter((t) => t.includes('spend cap'));
      assert.ok(words.length > 0, 'some operation met the cap, and says so');
      const spent = await keySpent(ctx.gw, limited.id);
      assert.ok(spent <= cap, `${spent} <= ${cap}`);
      const chat = await db.selectFrom('chat_requests').select('cost_micro').where('api_key_id', '=', limited.id).execute();
      const tasks = await db.selectFrom('tasks').select(['cost_micro', 'refunded_micro']).where('api_key_id', '=', limited.id).execute();
      assert.equal(chat.reduce((n, r) => n + Number(r.cost_micro), 0) + tasks.reduce((n, t) => n + Number(t.cost_micro) - Number(t.refunded_micro), 0), spent);
      const held = await db.selectFrom('api_key_spend').select('held_micro').where('key_id', '=', limited.id).where('period', '=', 'total').executeTakeFirstOrThrow();
      assert.equal(Number(held.held_micro), 0);
      await assertBooks(ctx.gw);
    });

    test('a key with a $0 spend cap cannot buy a storage plan: 402 key_spend_cap_reached, balance and subscription unchanged', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(10_000);
      const zero = await createLimitedKey(ctx.gw, owner, { spendCapMicroUsd: 0 });
      const before = await balanceMicro(ctx.gw, userId);
      const c = clientFor(ctx.gw, zero.key, userId);
      const bought = await buyPlan(c, 'storage-studio', true);
      assert.equal(bought.status, 402, JSON.stringify(bought.body));
      assert.equal(bought.body.error?.code, 'key_spend_cap_reached');
      assert.equal(await balanceMicro(ctx.gw, userId), before);
      assert.equal((await c.call('GET', '/api/v1/agent/storage/subscription')).body.data.subscription, null);
      assert.equal(await keySpent(ctx.gw, zero.id), 0);

      // A cap of one Starter month buys it, and the upgrade past the cap is refused with nothing changed.
      const starter = await createLimitedKey(ctx.gw, owner, { spendCapMicroUsd: 2_000_000 });
      const s = clientFor(ctx.gw, starter.key, userId);
      const first = await buyPlan(s, 'storage-starter', false);
      assert.equal(first.status, 200, JSON.stringify(first.body));
      assert.equal(await keySpent(ctx.gw, starter.id), 2_000_000);
      const upgrade = await buyPlan(s, 'storage-pro', false);
      assert.equal(upgrade.status, 402, JSON.stringify(upgrade.body));
      assert.equal(upgrade.body.error?.code, 'key_spend_cap_reached');
      assert.equal(await balanceMicro(ctx.gw, userId), before - 2_000_000);
      const kept = (await s.call('GET', '/api/v1/agent/storage/subscription')).body.data.subscription as { planId: string };
      assert.equal(kept.planId, 'storage-starter');
      // The statistics name the key behind the charge, and the keys add up to the spend.
      const stats = (await ctx.gw.api(owner, 'GET', '/api/v1/stats')).body as { totals: { spent: number }; byApiKey: Array<{ key: string; cost: number }> };
      assert.equal(stats.byApiKey.find((b) => b.key === starter.id)?.cost, 200);
      assert.equal(stats.byApiKey.reduce((n, b) => n + b.cost, 0), stats.totals.spent);
      await assertBooks(ctx.gw);
    });

    test('renewals are charged through the key that chose them: past its cap the period is unpaid (grace); a revoked key\'s renewal counts to no key', async () => {
      const { clock } = ctx.gw.gateway.services.agent;
      const db = ctx.gw.gateway.services.database.db;
      const capped = await ctx.gw.createUser(10_000);
      const cappedKey = await createLimitedKey(ctx.gw, capped.key, { spendCapMicroUsd: 2_000_000 });
      assert.equal((await buyPlan(clientFor(ctx.gw, cappedKey.key, capped.userId), 'storage-starter', true)).status, 200);
      const revoked = await ctx.gw.createUser(10_000);
      const revokedKey = await createLimitedKey(ctx.gw, revoked.key, { spendCapMicroUsd: 2_000_000 });
      assert.equal((await buyPlan(clientFor(ctx.gw, revokedKey.key, revoked.userId), 'storage-starter', true)).status, 200);
      assert.equal((await ctx.gw.api(revoked.key, 'DELETE', `/api/v1/keys/${revokedKey.id}`)).status, 200);
      const balances = [await balanceMicro(ctx.gw, capped.userId), await balanceMicro(ctx.gw, revoked.userId)];

      const anchor = clock.now();
      clock.advance(periodEnd(anchor, 0) - anchor + 60_000);
      await ctx.gw.gateway.services.storage.billing.run();

      const cappedSub = await db.selectFrom('storage_subscriptions').select(['status', 'period_index']).where('user_id', '=', capped.userId).executeTakeFirstOrThrow();
      assert.deepEqual([cappedSub.status, Number(cappedSub.period_index)], ['grace', 0], 'the cap does not cover the renewal');
      assert.equal(await balanceMicro(ctx.gw, capped.userId), balances[0]);
      assert.equal(await keySpent(ctx.gw, cappedKey.id), 2_000_000);

      const revokedSub = await db.selectFrom('storage_subscriptions').select(['status', 'period_index']).where('user_id', '=', revoked.userId).executeTakeFirstOrThrow();
      assert.deepEqual([revokedSub.status, Number(revokedSub.period_index)], ['active', 1]);
      assert.equal(await balanceMicro(ctx.gw, revoked.userId), (balances[1] ?? 0) - 2_000_000);
      assert.equal(await keySpent(ctx.gw, revokedKey.id), 2_000_000, 'the revoked key spent nothing more');
      const renewal = await db.selectFrom('storage_charges').select('api_key_id').where('user_id', '=', revoked.userId).where('charge_kind', '=', 'renewal').executeTakeFirstOrThrow();
      assert.equal(renewal.api_key_id, null);
      await assertBooks(ctx.gw);
    });
  },
  {
    configFile: {
      providers: { orch: orchestrator.provider() },
      routes: { 'gpt-5.4-mini': ['orch'] },
    },
  },
);
