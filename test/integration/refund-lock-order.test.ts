/**
 * Lock order (issue 17, item 5): a refund and a create that races on the same Idempotency-Key must not
 * deadlock. The create (a batch) locks the account with its debit, then inserts its task, whose
 * unique (user, Idempotency-Key) check waits for any transaction that holds the earlier task's row.
 * A refund that moved the task first and then waited for the account closed that circle, and
 * PostgreSQL aborted one of them. A refund now takes the account first, like every money transaction.
 */
import assert from 'node:assert/strict';
import { kyselyTaskPorts } from '../../src/adapters/db/stores/task-store.ts';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { applyGuardedBalanceChange } from '../../src/adapters/db/ledger/ledger.repository.ts';
import { findTask, insertTask, type TaskRow } from '../../src/adapters/db/repositories/tasks.repository.ts';
import { MemoryEventBus } from '../../src/adapters/bus/memory-event-bus.ts';
import { DbWorkQueue } from '../../src/adapters/queue/db-work-queue.ts';
import { newId } from '../../src/domain/ids.ts';
import { createUser } from '../../src/adapters/db/stores/account-store.ts';
import { writePaidTask } from '../../src/services/generation/create-generation.service.ts';
import { failTask } from '../../src/services/generation/task-transitions.ts';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { createTestDatabase, type TestDatabase } from '../support/databases.ts';
import { serviceSkipReason, TEST_DATABASE_URL } from '../support/services.ts';

describe('a refund racing a create with the same Idempotency-Key [postgres]', async () => {
  const skip = await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL);
  if (skip) {
    test('skipped', { skip }, () => {});
    return;
  }
  let t: TestDatabase;
  let dispose: () => Promise<void>;
  before(async () => {
    const created = await createTestDatabase('postgres');
    t = created.db;
    dispose = created.dispose;
  });
  after(async () => dispose());

  /** Whether some backend of this schema waits on a lock right now. */
  async function someoneWaits(): Promise<boolean> {
    const client = new pg.Client({ connectionString: TEST_DATABASE_URL });
    await client.connect();
    try {
      const result = await client.query("SELECT count(*)::int AS n FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()");
      return (result.rows[0] as { n: number }).n > 0;
    } finally {
      await client.end();
    }
  }

  test('the create gets its unique violation at once, the refund goes through, and neither is aborted as a deadlock', async () => {
    const db = t.handle.db;
    const now = Date.now();
    const user = await createUser(db, { balanceMicro: 1_000_000 });
    const key = 'same-key';
    const first: TaskRow = {
      id: newId('task', now),
      user_id: user.id,
      model: 'z-image-turbo',
      family: 'image',
      type: 'IMAGE',
      input_json: '{}',
      measured_json: '[]',
      webhook_url: null,
      status: 'processing',
      cost_micro: 10_000,
      price_tier: 'default',
      price_unit: 'image',
      price_units: 1,
      routes_json: '[{"provider":"local","model":"z-image-turbo"}]',
      files_json: null,
      output_json: null,
      error_message: null,
      refunded_micro: 0,
      idempotency_key: key,
      request_hash: 'h',
      created_at: now,
      updated_at: now,
      started_at: now,
      finished_at: null,
      expires_at: null,
      agent_run_id: null,
      api_key_id: null,
    };
    await db.transaction().execute((tx) => writePaidTask(tx, { ...kyselyTaskPorts(db), queue: new DbWorkQueue(t.handle, new MemoryEventBus()) }, first));

    // The racing create: its debit holds the account row while the refund starts.
    let letInsert: () => void = () => {};
    const insertMayGo = new Promise<void>((resolve) => {
      letInsert = resolve;
    });
    let debited: () => void = () => {};
    const accountLocked = new Promise<void>((resolve) => {
      debited = resolve;
    });
    const racingCreate = db
      .transaction()
      .execute(async (tx) => {
        assert.notEqual(await applyGuardedBalanceChange(tx, user.id, -10_000), undefined);
        debited();
        await insertMayGo;
        await insertTask(tx, { ...first, id: newId('task', Date.now()), status: 'not_started', started_at: null });
      })
      .then(
        () => 'committed',
        (error: { code?: string; cause?: { code?: string } }) => error.code ?? error.cause?.code ?? 'unknown',
      );
    await accountLocked;
    const refund = failTask(kyselyTaskPorts(db), first, 'every provider failed', Date.now(), async () => {}).then(
      (won) => (won ? 'refunded' : 'lost'),
      (error: { code?: string; cause?: { code?: string } }) => error.code ?? error.cause?.code ?? 'unknown',
    );
    // The refund is waiting on a lock before the create goes on.
    const deadline = Date.now() + 5_000;
    while (!(await someoneWaits())) {
      assert.ok(Date.now() < deadline, 'the refund never waited for the account');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    letInsert();
    assert.equal(await racingCreate, '23505', 'the duplicate create is refused by the unique key (40P01 is a deadlock)');
    assert.equal(await refund, 'refunded');
    const task = await findTask(db, first.id);
    assert.equal(task?.status, 'failed');
    assert.deepEqual(await verifyLedger(db), []);
  });
});
