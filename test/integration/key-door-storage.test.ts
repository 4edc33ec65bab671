/**
 * The spend cap covers storage (issue 29, item 3), in both modes: a storage charge counts against the
 * key it is paid through, in the debit's transaction (a $0 key cannot buy a plan, a capped key cannot
 * upgrade past its cap); renewals go through the key that chose them (past its cap: grace; a revoked
 * key's renewal counts to no key); the statistics by key include the charges.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { periodEnd } from '../../src/domain/storage/storage-plans.ts';
import { type AgentClient, clientFor } from '../support/agent.ts';
import { describeEachMode } from '../support/gateway.ts';
import { assertBooks, balanceMicro, createLimitedKey, keySpent } from '../support/limited-keys.ts';

/** Quotes `planId` and carries the quote out, through `c`'s key. */
async function buyPlan(c: AgentClient, planId: string, autoRenew: boolean): Promise<{ status: number; body: { error?: { code: string; message: string } } }> {
  const quote = await c.call('POST', '/api/v1/agent/storage/quote', { planId });
  assert.equal(quote.status, 200, JSON.stringify(quote.body));
  const q = quote.body.data as { quoteId: string; quotaVersion: number };
  return c.call('POST', '/api/v1/agent/storage/subscribe', { quoteId: q.quoteId, quotaVersion: q.quotaVersion, autoRenew }, { 'idempotency-key': `buy-${q.quoteId}` });
}

describeEachMode('the key\'s spend cap on storage', (ctx) => {
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
});
