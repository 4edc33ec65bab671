/**
 * Paid storage (SPEC rule 18, "Storage subscription", retain and files): plans, quotes, subscribe
 * with an Idempotency-Key, proration to the micro-USD, renewals across period boundaries on the
 * agent's advancing clock, the 72-hour grace period and deletion, retained copies made once, quota
 * never exceeded by 50 concurrent copies, and the statistics and `ledger verify` agreeing with every
 * charge; on SQLite and on PostgreSQL + Redis + S3.
 */
import assert from 'node:assert/strict';
import { kyselyTaskPorts } from '../../../src/adapters/db/stores/task-store.ts';
import { test } from 'node:test';
import { openDatabase } from '../../../src/adapters/db/open-database.ts';
import { kyselyLedgerBook } from '../../../src/adapters/db/ledger/ledger-book.ts';
import { KyselyStorageStore } from '../../../src/adapters/db/stores/storage-store.ts';
import { kyselyUnitOfWork } from '../../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { periodEnd } from '../../../src/domain/storage/storage-plans.ts';
import { terminalHook } from '../../../src/gateway.ts';
import { createRetentionSweeper } from '../../../src/services/generation/retention-sweeper.ts';
import { StorageBilling } from '../../../src/services/storage/storage-billing.ts';
import { StoragePlanCatalog } from '../../../src/domain/storage/storage-plans.ts';
import { type AgentClient, agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeEachMode, type TestGateway } from '../../support/gateway.ts';
import { waitForTask } from '../../support/tasks.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const TINY_QUOTA = 2_000_000;
const PLANS = {
  tiny: { name: 'Tiny', quotaBytes: TINY_QUOTA, monthlyPriceMicroUsd: 1_000_000 },
  big: { name: 'Big', quotaBytes: 1_000_000_000, monthlyPriceMicroUsd: 7_000_000 },
};

interface Subscription {
  planId: string;
  nextPlanId: string | null;
  status: string;
  quotaBytes: number;
  usedBytes: number;
  autoRenew: boolean;
  currentPeriod: { start: string; end: string };
  graceEndsAt: string | null;
  version: number;
}
interface Quote {
  quoteId: string;
  change: string;
  amountMicroUsd: string;
  balanceMicroUsd: string;
  balanceAfterMicroUsd: string;
  period: { start: string; end: string };
  quotaVersion: number;
}
interface FileView {
  fileId: string;
  sizeBytes: number;
  url: string;
  kind: string;
  source: { type: string; id: string; outputIndex: number | null };
}

const ms = (iso: string) => Date.parse(iso);

async function ledgerBalance(gw: TestGateway, userId: string): Promise<number> {
  const row = await gw.gateway.services.database.db.selectFrom('users').select('balance_micro').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.balance_micro);
}

async function quote(c: AgentClient, planId: string): Promise<Quote> {
  const res = await c.call('POST', '/api/v1/agent/storage/quote', { planId });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as unknown as Quote;
}

async function subscribe(c: AgentClient, q: Quote, autoRenew: boolean, key = `sub-${q.quoteId}`) {
  return c.call('POST', '/api/v1/agent/storage/subscribe', { quoteId: q.quoteId, quotaVersion: q.quotaVersion, autoRenew }, { 'idempotency-key': key });
}

async function subscription(c: AgentClient): Promise<{ subscription: Subscription | null; charges: Array<{ kind: string; amountMicroUsd: string; planId: string }> }> {
  const res = await c.call('GET', '/api/v1/agent/storage/subscription');
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.data as never;
}

async function generateImage(gw: TestGateway, c: AgentClient): Promise<string> {
  const created = await gw.api(c.key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'a small red square' } });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const taskId = (created.body as { data: { taskId: string } }).data.taskId;
  const done = await waitForTask(gw, c.key, taskId);
  assert.equal(done.status, 'finished');
  return taskId;
}

async function waitForOperation(c: AgentClient, id: string): Promise<{ status: string; file: FileView | null; error: { code: string } | null }> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const res = await c.call('GET', `/api/v1/agent/storage/operations/${id}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const data = res.body.data as { status: string; file: FileView | null; error: { code: string } | null };
    if (data.status !== 'pending') return data;
    if (Date.now() > deadline) assert.fail(`operation ${id} still pending`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function listAllFiles(c: AgentClient): Promise<FileView[]> {
  const out: FileView[] = [];
  let cursor: string | null = null;
  do {
    const res = await c.call('GET', `/api/v1/agent/storage/files?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    out.push(...(res.body.data.items as FileView[]));
    cursor = res.body.data.nextCursor as string | null;
  } while (cursor);
  return out;
}

async function statsSpentCents(c: AgentClient): Promise<{ spent: number; storage: number }> {
  // The charges are dated by the advanced clock: a year from today covers them.
  const day = (offset: number) => new Date(Date.now() + offset * DAY).toISOString().slice(0, 10);
  const res = await c.call('GET', `/api/v1/stats?range=custom&from=${day(0)}&to=${day(365)}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const data = res.body as unknown as { totals: { spent: number }; byType: Array<{ key: string; cost: number }> };
  return { spent: data.totals.spent, storage: data.byType.find((b) => b.key === 'STORAGE')?.cost ?? 0 };
}

describeEachMode(
  'agent storage: plans, quotes, subscribe, proration, renewals, grace',
  (ctx) => {
    test('plans are published; a quote for a first plan charges a month and shows the balance after', async () => {
      const c = await agentClient(ctx.gw, 5000);
      const plans = await c.call('GET', '/api/v1/agent/storage/plans');
      assert.deepEqual(
        (plans.body.data.plans as Array<{ planId: string; priceMicroUsd: string; quotaBytes: number }>).map((p) => [p.planId, p.priceMicroUsd, p.quotaBytes]),
        [
          ['tiny', '1000000', TINY_QUOTA],
          ['big', '7000000', 1_000_000_000],
        ],
      );
      assert.equal((await subscription(c)).subscription, null);
      const q = await quote(c, 'tiny');
      assert.equal(q.change, 'new');
      assert.equal(q.amountMicroUsd, '1000000');
      assert.equal(q.balanceMicroUsd, '50000000');
      assert.equal(q.balanceAfterMicroUsd, '49000000');
      assert.equal(q.quotaVersion, 0);
      assert.equal(ms(q.period.end), periodEnd(ms(q.period.start), 0));
      assert.equal((await c.call('POST', '/api/v1/agent/storage/quote', { planId: 'nope' })).body.error?.code, 'invalid_input');
      assert.equal((await c.call('POST', '/api/v1/agent/storage/quote', { planId: 'tiny', extra: 1 })).status, 400);
    });

    test('subscribe needs an Idempotency-Key, charges once, replays, refuses a reused quote or key', async () => {
      const c = await agentClient(ctx.gw, 5000);
      const q = await quote(c, 'tiny');
      const noKey = await c.call('POST', '/api/v1/agent/storage/subscribe', { quoteId: q.quoteId, quotaVersion: 0, autoRenew: true });
      assert.equal(noKey.status, 400);
      const wrongVersion = await subscribe(c, { ...q, quotaVersion: 3 }, true, 'k-wrong');
      assert.equal(wrongVersion.body.error?.code, 'storage_quote_invalid');
      const [first, second] = await Promise.all([subscribe(c, q, true, 'k1'), subscribe(c, q, true, 'k1')]);
      for (const res of [first, second]) assert.ok(res.status === 200 || res.body.error?.code === 'idempotency_in_progress', JSON.stringify(res.body));
      const replay = await subscribe(c, q, true, 'k1');
      assert.equal(replay.status, 200);
      assert.deepEqual(replay.body.data, first.status === 200 ? first.body.data : second.body.data);
      assert.equal(await ledgerBalance(ctx.gw, c.userId), 49_000_000, 'one month charged once');
      assert.equal((await subscribe(c, q, false, 'k1')).body.error?.code, 'idempotency_key_reused');
      assert.equal((await subscribe(c, q, true, 'k2')).body.error?.code, 'storage_quote_invalid');
      const sub = (await subscription(c)).subscription;
      assert.equal(sub?.status, 'active');
      assert.equal(sub?.planId, 'tiny');
      assert.equal(sub?.version, 1);
      const ledger = await c.call('GET', '/api/v1/billing/ledger?kind=storage_charge');
      assert.equal(ledger.status, 200, JSON.stringify(ledger.body));
      const entries = ledger.body.data.items as Array<{ amountMicroUsd: string; link: { type: string } }>;
      assert.deepEqual(
        entries.map((e) => [e.amountMicroUsd, e.link.type]),
        [['-1000000', 'storage']],
        'the user\'s ledger shows the charge, linked to storage',
      );
      await assertBooksBalance(ctx.gw);
    });

    test('a quote priced on an older version is refused after the subscription changed; insufficient balance changes nothing', async () => {
      const c = await agentClient(ctx.gw, 150);
      const q1 = await quote(c, 'tiny');
      const q2 = await quote(c, 'tiny');
      assert.equal((await subscribe(c, q1, true)).status, 200);
      assert.equal((await subscribe(c, q2, true)).body.error?.code, 'version_conflict');
      const up = await quote(c, 'big');
      assert.ok(Number(up.balanceAfterMicroUsd) < 0, 'the quote shows the shortfall');
      const poor = await subscribe(c, up, true);
      assert.equal(poor.status, 402);
      assert.equal(poor.body.error?.code, 'insufficient_balance');
      assert.equal((await subscription(c)).subscription?.planId, 'tiny', 'nothing changed');
      assert.equal(await ledgerBalance(ctx.gw, c.userId), 500_000);
      await assertBooksBalance(ctx.gw);
    });
  },
  { configFile: { storagePlans: PLANS } },
);

describeEachMode(
  'agent storage: the billing calendar on the advancing clock',
  (ctx) => {
    test('upgrade prorated to the micro-USD, billing date kept; renewals at the new price; downgrade at the next renewal; stats and ledger agree', async () => {
      const { clock } = ctx.gw.gateway.services.agent;
      const billing = ctx.gw.gateway.services.storage.billing;
      const c = await agentClient(ctx.gw, 10_000);
      const q = await quote(c, 'tiny');
      const anchor = ms(q.period.start);
      assert.equal((await subscribe(c, q, true)).status, 200);
      let expectedBalance = 100_000_000 - 1_000_000;

      clock.advance(9 * DAY + 7 * HOUR + 1234);
      const up = await quote(c, 'big');
      assert.equal(up.change, 'upgrade');
      const length = periodEnd(anchor, 0) - anchor;
      const remaining = periodEnd(anchor, 0) - ms(up.period.start);
      const prorated = Math.floor((6_000_000 * remaining) / length);
      assert.equal(up.amountMicroUsd, String(prorated));
      assert.equal(ms(up.period.end), periodEnd(anchor, 0), 'the billing date is kept');
      const upgraded = await subscribe(c, up, true);
      assert.equal(upgraded.status, 200, JSON.stringify(upgraded.body));
      expectedBalance -= prorated;
      let sub = (await subscription(c)).subscription;
      assert.equal(sub?.planId, 'big');
      assert.equal(sub?.quotaBytes, 1_000_000_000);
      assert.equal(ms(sub?.currentPeriod.end ?? ''), periodEnd(anchor, 0));

      // Nothing is due before the period ends.
      assert.equal((await billing.run()).renewed, 0);
      clock.advance(periodEnd(anchor, 0) - clock.now() + 1);
      assert.equal((await billing.run()).renewed, 1);
      expectedBalance -= 7_000_000;
      sub = (await subscription(c)).subscription;
      assert.equal(ms(sub?.currentPeriod.start ?? ''), periodEnd(anchor, 0));
      assert.equal(ms(sub?.currentPeriod.end ?? ''), periodEnd(anchor, 1), 'the next period ends on the billing date');
      assert.equal((await billing.run()).renewed, 0, 'a second run charges nothing');

      const down = await quote(c, 'tiny');
      assert.equal(down.change, 'downgrade');
      assert.equal(down.amountMicroUsd, '0');
      assert.equal((await subscribe(c, down, true)).status, 200);
      sub = (await subscription(c)).subscription;
      assert.equal(sub?.planId, 'big', 'the paid plan stays until the period ends');
      assert.equal(sub?.nextPlanId, 'tiny');

      // Two missed periods at once: both renewed, the first at the downgraded price.
      clock.advance(periodEnd(anchor, 2) - clock.now() + 5);
      assert.equal((await billing.run()).renewed, 2);
      expectedBalance -= 2 * 1_000_000;
      sub = (await subscription(c)).subscription;
      assert.equal(sub?.planId, 'tiny');
      assert.equal(sub?.quotaBytes, TINY_QUOTA);
      assert.equal(ms(sub?.currentPeriod.end ?? ''), periodEnd(anchor, 3));
      assert.equal(await ledgerBalance(ctx.gw, c.userId), expectedBalance);

      const charges = (await subscription(c)).charges;
      assert.deepEqual(
        charges.map((ch) => [ch.kind, ch.planId, ch.amountMicroUsd]).reverse(),
        [
          ['subscribe', 'tiny', '1000000'],
          ['upgrade', 'big', String(prorated)],
          ['renewal', 'big', '7000000'],
          ['renewal', 'tiny', '1000000'],
          ['renewal', 'tiny', '1000000'],
        ],
      );
      const stats = await statsSpentCents(c);
      const chargedMicro = 100_000_000 - expectedBalance;
      assert.equal(stats.storage, chargedMicro / 10_000);
      assert.equal(stats.spent, chargedMicro / 10_000);
      await assertBooksBalance(ctx.gw);
    });

    test('renewal off: the period ends, 72 hours of grace (read, no writes), then the files are deleted; paying during grace keeps the billing date', async () => {
      const { clock } = ctx.gw.gateway.services.agent;
      const billing = ctx.gw.gateway.services.storage.billing;
      const c = await agentClient(ctx.gw, 10_000);
      const q = await quote(c, 'tiny');
      const anchor = ms(q.period.start);
      assert.equal((await subscribe(c, q, false)).status, 200);
      const before = await ledgerBalance(ctx.gw, c.userId);
      clock.advance(periodEnd(anchor, 0) - clock.now() + 1);
      const summary = await billing.run();
      assert.ok(summary.toGrace >= 1);
      let sub = (await subscription(c)).subscription;
      assert.equal(sub?.status, 'grace');
      assert.equal(ms(sub?.graceEndsAt ?? ''), periodEnd(anchor, 0) + 72 * HOUR);
      assert.equal(await ledgerBalance(ctx.gw, c.userId), before, 'no renewal without auto-renew');
      assert.equal((await c.call('GET', '/api/v1/agent/storage/files')).status, 200, 'reads stay allowed');

      // Paying during grace: a month from the end of the unpaid period.
      const again = await quote(c, 'tiny');
      assert.equal(again.change, 'reactivate');
      assert.equal(ms(again.period.start), periodEnd(anchor, 0));
      assert.equal(ms(again.period.end), periodEnd(anchor, 1));
      assert.equal((await subscribe(c, again, false)).status, 200);
      sub = (await subscription(c)).subscription;
      assert.equal(sub?.status, 'active');

      clock.advance(periodEnd(anchor, 1) - clock.now() + 1);
      await billing.run();
      assert.equal((await subscription(c)).subscription?.status, 'grace');
      clock.advance(72 * HOUR);
      const lapsed = await billing.run();
      assert.ok(lapsed.lapsed >= 1);
      sub = (await subscription(c)).subscription;
      assert.equal(sub?.status, 'lapsed');
      assert.equal(sub?.usedBytes, 0);
      await assertBooksBalance(ctx.gw);
    });

    test('a renewal the balance cannot pay starts grace and charges nothing', async () => {
      const { clock } = ctx.gw.gateway.services.agent;
      const c = await agentClient(ctx.gw, 150);
      const q = await quote(c, 'tiny');
      assert.equal((await subscribe(c, q, true)).status, 200);
      const db = ctx.gw.gateway.services.database.db;
      // Spend the rest elsewhere: the renewal finds 0.5 USD where 1 USD is due.
      await db.updateTable('users').set({ balance_micro: 400_000 }).where('id', '=', c.userId).execute();
      await db.insertInto('ledger_entries').values({ id: `led_test_${c.userId}`, user_id: c.userId, kind: 'credit', reference: `test-adjust-${c.userId}`, amount_micro: -100_000, balance_after_micro: 400_000, note: 'test', created_at: Date.now() }).execute();
      clock.advance(periodEnd(ms(q.period.start), 0) - clock.now() + 1);
      await ctx.gw.gateway.services.storage.billing.run();
      const sub = (await subscription(c)).subscription;
      assert.equal(sub?.status, 'grace');
      assert.equal(await ledgerBalance(ctx.gw, c.userId), 400_000);
      await assertBooksBalance(ctx.gw);
    });

    test('a plan the operator removed from storagePlans is not renewed, and its files do not start towards deletion', async () => {
      const { clock } = ctx.gw.gateway.services.agent;
      const services = ctx.gw.gateway.services;
      const c = await agentClient(ctx.gw, 10_000);
      const q = await quote(c, 'tiny');
      assert.equal((await subscribe(c, q, true)).status, 200);
      const before = await ledgerBalance(ctx.gw, c.userId);
      const withoutTiny = new StoragePlanCatalog(services.storage.plans.plans.filter((p) => p.id !== 'tiny'));
      const misconfigured = new StorageBilling({ store: new KyselyStorageStore(), uow: kyselyUnitOfWork(services.database.db), ledger: kyselyLedgerBook, blobs: services.blobs, now: clock.now, logger: services.logger, plans: withoutTiny });
      clock.advance(periodEnd(ms(q.period.start), 0) - clock.now() + 1);
      await misconfigured.run();
      assert.equal((await subscription(c)).subscription?.status, 'active', 'no grace for a pricing gap of ours');
      assert.equal(await ledgerBalance(ctx.gw, c.userId), before);
      await services.storage.billing.run();
      assert.equal(await ledgerBalance(ctx.gw, c.userId), before - 1_000_000, 'renewed once the plan is back');
      await assertBooksBalance(ctx.gw);
    });

    test('two billing processes at the same moment renew once', async () => {
      const { clock } = ctx.gw.gateway.services.agent;
      const services = ctx.gw.gateway.services;
      const c = await agentClient(ctx.gw, 10_000);
      const q = await quote(c, 'big');
      assert.equal((await subscribe(c, q, true)).status, 200);
      // Scale-out: a second connection pool on the same database, as another process has. Embedded
      // mode is one process by design (SQLite): two runs of the job in it.
      const second =
        ctx.gw.mode === 'scaleout'
          ? openDatabase({ databaseUrl: ctx.gw.env.DATABASE_URL, dataDir: ctx.gw.env.DATA_DIR ?? '', ...(ctx.gw.env.PG_SCHEMA ? { postgresSchema: ctx.gw.env.PG_SCHEMA } : {}) })
          : undefined;
      try {
        const other = new StorageBilling({
          store: new KyselyStorageStore(),
          uow: kyselyUnitOfWork(second?.db ?? services.database.db),
          ledger: kyselyLedgerBook,
          blobs: services.blobs,
          now: clock.now,
          logger: services.logger,
          plans: new StoragePlanCatalog(services.storage.plans.plans),
        });
        clock.advance(periodEnd(ms(q.period.start), 0) - clock.now() + 1);
        const before = await ledgerBalance(ctx.gw, c.userId);
        await Promise.all([services.storage.billing.run(), other.run(), services.storage.billing.run(), other.run()]);
        assert.equal(await ledgerBalance(ctx.gw, c.userId), before - 7_000_000, 'one renewal charged');
        const renewals = (await subscription(c)).charges.filter((ch) => ch.kind === 'renewal');
        assert.equal(renewals.length, 1);
      } finally {
        await second?.close();
      }
      await assertBooksBalance(ctx.gw);
    });
  },
  { configFile: { storagePlans: PLANS } },
);

describeEachMode(
  'agent storage: retained files, quota, deletion',
  (ctx) => {
    test('retain needs a plan; it is idempotent (key or source); the copy outlives the source; delete frees quota without a charge', async () => {
      const c = await agentClient(ctx.gw, 5000);
      const taskId = await generateImage(ctx.gw, c);
      const refused = await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId });
      assert.equal(refused.status, 402);
      assert.equal(refused.body.error?.code, 'storage_plan_required');
      assert.equal((await subscribe(c, await quote(c, 'tiny'), true)).status, 200);
      const balance = await ledgerBalance(ctx.gw, c.userId);

      assert.equal((await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId, artifactId: 'x' })).status, 400);
      assert.equal((await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId, outputIndex: 5 })).status, 404);
      const other = await agentClient(ctx.gw, 100);
      // Another user's generation names nothing of theirs: source_not_found before any question of a plan.
      const foreign = await other.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId });
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.error?.code, 'source_not_found');

      const a = await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId }, { 'idempotency-key': 'keep-1' });
      assert.equal(a.status, 202, JSON.stringify(a.body));
      const b = await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId }, { 'idempotency-key': 'keep-1' });
      assert.equal(b.status, 202);
      assert.equal(b.body.data.operationId, a.body.data.operationId);
      const done = await waitForOperation(c, a.body.data.operationId as string);
      assert.equal(done.status, 'completed', JSON.stringify(done));
      const file = done.file as FileView;
      assert.equal(file.kind, 'retained');
      assert.deepEqual(file.source, { type: 'generation', id: taskId, outputIndex: 0 });
      const bySource1 = await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId });
      const bySource2 = await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId, outputIndex: 0 });
      assert.equal(bySource2.status, 202, `the default outputIndex written out is the same request: ${JSON.stringify(bySource2.body)}`);
      assert.equal(bySource1.body.data.operationId, bySource2.body.data.operationId, 'without a key: one operation per source');
      await waitForOperation(c, bySource1.body.data.operationId as string);
      assert.equal((await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId, outputIndex: 1 }, { 'idempotency-key': 'keep-1' })).body.error?.code, 'idempotency_key_reused');

      const files = await listAllFiles(c);
      assert.equal(files.length, 2);
      assert.equal((await other.call('GET', `/api/v1/agent/storage/files/${file.fileId}`)).status, 404, 'another user cannot see it');
      assert.equal((await other.call('GET', `/api/v1/agent/storage/operations/${a.body.data.operationId}`)).status, 404);
      const fetched = await fetch(file.url);
      assert.equal(fetched.status, 200, 'a public object URL');
      assert.equal((await fetched.arrayBuffer()).byteLength, file.sizeBytes);
      let sub = (await subscription(c)).subscription;
      assert.equal(sub?.usedBytes, files.reduce((n, f) => n + f.sizeBytes, 0));

      const deleted = await c.call('DELETE', `/api/v1/agent/storage/files/${file.fileId}`);
      assert.equal(deleted.status, 200);
      assert.equal((await c.call('DELETE', `/api/v1/agent/storage/files/${file.fileId}`)).status, 404);
      sub = (await subscription(c)).subscription;
      assert.equal(sub?.usedBytes, files.reduce((n, f) => n + f.sizeBytes, 0) - file.sizeBytes);
      assert.equal((await fetch(file.url)).status, 404, 'the bytes are gone');
      assert.equal(await ledgerBalance(ctx.gw, c.userId), balance, 'retaining and deleting charge nothing beyond the plan');
      await assertBooksBalance(ctx.gw);
    });

    test('50 concurrent copies against the quota: exactly the ones that fit complete, usage never passes it', async () => {
      const c = await agentClient(ctx.gw, 5000);
      const taskId = await generateImage(ctx.gw, c);
      assert.equal((await subscribe(c, await quote(c, 'tiny'), true)).status, 200);
      const accepted = await Promise.all(
        Array.from({ length: 50 }, (_, i) => c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId }, { 'idempotency-key': `copy-${i}` })),
      );
      const operations: string[] = [];
      let refusedAtOnce = 0;
      for (const res of accepted) {
        if (res.status === 202) operations.push(res.body.data.operationId as string);
        else {
          assert.equal(res.body.error?.code, 'storage_quota_exceeded', JSON.stringify(res.body));
          refusedAtOnce++;
        }
      }
      const outcomes = await Promise.all(operations.map((id) => waitForOperation(c, id)));
      const completed = outcomes.filter((o) => o.status === 'completed');
      for (const o of outcomes.filter((x) => x.status === 'failed')) assert.equal(o.error?.code, 'storage_quota_exceeded');
      const size = (completed[0]?.file as FileView | undefined)?.sizeBytes ?? 0;
      const fit = Math.floor(TINY_QUOTA / size);
      assert.ok(fit > 1 && fit < 50, `the test needs a quota that fits some copies, not all (file ${size} bytes)`);
      assert.equal(completed.length, fit, `${completed.length} completed, ${refusedAtOnce} refused at once, ${fit} fit`);
      const sub = (await subscription(c)).subscription;
      assert.ok((sub?.usedBytes ?? 0) <= TINY_QUOTA);
      assert.equal(sub?.usedBytes, fit * size);
      assert.equal((await listAllFiles(c)).length, fit);
    });

    test('the copy has no 3-day limit: on the same clock the generation expires, the retained file stays', async () => {
      const services = ctx.gw.gateway.services;
      const c = await agentClient(ctx.gw, 5000);
      const taskId = await generateImage(ctx.gw, c);
      assert.equal((await subscribe(c, await quote(c, 'big'), true)).status, 200);
      const op = await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId });
      const kept = (await waitForOperation(c, op.body.data.operationId as string)).file as FileView;
      services.agent.clock.advance(3 * DAY + HOUR);
      const sweep = createRetentionSweeper({ ...kyselyTaskPorts(services.database.db), blobs: services.blobs, onTerminal: terminalHook(services), logger: services.logger, intervalMs: 60_000, now: services.agent.clock.now });
      await sweep();
      const task = await waitForTask(ctx.gw, c.key, taskId);
      assert.equal(task.status, 'expired', 'the generation ran out its 3 days on the gateway clock');
      assert.equal((await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId }, { 'idempotency-key': 'late' })).status, 404, 'an expired source cannot be kept');
      assert.equal((await fetch(kept.url)).status, 200, 'the retained copy remains');
      assert.equal((await c.call('GET', `/api/v1/agent/storage/files/${kept.fileId}`)).status, 200);
    });

    test('when grace ends, retained files are deleted (bytes too)', async () => {
      const { clock } = ctx.gw.gateway.services.agent;
      const c = await agentClient(ctx.gw, 5000);
      const taskId = await generateImage(ctx.gw, c);
      const q = await quote(c, 'tiny');
      assert.equal((await subscribe(c, q, false)).status, 200);
      const op = await c.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId });
      const done = await waitForOperation(c, op.body.data.operationId as string);
      const url = (done.file as FileView).url;
      clock.advance(periodEnd(ms(q.period.start), 0) - clock.now() + 1);
      await ctx.gw.gateway.services.storage.billing.run();
      assert.equal((await fetch(url)).status, 200, 'kept during grace');
      // A file that is still there (the first one ran out its 3 days with the month): no new writes in grace.
      const fresh = await generateImage(ctx.gw, c);
      const write = await c.call('POST', '/api/v1/agent/storage/retain', { generationId: fresh }, { 'idempotency-key': 'in-grace' });
      assert.equal(write.status, 402, 'no new writes during grace');
      clock.advance(72 * HOUR);
      await ctx.gw.gateway.services.storage.billing.run();
      assert.equal((await listAllFiles(c)).length, 0);
      assert.equal((await fetch(url)).status, 404);
      await assertBooksBalance(ctx.gw);
    });
  },
  { configFile: { storagePlans: PLANS } },
);
