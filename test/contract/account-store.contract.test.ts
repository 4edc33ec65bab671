/**
 * The account, auth and billing stores (src/ports/account-store.port.ts, auth-store.port.ts,
 * billing-store.port.ts) on both engines, against the real database: every compare-and-set moves once
 * (a second move from the wrong state changes nothing), money goes through the book in the caller's
 * transaction, and what is refused writes nothing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MemoryRateLimiter } from '../../src/adapters/rate-limit/memory-rate-limiter.ts';
import { accountPortsOf } from '../../src/adapters/db/stores/account-ports.ts';
import { limitsOfRow } from '../../src/domain/api-key-limit-columns.ts';
import { generateApiKey } from '../../src/domain/api-key-format.ts';
import { AppError } from '../../src/domain/errors.ts';
import { newId } from '../../src/domain/ids.ts';
import { redeemReference } from '../../src/domain/ledger/ledger-kinds.ts';
import type { TaskStatus } from '../../src/domain/tasks/task-status.ts';
import type { ApiKeyRow } from '../../src/ports/account-store.port.ts';
import type { SessionRow } from '../../src/ports/auth-store.port.ts';
import type { CheckoutRow, RedeemCodeRow } from '../../src/ports/billing-store.port.ts';
import { RedeemCodesService } from '../../src/services/billing/redeem-codes.service.ts';
import { describeEachDatabase } from '../support/databases.ts';

function keyRow(userId: string, now: number, columns: Partial<ApiKeyRow> = {}): ApiKeyRow {
  const generated = generateApiKey();
  return {
    id: newId('key', now),
    user_id: userId,
    name: 'contract',
    prefix: generated.prefix,
    key_hash: generated.hash,
    created_at: now,
    last_used_at: null,
    revoked_at: null,
    spend_cap_micro: null,
    spend_cap_period: null,
    expires_at: null,
    allowed_models: null,
    rpm_limit: null,
    tpm_limit: null,
    concurrency_limit: null,
    manage_keys: 0,
    ...columns,
  };
}

function sessionRow(userId: string, now: number, ip: string): SessionRow {
  return {
    id: newId('ses', now),
    user_id: userId,
    token_hash: newId('tok', now),
    csrf_token: 'csrf',
    created_at: now,
    last_seen_at: now,
    expires_at: now + 60_000,
    absolute_expires_at: now + 120_000,
    user_agent: null,
    ip,
  };
}

function codeRow(now: number, maxRedemptions: number, amountMicro = 500_000): RedeemCodeRow {
  const id = newId('rcode', now);
  return { id, code_hash: `hash-${id}`, code_hint: 'ABCD', amount_micro: amountMicro, max_redemptions: maxRedemptions, redemptions: 0, expires_at: null, disabled_at: null, note: null, created_at: now };
}

describeEachDatabase('account store: users and API keys', (t) => {
  const ports = () => accountPortsOf(t.handle.db);

  test('an account opens with its opening balance explained by one entry; a taken email writes nothing', async () => {
    const { accounts, ledger, uow } = ports();
    const now = Date.now();
    const email = `open-${now}@example.com`;
    const user = await uow.transaction((tx) => accounts.openAccount(tx, { email, passwordHash: null, isAdmin: false, openingBalanceMicro: 700_000 }, now));
    assert.equal(user.balance_micro, 700_000);
    assert.equal((await accounts.findUser(uow.direct, user.id))?.balance_micro, 700_000);
    assert.equal((await ledger.find(uow.direct, 'initial_credit', user.id))?.amount_micro, 700_000);
    const before = await accounts.countUsers(uow.direct);
    await assert.rejects(
      uow.transaction((tx) => accounts.openAccount(tx, { email, passwordHash: null, isAdmin: false, openingBalanceMicro: 100_000 }, now)),
      (error) => error instanceof AppError && error.code === 'conflict',
    );
    assert.equal(await accounts.countUsers(uow.direct), before);
    assert.equal((await accounts.findUserByEmail(uow.direct, email))?.id, user.id);
  });

  test('two openings with one email at once: one account, the other a conflict', async () => {
    const { accounts, uow } = ports();
    const now = Date.now();
    const email = `race-${now}@example.com`;
    const open = () => uow.transaction((tx) => accounts.openAccount(tx, { email, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now));
    const results = await Promise.allSettled([open(), open()]);
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    const refused = results.find((r) => r.status === 'rejected');
    assert.ok(refused && refused.reason instanceof AppError && refused.reason.code === 'conflict');
  });

  test('a key is revoked once: the second revocation changes nothing, and the key no longer authenticates', async () => {
    const { accounts, uow } = ports();
    const now = Date.now();
    const owner = await uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now));
    const stranger = await uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now));
    const key = keyRow(owner.id, now);
    await accounts.addKey(uow.direct, key);
    assert.equal((await accounts.findActiveKeyByHash(uow.direct, key.key_hash, now))?.id, key.id);

    assert.equal(await accounts.revokeKey(uow.direct, key.id, stranger.id, now + 1), false, "another user's revocation moves nothing");
    assert.equal((await accounts.findKey(uow.direct, key.id))?.revoked_at, null);
    assert.equal(await accounts.revokeKey(uow.direct, key.id, owner.id, now + 2), true);
    assert.equal(await accounts.revokeKey(uow.direct, key.id, undefined, now + 3), false);
    assert.equal(Number((await accounts.findKey(uow.direct, key.id))?.revoked_at), now + 2, 'the first revocation time stays');
    assert.equal(await accounts.findActiveKeyByHash(uow.direct, key.key_hash, now + 4), undefined);
    assert.deepEqual(await accounts.findRevokedKeyIds(uow.direct, [key.id, 'key_gone']), [key.id, 'key_gone']);
  });

  test('limits change only on the owner\'s key, and last-used moves only forward', async () => {
    const { accounts, uow } = ports();
    const now = Date.now();
    const owner = await uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now));
    const key = keyRow(owner.id, now);
    await accounts.addKey(uow.direct, key);
    assert.equal(await accounts.changeKey(uow.direct, key.id, 'usr_someone_else', { rpm_limit: 1 }), false);
    assert.equal((await accounts.findKey(uow.direct, key.id))?.rpm_limit, null);
    assert.equal(await accounts.changeKey(uow.direct, key.id, owner.id, { rpm_limit: 30, allowed_models: '["m1"]', name: 'renamed' }), true);
    const changed = await accounts.findKey(uow.direct, key.id);
    assert.ok(changed);
    assert.equal(changed.name, 'renamed');
    assert.equal(limitsOfRow(changed).requestsPerMinute, 30);
    assert.deepEqual(limitsOfRow(changed).allowedModels, ['m1']);
    assert.deepEqual((await accounts.listKeys(uow.direct, owner.id)).map((k) => k.id), [key.id]);

    await accounts.touchKeys(uow.direct, new Map([[key.id, now + 500]]));
    await accounts.touchKeys(uow.direct, new Map([[key.id, now + 100]]));
    assert.equal(Number((await accounts.findKey(uow.direct, key.id))?.last_used_at), now + 500, 'an older time does not overwrite a newer one');
  });

  test("the key's spend cap is checked in the debit's transaction: a debit past it writes nothing", async () => {
    const { accounts, ledger, uow } = ports();
    const now = Date.now();
    const owner = await uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 1_000_000 }, now));
    const key = keyRow(owner.id, now, { spend_cap_micro: 300_000, spend_cap_period: 'total' });
    await accounts.addKey(uow.direct, key);
    const debit = (reference: string) =>
      uow.transaction((tx) => ledger.post(tx, { userId: owner.id, kind: 'generation_debit', reference, amountMicro: -200_000, apiKeyId: key.id }, now));
    assert.equal((await debit('task_cap_1')).created, true);
    await assert.rejects(debit('task_cap_2'), (error) => error instanceof AppError && error.code === 'key_spend_cap_reached');
    assert.equal((await accounts.findUser(uow.direct, owner.id))?.balance_micro, 800_000);
    assert.equal(await ledger.find(uow.direct, 'generation_debit', 'task_cap_2'), undefined);
    assert.equal((await accounts.keySpendInMonth(uow.direct, [key.id], now)).get(key.id), 200_000);
  });

  test('a key counts its media tasks not yet finished, and no other key\'s', async () => {
    const { accounts, uow } = ports();
    const now = Date.now();
    const owner = await uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now));
    const [key, other] = [keyRow(owner.id, now), keyRow(owner.id, now)];
    for (const row of [key, other]) await accounts.addKey(uow.direct, row);
    const task = (apiKeyId: string, status: TaskStatus) => ({
      id: newId('task', now),
      user_id: owner.id,
      model: 'm',
      family: 'f',
      type: 'IMAGE',
      input_json: '{}',
      measured_json: '{}',
      webhook_url: null,
      status,
      cost_micro: 0,
      price_tier: 't',
      price_unit: 'image',
      price_units: 1,
      routes_json: '[]',
      files_json: null,
      output_json: null,
      error_message: null,
      refunded_micro: 0,
      idempotency_key: null,
      request_hash: null,
      created_at: now,
      updated_at: now,
      started_at: null,
      finished_at: null,
      expires_at: null,
      api_key_id: apiKeyId,
    });
    const statuses: TaskStatus[] = ['not_started', 'processing', 'finished', 'failed'];
    await t.handle.db.insertInto('tasks').values([...statuses.map((status) => task(key.id, status)), task(other.id, 'processing')]).execute();
    assert.equal(await accounts.countUnfinishedTasksOfKey(uow.direct, key.id), 2);
    assert.equal(await accounts.countUnfinishedTasksOfKey(uow.direct, other.id), 1);
  });
});

describeEachDatabase('auth store: sessions and sign-in links', (t) => {
  const ports = () => accountPortsOf(t.handle.db);

  test('a session signed out is gone; ending the others keeps the one asked for', async () => {
    const { accounts, auth, uow } = ports();
    const now = Date.now();
    const user = await uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: true, openingBalanceMicro: 0 }, now));
    const [a, b, c] = [sessionRow(user.id, now, '203.0.113.1'), sessionRow(user.id, now, '203.0.113.2'), sessionRow(user.id, now, '203.0.113.3')];
    for (const row of [a, b, c]) await auth.addSession(uow.direct, row);
    const found = await auth.findSessionByTokenHash(uow.direct, a.token_hash);
    assert.equal(found?.id, a.id);
    assert.equal(found?.is_admin, 1);

    await auth.endSession(uow.direct, a.id);
    assert.equal(await auth.findSessionByTokenHash(uow.direct, a.token_hash), undefined);
    assert.deepEqual(await auth.findEndedSessionIds(uow.direct, [a.id, b.id], now), [a.id]);
    assert.deepEqual(await auth.endOtherSessions(uow.direct, user.id, b.id), [c.id]);
    assert.deepEqual(await auth.listSessionAddresses(uow.direct, user.id), ['203.0.113.2']);
    assert.deepEqual(await auth.findEndedSessionIds(uow.direct, [b.id], now + 60_000), [b.id], 'an expired session has ended too');
  });

  test('a first password is set once; a sign-in link is used once, before it expires', async () => {
    const { accounts, auth, uow } = ports();
    const now = Date.now();
    const user = await uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now));
    assert.equal(await auth.setFirstPasswordHash(uow.direct, user.id, 'first'), true);
    assert.equal(await auth.setFirstPasswordHash(uow.direct, user.id, 'second'), false);
    assert.equal((await accounts.findUser(uow.direct, user.id))?.password_hash, 'first');

    await auth.addSignInLink(uow.direct, { token_hash: `link-${user.id}`, user_id: user.id, created_at: now, expires_at: now + 1_000 });
    await auth.addSignInLink(uow.direct, { token_hash: `late-${user.id}`, user_id: user.id, created_at: now, expires_at: now + 1_000 });
    const uses = await Promise.all([auth.consumeSignInLink(uow.direct, `link-${user.id}`, now), auth.consumeSignInLink(uow.direct, `link-${user.id}`, now)]);
    assert.deepEqual(uses.filter((id) => id !== undefined), [user.id]);
    assert.equal(await auth.consumeSignInLink(uow.direct, `late-${user.id}`, now + 1_000), undefined, 'an expired link signs nobody in');
  });
});

describeEachDatabase('billing store: checkouts, redeem codes and the account books', (t) => {
  const ports = () => accountPortsOf(t.handle.db);

  test('a checkout moves once: a second completion from the wrong state changes nothing', async () => {
    const { accounts, billing, uow } = ports();
    const now = Date.now();
    const user = await uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now));
    const row: CheckoutRow = {
      id: newId('chk', now),
      user_id: user.id,
      provider: 'test',
      idempotency_key: `idem-${now}`,
      session_id: null,
      url: null,
      amount_micro: 5_000_000,
      status: 'created',
      created_at: now,
      completed_at: null,
      paid_amount_minor: null,
      paid_currency: null,
    };
    assert.equal(await billing.addCheckoutOnce(uow.direct, row), true);
    assert.equal(await billing.addCheckoutOnce(uow.direct, { ...row, id: newId('chk', now) }), false, 'one checkout per idempotency key');
    await billing.attachCheckoutSession(uow.direct, row.id, `cs_${row.id}`, 'https://pay.example/1');
    await billing.attachCheckoutSession(uow.direct, row.id, 'cs_other', 'https://pay.example/2');
    assert.equal((await billing.findCheckoutBySession(uow.direct, `cs_${row.id}`))?.url, 'https://pay.example/1');

    assert.equal(await billing.completeCheckout(uow.direct, row.id, 'expired', now), true);
    assert.equal(await billing.completeCheckout(uow.direct, row.id, 'failed', now), false, 'only from created');
    assert.equal(await billing.completeCheckout(uow.direct, row.id, 'paid', now, ['created', 'expired', 'failed']), true);
    assert.equal(await billing.completeCheckout(uow.direct, row.id, 'paid', now, ['created', 'expired', 'failed']), false);
    assert.equal(await billing.holdCheckoutForReview(uow.direct, row.id, { amountMinor: 1, currency: 'eur' }, now), false, 'a paid checkout is not held');
    assert.equal((await billing.findCheckout(uow.direct, row.id))?.status, 'paid');
    assert.deepEqual((await billing.checkoutIdsOf(uow.direct, user.id, [`cs_${row.id}`])).get(`cs_${row.id}`), row.id);
  });

  test('a code with one redemption left is taken by one of many at once, and credited once', async () => {
    const { accounts, billing, ledger, uow } = ports();
    const now = Date.now();
    const code = codeRow(now, 1);
    assert.equal(await billing.addRedeemCode(uow.direct, code), true);
    assert.equal(await billing.addRedeemCode(uow.direct, { ...code, id: newId('rcode', now) }), false, 'one code per text');
    const users = await Promise.all(
      [1, 2, 3, 4, 5].map(() => uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now))),
    );
    const redeem = (userId: string) =>
      uow.transaction(async (tx) => {
        if (!(await billing.takeRedemption(tx, code.id, now))) return false;
        await ledger.post(tx, { userId, kind: 'redeem_credit', reference: redeemReference(code.id, userId), amountMicro: code.amount_micro }, now);
        return true;
      });
    const taken = await Promise.all(users.map((user) => redeem(user.id)));
    assert.equal(taken.filter(Boolean).length, 1);
    assert.equal((await billing.findRedeemCodeByHash(uow.direct, code.code_hash))?.redemptions, 1);
    const balances = await Promise.all(users.map(async (user) => (await accounts.findUser(uow.direct, user.id))?.balance_micro));
    assert.deepEqual(balances.sort((a, b) => Number(a) - Number(b)), [0, 0, 0, 0, 500_000]);

    const disabled = await billing.disableRedeemCode(uow.direct, code.id, now + 1);
    assert.equal(Number(disabled?.disabled_at), now + 1);
    assert.equal(Number((await billing.disableRedeemCode(uow.direct, code.id, now + 2))?.disabled_at), now + 1, 'the first withdrawal stays');
  });

  test('one user redeeming one code twice at once is credited once, and the count given back', async () => {
    const store = ports();
    const now = Date.now();
    const code = 'CONTRACT-ONCE';
    const codes = new RedeemCodesService(store, new MemoryRateLimiter(), { perKey: { max: 100, windowMs: 60_000 }, perAccount: { max: 100, windowMs: 60_000 } });
    const { row } = await codes.create({ amountMicro: 250_000, maxRedemptions: 5, expiresAt: null, note: null, code: `${code}-${now}` });
    const user = await store.uow.transaction((tx) => store.accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 0 }, now));
    const results = await Promise.allSettled([0, 1, 2].map(() => codes.redeem({ userId: user.id, keyId: undefined }, `${code}-${now}`)));
    assert.equal(results.filter((r) => r.status === 'fulfilled').length, 1);
    for (const r of results) if (r.status === 'rejected') assert.ok(r.reason instanceof AppError && r.reason.code === 'redeem_code_already_redeemed');
    assert.equal((await store.accounts.findUser(store.uow.direct, user.id))?.balance_micro, 250_000);
    assert.equal((await store.billing.findRedeemCodeByHash(store.uow.direct, row.code_hash))?.redemptions, 1);
  });

  test("the account books read the balance, the holds and the ledger page of one user", async () => {
    const { accounts, billing, ledger, uow } = ports();
    const now = Date.now();
    const user = await uow.transaction((tx) => accounts.openAccount(tx, { email: null, passwordHash: null, isAdmin: false, openingBalanceMicro: 900_000 }, now));
    await uow.transaction((tx) => ledger.post(tx, { userId: user.id, kind: 'generation_debit', reference: `task_books_${now}`, amountMicro: -100_000 }, now + 5));
    const books = await billing.readAccountBooks(uow.direct, user.id);
    assert.equal(books?.user.balance_micro, 800_000);
    assert.deepEqual(books?.holds, []);
    assert.deepEqual(books?.openRuns, []);
    assert.equal(await billing.readAccountBooks(uow.direct, 'usr_nobody'), undefined);
    assert.equal(await uow.transaction((tx) => billing.readAccountBooks(tx, user.id)).then((b) => b?.user.id), user.id, 'inside a transaction, on its snapshot');
    const page = await billing.listUserEntries(uow.direct, user.id, { limit: 10 });
    assert.deepEqual(page.map((e) => e.kind), ['generation_debit', 'initial_credit']);
    assert.deepEqual((await billing.listUserEntries(uow.direct, user.id, { limit: 10, kinds: ['initial_credit'] })).map((e) => e.amount_micro), [900_000]);
  });
});
