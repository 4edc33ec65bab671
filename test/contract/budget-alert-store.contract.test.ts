/**
 * The budget alert store (src/ports/budget-alert-store.port.ts) and the check over it, on both
 * engines: the month's spend is counted from the ledger behind a cursor a bounded number of entries
 * per check (an account with more entries is judged only once caught up, never on a partial count);
 * credits are not spend and refunds lower it; a crossing is recorded once per period whatever runs
 * twice; an email attempt is taken once (compare-and-set); a new month starts the count again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import { accountPortsOf } from '../../src/adapters/db/stores/account-ports.ts';
import { KyselyBudgetAlertStore } from '../../src/adapters/db/stores/budget-alert-store.ts';
import { kyselyUnitOfWork } from '../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { KyselyOrganizationStore } from '../../src/adapters/db/stores/organization-store.ts';
import { kyselyWebhookStore } from '../../src/adapters/db/stores/webhook-store.ts';
import { newId } from '../../src/domain/ids.ts';
import type { MailMessage, Mailer } from '../../src/ports/mailer.port.ts';
import type { BudgetAlertFiringsRow } from '../../src/ports/store-rows/budget-alerts.rows.ts';
import { BudgetAlertsService, COMMIT_LAG_MS, ENTRIES_PER_CHECK } from '../../src/services/accounts/budget-alerts.service.ts';
import { describeEachDatabase } from '../support/databases.ts';

const store = new KyselyBudgetAlertStore();

class RecordingMailer implements Mailer {
  readonly describe = 'memory';
  readonly sent: MailMessage[] = [];
  failNext = 0;
  async send(message: MailMessage): Promise<void> {
    if (this.failNext > 0) {
      this.failNext--;
      throw new Error('451 try again later');
    }
    this.sent.push(message);
  }
  async close(): Promise<void> {}
}

describeEachDatabase('budget alert store', (t) => {
  const ports = () => accountPortsOf(t.handle.db);
  const person = async (now: number, balanceMicro = 0) => {
    const { accounts, uow } = ports();
    return uow.transaction((tx) => accounts.openAccount(tx, { email: `b-${newId('p', now)}@example.com`, passwordHash: null, isAdmin: false, openingBalanceMicro: balanceMicro }, now));
  };
  /** Ledger rows written as the books would (this test reads them, it does not balance them). */
  const entries = async (userId: string, rows: Array<{ kind: string; amount: number; at: number }>) => {
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500).map((r, j) => ({ id: newId('led', r.at), user_id: userId, kind: r.kind, reference: `${userId}:${i + j}:${r.kind}`, amount_micro: r.amount, balance_after_micro: 0, note: null, created_at: r.at }));
      await t.handle.db.insertInto('ledger_entries').values(chunk).execute();
    }
  };
  const service = (mailer: Mailer) =>
    new BudgetAlertsService({
      store,
      accounts: ports().accounts,
      organizations: new KyselyOrganizationStore(),
      uow: kyselyUnitOfWork(t.handle.db),
      outbox: { store: kyselyWebhookStore, queue: new DbWorkQueue(t.handle, new MemoryEventBus()) },
      mailer,
      urlRules: { allowPrivateUrls: true, policy: { ports: 'any', allowHttp: true } },
      publicBaseUrl: () => 'http://gateway.test',
      checkIntervalMs: 60_000,
      logger: pino({ level: 'silent' }),
    });

  test('the spend count is bounded per check and judged only when caught up; credits are not spend, refunds lower it', async () => {
    const now = Date.now();
    const month = new Date(now).toISOString().slice(0, 7);
    const monthStart = Date.UTC(new Date(now).getUTCFullYear(), new Date(now).getUTCMonth(), 1);
    const old = Math.max(monthStart + 1, now - 10 * COMMIT_LAG_MS);
    const account = await person(now, 50_000_000);
    const n = ENTRIES_PER_CHECK * 2 + 10;
    // n debits of 100 (old enough for the durable count), a credit, a refund of 500 and one fresh debit of 1,000.
    await entries(account.id, [
      ...Array.from({ length: n }, (_, i) => ({ kind: 'generation_debit', amount: -100, at: old + Math.floor(i / 50) })),
      { kind: 'credit', amount: 9_999_999, at: old + 1_000 },
      { kind: 'generation_refund', amount: 500, at: old + 1_001 },
      { kind: 'chat_charge', amount: -1_000, at: now - 10 },
      // Last month's spend does not count.
      { kind: 'generation_debit', amount: -7_777, at: monthStart - 5 },
    ]);
    const expected = n * 100 - 500 + 1_000;
    const mailer = new RecordingMailer();
    const alerts = service(mailer);
    await alerts.put(account, { monthlyBudgetMicroUsd: expected, spendThresholdsPercent: [100] }, account.id, now);

    // First check: ENTRIES_PER_CHECK entries counted, not judged; checked again at once.
    assert.equal((await alerts.checkRound(now)).fired, 0);
    let row = await store.findSettings(t.handle.db, account.id);
    assert.equal(row?.spent_micro, ENTRIES_PER_CHECK * 100);
    assert.equal(row?.next_check_at, now, 'due again');
    assert.equal((await alerts.checkRound(now)).fired, 0);
    const third = await alerts.checkRound(now);
    assert.equal(third.fired, 1, 'caught up: 100 % of the budget');
    row = await store.findSettings(t.handle.db, account.id);
    assert.equal(row?.spent_micro, n * 100 - 500, 'the durable count stops behind the clock: the fresh debit is read on top');
    assert.equal(row?.spend_month, month);
    assert.ok((row?.next_check_at ?? 0) > now);
    const [firing] = await store.listFirings(t.handle.db, account.id, 10);
    assert.equal(firing?.observed_micro, expected);
    assert.equal(mailer.sent.length, 1);
    assert.match(mailer.sent[0]?.subject ?? '', /passed 100% of its monthly budget/);
    assert.equal((await alerts.view(account.id)).spentThisMonthMicroUsd, String(expected));

    // Running again (the same figures, due again) records nothing more.
    await t.handle.db.updateTable('budget_alert_settings').set({ next_check_at: now }).where('account_id', '=', account.id).execute();
    assert.equal((await alerts.checkRound(now)).fired, 0);
    assert.equal(mailer.sent.length, 1);
  });

  test('a crossing is recorded once per (account, alert, period); an email attempt is taken once', async () => {
    const now = Date.now();
    const account = await person(now);
    const firing = (id: string): BudgetAlertFiringsRow => ({
      id, account_id: account.id, alert_key: 'balance_below:100', period: '2026-12', kind: 'balance_below', member_id: null, threshold_percent: null,
      threshold_micro: 100, observed_micro: 5, notified: 1, email_status: 'pending', email_attempts: 0, webhook_delivery_id: null, fired_at: now,
    });
    const results = await Promise.all([1, 2, 3, 4].map((i) => kyselyUnitOfWork(t.handle.db).transaction((tx) => store.insertFiring(tx, firing(newId('bal', now + i))))));
    assert.equal(results.filter(Boolean).length, 1);
    assert.equal(await store.insertFiring(t.handle.db, { ...firing(newId('bal', now)), period: '2027-01' }), true, 'another period');
    const [first] = (await store.pendingEmails(t.handle.db, 100)).filter((f) => f.account_id === account.id);
    assert.ok(first);
    const claims = await Promise.all([0, 1, 2].map(() => store.claimEmail(t.handle.db, first.id, 0)));
    assert.equal(claims.filter(Boolean).length, 1);
    assert.equal(await store.finishEmail(t.handle.db, first.id, 'sent'), true);
    assert.equal(await store.finishEmail(t.handle.db, first.id, 'failed'), false, 'only from pending');
    assert.equal(await store.claimEmail(t.handle.db, first.id, 1), false);
  });

  test('a failed email is tried again at the next round, and given up after five attempts', async () => {
    const now = Date.now();
    // Earlier tests' pending emails go first: send them.
    await service(new RecordingMailer()).checkRound(now);
    const account = await person(now, 1_000);
    const mailer = new RecordingMailer();
    const alerts = service(mailer);
    await alerts.put(account, { balanceBelowMicroUsd: 5_000 }, account.id, now);
    mailer.failNext = 1;
    assert.equal((await alerts.checkRound(now)).fired, 1);
    assert.equal(mailer.sent.length, 0);
    assert.equal((await store.listFirings(t.handle.db, account.id, 5))[0]?.email_status, 'pending');
    await alerts.checkRound(now + 1);
    assert.deepEqual(mailer.sent.map((m) => m.to), [account.email], 'sent at the next round');
    assert.equal((await store.listFirings(t.handle.db, account.id, 5))[0]?.email_status, 'sent');

    const other = await person(now, 1_000);
    await alerts.put(other, { balanceBelowMicroUsd: 5_000 }, other.id, now);
    mailer.failNext = 100;
    for (let i = 0; i < 6; i++) await alerts.checkRound(now + 10 + i);
    const [givenUp] = await store.listFirings(t.handle.db, other.id, 5);
    assert.deepEqual([givenUp?.email_status, givenUp?.email_attempts], ['failed', 5]);
  });

  test('the count starts again in a new month; the cursor moves only from where it was read (compare-and-set)', async () => {
    const now = Date.now();
    const account = await person(now);
    const alerts = service(new RecordingMailer());
    await alerts.put(account, { monthlyBudgetMicroUsd: 1_000_000, spendThresholdsPercent: [50] }, account.id, now);
    await t.handle.db.updateTable('budget_alert_settings').set({ spend_month: '2000-01', spent_micro: 123_456, cursor_at: 1, cursor_id: 'x' }).where('account_id', '=', account.id).execute();
    await alerts.checkRound(now);
    const row = await store.findSettings(t.handle.db, account.id);
    assert.deepEqual([row?.spend_month, row?.spent_micro], [new Date(now).toISOString().slice(0, 7), 0]);
    const from = { spend_month: '2000-01', spent_micro: 123_456, cursor_at: 1, cursor_id: 'x' };
    assert.equal(await store.advanceSpend(t.handle.db, account.id, from, { ...from, spent_micro: 1 }, now), false, 'moved already');
  });
});
