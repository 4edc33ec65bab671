/**
 * The storage store port (src/ports/storage-store.port.ts) on both engines: every compare-and-set
 * moves once (a second move from the old state changes nothing), a charge is recorded once per
 * reference and rolls back with its ledger entry, and quota is taken only within the plan and never
 * given back below zero.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { kyselyLedgerBook } from '../../src/adapters/db/ledger/ledger-book.ts';
import { findUserById } from '../../src/adapters/db/repositories/users.repository.ts';
import { kyselyUnitOfWork } from '../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { KyselyStorageStore } from '../../src/adapters/db/stores/storage-store.ts';
import { AppError } from '../../src/domain/errors.ts';
import { newId } from '../../src/domain/ids.ts';
import type { StorageChargeRow, StorageFileRow, StorageOperationRow, StorageSubscriptionRow } from '../../src/ports/storage-store.port.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { describeEachDatabase } from '../support/databases.ts';

const NOW = 1_800_000_000_000;
const DAY = 86_400_000;

function subscriptionOf(userId: string, changes: Partial<StorageSubscriptionRow> = {}): StorageSubscriptionRow {
  return {
    user_id: userId,
    plan_id: 'small',
    next_plan_id: null,
    quota_bytes: 1_000,
    used_bytes: 0,
    anchor_at: NOW,
    period_index: 0,
    period_start: NOW,
    period_end: NOW + 30 * DAY,
    auto_renew: 1,
    status: 'active',
    grace_ends_at: null,
    version: 1,
    created_at: NOW,
    updated_at: NOW,
    api_key_id: null,
    ...changes,
  };
}

function chargeOf(userId: string, reference: string, amountMicro: number): StorageChargeRow {
  return {
    id: newId('stc'),
    user_id: userId,
    plan_id: 'small',
    charge_kind: 'renewal',
    amount_micro: amountMicro,
    period_start: NOW,
    period_end: NOW + 30 * DAY,
    reference,
    created_at: NOW,
    api_key_id: null,
  };
}

function operationOf(userId: string): StorageOperationRow {
  return {
    id: newId('sop'),
    user_id: userId,
    storefront: 'default',
    operation_type: 'retain',
    status: 'pending',
    source_type: 'generation',
    source_id: 'task_1',
    output_index: 0,
    project_id: null,
    asset_role: null,
    copy_seed: 'seed',
    file_id: null,
    error_code: null,
    error_message: null,
    created_at: NOW,
    finished_at: null,
  };
}

function fileOf(userId: string, operationId: string, sizeBytes: number): StorageFileRow {
  return {
    id: newId('sf'),
    user_id: userId,
    operation_id: operationId,
    file_kind: 'retained',
    project_id: null,
    source_type: 'generation',
    source_id: 'task_1',
    output_index: 0,
    name: 'task_1-0.png',
    mime: 'image/png',
    size_bytes: sizeBytes,
    blob_key: `storage/${operationId}.png`,
    status: 'available',
    created_at: NOW,
    deleted_at: null,
    purged_at: null,
  };
}

describeEachDatabase('storage store port', (t) => {
  const store = new KyselyStorageStore();

  test('a subscription is created once per user, and a move at a version happens once', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, {});
    assert.equal(await store.createSubscription(uow.direct, subscriptionOf(user.id)), true);
    assert.equal(await store.createSubscription(uow.direct, subscriptionOf(user.id, { plan_id: 'big' })), false, 'a second first subscription is refused');
    assert.equal((await store.findSubscription(uow.direct, user.id))?.plan_id, 'small');

    assert.equal(await store.changeSubscriptionAtVersion(uow.direct, user.id, 1, { period_index: 1, period_end: NOW + 60 * DAY }), true);
    assert.equal(await store.changeSubscriptionAtVersion(uow.direct, user.id, 1, { period_index: 7, status: 'grace' }), false, 'the same version cannot move twice');
    const after = await store.findSubscription(uow.direct, user.id);
    assert.deepEqual([after?.version, after?.period_index, after?.status, after?.period_end], [2, 1, 'active', NOW + 60 * DAY]);
  });

  test('a renewal commits its version move, its ledger entry and its charge together, once', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, { balanceMicro: 5_000_000 });
    await store.createSubscription(uow.direct, subscriptionOf(user.id));
    const renew = (version: number) =>
      uow.transaction(async (tx) => {
        if (!(await store.changeSubscriptionAtVersion(tx, user.id, version, { period_index: 1 }))) return false;
        const reference = `storage:renewal:${user.id}:1`;
        await kyselyLedgerBook.post(tx, { userId: user.id, kind: 'storage_charge', reference, amountMicro: -2_000_000, note: 'renewal' }, NOW);
        await store.recordCharge(tx, chargeOf(user.id, reference, 2_000_000));
        return true;
      });
    const results = await Promise.all([renew(1), renew(1)]);
    assert.deepEqual(results.sort(), [false, true], 'one of two renewals of the same version wins');
    assert.equal((await findUserById(t.handle.db, user.id))?.balance_micro, 3_000_000);
    assert.equal((await store.listCharges(uow.direct, user.id, 10)).length, 1);
    assert.equal((await store.findSubscription(uow.direct, user.id))?.version, 2);
  });

  test('a renewal the balance does not cover changes nothing: the version move rolls back with it', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, { balanceMicro: 1_000 });
    await store.createSubscription(uow.direct, subscriptionOf(user.id));
    await assert.rejects(
      uow.transaction(async (tx) => {
        assert.equal(await store.changeSubscriptionAtVersion(tx, user.id, 1, { period_index: 1 }), true);
        await kyselyLedgerBook.post(tx, { userId: user.id, kind: 'storage_charge', reference: `storage:renewal:${user.id}:1`, amountMicro: -2_000_000 }, NOW);
        await store.recordCharge(tx, chargeOf(user.id, `storage:renewal:${user.id}:1`, 2_000_000));
      }),
      (error: unknown) => error instanceof AppError && error.code === 'insufficient_balance',
    );
    const after = await store.findSubscription(uow.direct, user.id);
    assert.deepEqual([after?.version, after?.period_index], [1, 0]);
    assert.equal((await findUserById(t.handle.db, user.id))?.balance_micro, 1_000);
    assert.deepEqual(await store.listCharges(uow.direct, user.id, 10), []);
  });

  test('a charge is recorded once per reference; charges list newest first', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, {});
    await store.recordCharge(uow.direct, chargeOf(user.id, `storage:sq_${user.id}_a`, 100));
    await assert.rejects(store.recordCharge(uow.direct, chargeOf(user.id, `storage:sq_${user.id}_a`, 100)));
    await store.recordCharge(uow.direct, { ...chargeOf(user.id, `storage:sq_${user.id}_b`, 300), created_at: NOW + 1 });
    const charges = await store.listCharges(uow.direct, user.id, 10);
    assert.deepEqual(
      charges.map((c) => [c.reference, c.amount_micro]),
      [
        [`storage:sq_${user.id}_b`, 300],
        [`storage:sq_${user.id}_a`, 100],
      ],
    );
  });

  test('quota is taken only while active and within the plan, and never given back below zero', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, {});
    await store.createSubscription(uow.direct, subscriptionOf(user.id, { quota_bytes: 1_000 }));
    assert.equal(await store.reserveQuota(uow.direct, user.id, 600), true);
    assert.equal(await store.reserveQuota(uow.direct, user.id, 401), false, 'past the quota');
    assert.equal(await store.reserveQuota(uow.direct, user.id, 400), true, 'exactly the quota');
    assert.equal((await store.findSubscription(uow.direct, user.id))?.used_bytes, 1_000);
    await store.releaseQuota(uow.direct, user.id, 300);
    assert.equal((await store.findSubscription(uow.direct, user.id))?.used_bytes, 700);
    await store.releaseQuota(uow.direct, user.id, 5_000);
    assert.equal((await store.findSubscription(uow.direct, user.id))?.used_bytes, 0, 'never below zero');

    await store.changeSubscriptionAtVersion(uow.direct, user.id, 1, { status: 'grace', grace_ends_at: NOW + 3 * DAY });
    assert.equal(await store.reserveQuota(uow.direct, user.id, 1), false, 'no quota during grace');
    assert.equal((await store.findSubscription(uow.direct, user.id))?.used_bytes, 0);
  });

  test('concurrent reservations never pass the quota', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, {});
    await store.createSubscription(uow.direct, subscriptionOf(user.id, { quota_bytes: 1_000 }));
    const taken = await Promise.all(Array.from({ length: 12 }, () => uow.transaction((tx) => store.reserveQuota(tx, user.id, 100))));
    assert.equal(taken.filter(Boolean).length, 10);
    assert.equal((await store.findSubscription(uow.direct, user.id))?.used_bytes, 1_000);
  });

  test('a quote is used once', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, {});
    const id = newId('sq');
    await store.recordQuote(uow.direct, {
      id,
      user_id: user.id,
      plan_id: 'small',
      change_kind: 'new',
      amount_micro: 1_000_000,
      balance_after_micro: 0,
      period_start: NOW,
      period_end: NOW + 30 * DAY,
      quota_version: 0,
      created_at: NOW,
      expires_at: NOW + 900_000,
      used_at: null,
    });
    assert.equal((await store.findQuote(uow.direct, 'usr_someone_else', id)), undefined, 'another user sees no quote');
    assert.equal(await store.markQuoteUsed(uow.direct, id, NOW + 1), true);
    assert.equal(await store.markQuoteUsed(uow.direct, id, NOW + 2), false);
    assert.equal((await store.findQuote(uow.direct, user.id, id))?.used_at, NOW + 1);
  });

  test('an operation finishes once, makes at most one file, and a file is deleted once', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, {});
    const op = operationOf(user.id);
    await store.recordOperation(uow.direct, op);
    const file = fileOf(user.id, op.id, 250);
    assert.equal(await store.recordFileOnce(uow.direct, file), true);
    assert.equal(await store.recordFileOnce(uow.direct, fileOf(user.id, op.id, 250)), false, 'a retried copy makes no second file');
    assert.equal(await store.finishOperation(uow.direct, op.id, { status: 'completed', fileId: file.id }, NOW + 1), true);
    assert.equal(await store.finishOperation(uow.direct, op.id, { status: 'failed', errorCode: 'internal_error', errorMessage: 'late' }, NOW + 2), false);
    const finished = await store.findOperation(uow.direct, op.id);
    assert.deepEqual([finished?.status, finished?.file_id, finished?.error_code, finished?.finished_at], ['completed', file.id, null, NOW + 1]);

    assert.deepEqual((await store.listFiles(uow.direct, user.id, 10)).map((f) => f.id), [file.id]);
    assert.equal(await store.markFileDeleted(uow.direct, file.id, NOW + 3), true);
    assert.equal(await store.markFileDeleted(uow.direct, file.id, NOW + 4), false, 'the quota is freed by one caller only');
    assert.deepEqual(await store.listFiles(uow.direct, user.id, 10), []);
    assert.ok((await store.listUnpurgedFiles(uow.direct, 500)).some((f) => f.id === file.id));
    await store.markFilePurged(uow.direct, file.id, NOW + 5);
    assert.ok(!(await store.listUnpurgedFiles(uow.direct, 500)).some((f) => f.id === file.id));
  });

  test('renewals and grace come due on their dates', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const due = await createUser(t.handle.db, {});
    const later = await createUser(t.handle.db, {});
    const graced = await createUser(t.handle.db, {});
    await store.createSubscription(uow.direct, subscriptionOf(due.id, { period_end: NOW }));
    await store.createSubscription(uow.direct, subscriptionOf(later.id, { period_end: NOW + 1 }));
    await store.createSubscription(uow.direct, subscriptionOf(graced.id, { status: 'grace', period_end: NOW - 3 * DAY, grace_ends_at: NOW }));
    const renewals = (await store.listDueRenewals(uow.direct, NOW, 200)).map((s) => s.user_id);
    assert.ok(renewals.includes(due.id) && !renewals.includes(later.id) && !renewals.includes(graced.id));
    const expired = (await store.listExpiredGrace(uow.direct, NOW, 200)).map((s) => s.user_id);
    assert.ok(expired.includes(graced.id) && !expired.includes(due.id));
  });

  test('an idempotency key is reserved once and replays its stored response', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const scope = `storage_subscribe:${newId('usr')}`;
    assert.equal(await store.findIdempotentResponse(uow.direct, scope, 'k1', 'h1'), undefined);
    await uow.transaction(async (tx) => {
      assert.equal(await store.reserveIdempotencyKey(tx, scope, 'k1', 'h1', NOW), undefined);
      await store.storeIdempotentResponse(tx, scope, 'k1', { ok: 1 });
    });
    assert.deepEqual(await uow.transaction((tx) => store.reserveIdempotencyKey(tx, scope, 'k1', 'h1', NOW)), { ok: 1 });
    await assert.rejects(store.findIdempotentResponse(uow.direct, scope, 'k1', 'other'), (error: unknown) => error instanceof AppError && error.code === 'idempotency_key_reused');
  });

  test('the user the quote reads is the stored one', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const user = await createUser(t.handle.db, { balanceMicro: 42 });
    assert.equal((await store.findUser(uow.direct, user.id))?.balance_micro, 42);
    assert.equal(await store.findUser(uow.direct, 'usr_nobody'), undefined);
  });
});
