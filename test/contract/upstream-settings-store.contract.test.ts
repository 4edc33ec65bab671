/**
 * The live upstream settings' store (src/ports/upstream-settings-store.port.ts) on both engines, direct
 * and inside a transaction: a setting is created once, moves only from the version its writer read
 * (the store numbering the versions), one of several writers of the same version wins, a provider
 * takes its keys with it, the revision grows by one per bump, a load returns what was written, and
 * the audit pages join without a gap or a repeat when several rows share a time.
 */
import assert from 'node:assert/strict';
import { setTimeout as delay } from 'node:timers/promises';
import { test } from 'node:test';
import { sql } from 'kysely';
import { kyselyUnitOfWork } from '../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { kyselyUpstreamSettingsStore as store } from '../../src/adapters/db/stores/upstream-settings-store.ts';
import { newId } from '../../src/domain/ids.ts';
import type { ModelSettingsRow, UpstreamAuditRow, UpstreamKeysRow, UpstreamProvidersRow, UpstreamRoutesRow } from '../../src/ports/store-rows/upstreams.rows.ts';
import type { StoreTransaction } from '../../src/ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../src/ports/unit-of-work.port.ts';
import { createTestDatabase, describeEachDatabase, type TestDatabase } from '../support/databases.ts';

const NOW = 1_800_000_000_000;

function providerRow(name: string, changes: Partial<UpstreamProvidersRow> = {}): UpstreamProvidersRow {
  return {
    name,
    type: 'openai',
    base_url: 'https://api.example.com/v1',
    timeout_ms: 60_000,
    concurrency: 8,
    options_json: '{}',
    enabled: 1,
    // Whatever the caller puts here, the store numbers the versions itself.
    version: 42,
    updated_at: NOW,
    updated_by: 'admin-token',
    ...changes,
  };
}

function keyRow(provider: string, changes: Partial<UpstreamKeysRow> = {}): UpstreamKeysRow {
  return {
    id: newId('upk'),
    provider,
    secret_sealed: 'sealed:abc',
    hint: 'sk-…abcd',
    label: null,
    weight: 1,
    enabled: 1,
    created_at: NOW,
    updated_at: NOW,
    ...changes,
  };
}

function routeRow(modelId: string, changes: Partial<UpstreamRoutesRow> = {}): UpstreamRoutesRow {
  return { model_id: modelId, entries_json: '[{"provider":"a"}]', version: 42, updated_at: NOW, updated_by: 'admin-token', ...changes };
}

function modelRow(modelId: string, changes: Partial<ModelSettingsRow> = {}): ModelSettingsRow {
  return { model_id: modelId, override_json: '{"hidden":true}', version: 42, updated_at: NOW, updated_by: 'admin-token', ...changes };
}

/** What the second write of a setting changes: every column but the key and the version. */
const PROVIDER_CHANGE: Partial<UpstreamProvidersRow> = { type: 'anthropic', base_url: null, timeout_ms: 5_000, concurrency: 2, options_json: '{"x":1}', enabled: 0, updated_at: NOW + 1, updated_by: 'usr_b' };
const ROUTE_CHANGE: Partial<UpstreamRoutesRow> = { entries_json: '[{"provider":"b","weight":0.5}]', updated_at: NOW + 1, updated_by: 'usr_b' };
const MODEL_CHANGE: Partial<ModelSettingsRow> = { override_json: '{"name":"Renamed"}', updated_at: NOW + 1, updated_by: 'usr_b' };

/** The three versioned settings behind one shape, so each is held to the same rules. */
interface VersionedKind {
  kind: string;
  /** The row written: the first one, or (`changed`) the second. */
  make(id: string, changed: boolean): UpstreamProvidersRow | UpstreamRoutesRow | ModelSettingsRow;
  get(tx: StoreTransaction, id: string): Promise<UpstreamProvidersRow | UpstreamRoutesRow | ModelSettingsRow | undefined>;
  put(tx: StoreTransaction, id: string, changed: boolean, expectedVersion: number | undefined): Promise<boolean>;
  remove(tx: StoreTransaction, id: string, expectedVersion: number | undefined): Promise<boolean>;
}

const KINDS: VersionedKind[] = [
  {
    kind: 'provider',
    make: (id, changed) => providerRow(id, changed ? PROVIDER_CHANGE : {}),
    get: (tx, id) => store.provider(tx, id),
    put: (tx, id, changed, v) => store.putProvider(tx, providerRow(id, changed ? PROVIDER_CHANGE : {}), v),
    remove: (tx, id, v) => store.deleteProvider(tx, id, v),
  },
  {
    kind: 'route',
    make: (id, changed) => routeRow(id, changed ? ROUTE_CHANGE : {}),
    get: (tx, id) => store.route(tx, id),
    put: (tx, id, changed, v) => store.putRoute(tx, routeRow(id, changed ? ROUTE_CHANGE : {}), v),
    remove: (tx, id, v) => store.deleteRoute(tx, id, v),
  },
  {
    kind: 'model setting',
    make: (id, changed) => modelRow(id, changed ? MODEL_CHANGE : {}),
    get: (tx, id) => store.modelSetting(tx, id),
    put: (tx, id, changed, v) => store.putModelSetting(tx, modelRow(id, changed ? MODEL_CHANGE : {}), v),
    remove: (tx, id, v) => store.deleteModelSetting(tx, id, v),
  },
];

/** Each statement on its own, or all of a step in one transaction: the guards hold either way. */
const MODES: { mode: string; run: <T>(uow: UnitOfWork, work: (tx: StoreTransaction) => Promise<T>) => Promise<T> }[] = [
  { mode: 'direct', run: (uow, work) => work(uow.direct) },
  { mode: 'in a transaction', run: (uow, work) => uow.transaction(work) },
];

/** Thrown by a change that lost its guard, so its transaction (and its revision bump) rolls back. */
class Refused extends Error {}

describeEachDatabase('upstream settings store port', (t: TestDatabase) => {
  for (const kind of KINDS) {
    for (const { mode, run } of MODES) {
      test(`a ${kind.kind} is created once, moves only from the version read, and is deleted at its version (${mode})`, async () => {
        const uow = kyselyUnitOfWork(t.handle.db);
        const id = newId('up');
        await run(uow, async (tx) => {
          assert.equal(await kind.put(tx, id, false, 1), false, 'no update of an absent setting');
          assert.equal(await kind.get(tx, id), undefined);
          assert.equal(await kind.put(tx, id, false, undefined), true);
          assert.equal(await kind.put(tx, id, true, undefined), false, 'a second creation is refused');
        });
        const created = await kind.get(uow.direct, id);
        assert.deepEqual(plain(created), { ...kind.make(id, false), version: 1 }, 'created at version 1, whatever the row said');

        await run(uow, async (tx) => {
          assert.equal(await kind.put(tx, id, true, 2), false, 'a version ahead is refused');
          assert.equal(await kind.put(tx, id, true, 1), true);
          assert.equal(await kind.put(tx, id, false, 1), false, 'the same version cannot move twice');
        });
        assert.deepEqual(plain(await kind.get(uow.direct, id)), { ...kind.make(id, true), version: 2 }, 'every column replaced, the version moved by one');

        await run(uow, async (tx) => {
          assert.equal(await kind.remove(tx, id, 1), false, 'a stale delete is refused');
          assert.equal((await kind.get(tx, id))?.version, 2);
          assert.equal(await kind.remove(tx, id, 2), true);
          assert.equal(await kind.get(tx, id), undefined);
          assert.equal(await kind.remove(tx, id, 2), false, 'nothing left to delete');
          assert.equal(await kind.remove(tx, id, undefined), false, 'nothing left to delete, unguarded either');
        });

        assert.equal(await kind.put(uow.direct, id, false, undefined), true, 'created again after the delete, at version 1');
        assert.equal((await kind.get(uow.direct, id))?.version, 1);
        assert.equal(await kind.put(uow.direct, id, true, 1), true);
        assert.equal(await kind.remove(uow.direct, id, undefined), true, 'an unguarded delete takes any version');
        assert.equal(await kind.get(uow.direct, id), undefined);
      });
    }

    test(`writers of the same ${kind.kind} version at once: exactly one wins, and only it bumps the revision`, async () => {
      const uow = kyselyUnitOfWork(t.handle.db);
      const id = newId('up');
      const writers = 6;
      // PostgreSQL: every writer reads inside its transaction before any writes, so they truly race on
      // the row. SQLite runs one write transaction at a time, so a barrier there would never open.
      const race = async (expectedVersion: number | undefined, changed: boolean): Promise<boolean[]> => {
        const barrier = t.kind === 'postgres' ? gate(writers) : async () => {};
        return Promise.all(
          Array.from({ length: writers }, async () => {
            try {
              return await uow.transaction(async (tx) => {
                await kind.get(tx, id);
                await barrier();
                if (!(await kind.put(tx, id, changed, expectedVersion))) throw new Refused();
                await store.bumpRevision(tx);
                return true;
              });
            } catch (error) {
              if (error instanceof Refused) return false;
              throw error;
            }
          }),
        );
      };

      const before = await store.revision(uow.direct);
      const creations = await race(undefined, false);
      assert.equal(creations.filter(Boolean).length, 1, 'one creation of an absent setting');
      assert.equal((await kind.get(uow.direct, id))?.version, 1);

      const updates = await race(1, true);
      assert.equal(updates.filter(Boolean).length, 1, 'one move from version 1');
      assert.equal((await kind.get(uow.direct, id))?.version, 2);
      assert.equal(await store.revision(uow.direct), before + 2, 'the losers rolled their bumps back');
    });
  }

  test('a provider takes its keys with it, and a refused delete takes none', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const name = newId('prov');
    const other = newId('prov');
    assert.equal(await store.putProvider(uow.direct, providerRow(name), undefined), true);
    assert.equal(await store.putProvider(uow.direct, providerRow(other), undefined), true);
    const keys = [keyRow(name, { created_at: NOW }), keyRow(name, { created_at: NOW + 1 })];
    for (const key of keys) await store.insertKey(uow.direct, key);
    const kept = keyRow(other);
    await store.insertKey(uow.direct, kept);

    assert.equal(await store.deleteProvider(uow.direct, name, 7), false);
    assert.equal((await store.keys(uow.direct, name)).length, 2, 'a refused delete keeps the keys');

    assert.equal(await store.deleteProvider(uow.direct, name, 1), true);
    assert.equal(await store.provider(uow.direct, name), undefined);
    assert.deepEqual(await store.keys(uow.direct, name), []);
    assert.deepEqual(plain(await store.keys(uow.direct, other)), [kept], "another provider's keys stay");
    assert.equal(await store.deleteProvider(uow.direct, name, undefined), false, 'nothing left to delete');

    await uow.transaction(async (tx) => {
      await store.insertKey(tx, keyRow(other));
      assert.equal(await store.deleteProvider(tx, other, undefined), true);
      assert.deepEqual(await store.keys(tx, other), [], 'the keys go in the same transaction');
    });
  });

  test('a key belongs to a stored provider', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    await assert.rejects(store.insertKey(uow.direct, keyRow(newId('absent'))));
  });

  test("a key is changed and deleted under its provider only, and its weight keeps its fraction", async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const name = newId('prov');
    await store.putProvider(uow.direct, providerRow(name), undefined);
    const first = keyRow(name, { created_at: NOW + 5, weight: 0.25, label: 'first' });
    const second = keyRow(name, { created_at: NOW + 1 });
    await store.insertKey(uow.direct, first);
    await store.insertKey(uow.direct, second);
    assert.deepEqual(plain(await store.keys(uow.direct, name)), [second, first], 'oldest first');
    await assert.rejects(store.insertKey(uow.direct, { ...first }), 'a key id is unique');

    assert.equal(await store.updateKey(uow.direct, 'another', first.id, { weight: 3 }), false, 'not under another provider');
    assert.equal(await store.updateKey(uow.direct, name, 'upk_absent', { weight: 3 }), false);
    const change = { label: null, weight: 2.5, enabled: 0, secret_sealed: 'sealed:new', hint: 'sk-…wxyz', updated_at: NOW + 9 };
    assert.equal(await store.updateKey(uow.direct, name, first.id, change), true);
    assert.deepEqual(plain((await store.keys(uow.direct, name)).find((k) => k.id === first.id)), { ...first, ...change });
    assert.equal(await store.updateKey(uow.direct, name, second.id, { label: 'renamed' }), true);
    assert.deepEqual(plain((await store.keys(uow.direct, name)).find((k) => k.id === second.id)), { ...second, label: 'renamed' }, 'only the named columns change');
    assert.equal(await store.updateKey(uow.direct, name, second.id, {}), true, 'an empty change of a key that exists');
    assert.equal(await store.updateKey(uow.direct, name, 'upk_absent', { label: undefined }), false, 'an empty change of a key that does not');

    assert.equal(await store.deleteKey(uow.direct, 'another', first.id), false);
    assert.equal(await store.deleteKey(uow.direct, name, first.id), true);
    assert.equal(await store.deleteKey(uow.direct, name, first.id), false);
    assert.deepEqual((await store.keys(uow.direct, name)).map((k) => k.id), [second.id]);
  });

  test('the revision grows by one per bump, concurrent bumps included', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    const start = await store.revision(uow.direct);
    assert.equal(await store.bumpRevision(uow.direct), start + 1);
    assert.equal(await uow.transaction((tx) => store.bumpRevision(tx)), start + 2);
    assert.equal(await store.revision(uow.direct), start + 2);
    const bumps = await Promise.all(Array.from({ length: 10 }, () => uow.transaction((tx) => store.bumpRevision(tx))));
    assert.deepEqual([...bumps].sort((a, b) => a - b), Array.from({ length: 10 }, (_, i) => start + 3 + i), 'each bump has its own number');
    await assert.rejects(
      uow.transaction(async (tx) => {
        await store.bumpRevision(tx);
        throw new Refused();
      }),
      Refused,
    );
    assert.equal(await store.revision(uow.direct), start + 12, 'a rolled-back bump counts for nothing');
  });

  test('loadAll returns every live setting and the revision, direct and in a transaction', async () => {
    // A database of its own: the revision starts at its seed and nothing else is stored.
    const { db, dispose } = await createTestDatabase(t.kind);
    try {
      const uow = kyselyUnitOfWork(db.handle.db);
      for (const { run } of MODES) assert.deepEqual(plain(await run(uow, (tx) => store.loadAll(tx))), { providers: [], keys: [], routes: [], models: [], revision: 0 });

      await store.putProvider(uow.direct, providerRow('b'), undefined);
      await store.putProvider(uow.direct, providerRow('a'), undefined);
      await store.putProvider(uow.direct, providerRow('a', { enabled: 0 }), 1);
      const keys = [keyRow('a', { created_at: NOW + 2 }), keyRow('a', { created_at: NOW + 1 }), keyRow('b')];
      for (const key of keys) await store.insertKey(uow.direct, key);
      await store.putRoute(uow.direct, routeRow('m1'), undefined);
      await store.putModelSetting(uow.direct, modelRow('m2'), undefined);
      await store.putModelSetting(uow.direct, modelRow('m1'), undefined);
      await store.appendAudit(uow.direct, auditRow('aud_1', NOW));
      await store.bumpRevision(uow.direct);
      await store.bumpRevision(uow.direct);

      const expected = {
        providers: [providerRow('a', { enabled: 0, version: 2 }), providerRow('b', { version: 1 })],
        keys: [keys[1], keys[0], keys[2]],
        routes: [routeRow('m1', { version: 1 })],
        models: [modelRow('m1', { version: 1 }), modelRow('m2', { version: 1 })],
        revision: 2,
      };
      for (const { run } of MODES) assert.deepEqual(plain(await run(uow, (tx) => store.loadAll(tx))), expected);
    } finally {
      await dispose();
    }
  });

  test('a load inside a transaction is one snapshot even when a change commits between its reads', { skip: t.kind === 'sqlite' && 'SQLite: a transaction holds the one writer, so no change can commit during it' }, async () => {
    const db = t.handle.db;
    const name = newId('prov');
    const modelId = newId('model');
    await store.putProvider(db, providerRow(name), undefined);
    await store.putRoute(db, routeRow(modelId), undefined);
    // READ COMMITTED, as services open them: each of the load's statements sees what committed before it.
    // The writer locks the routes first, so the load stops at them, past the providers, and the change
    // commits in the middle of it.
    let locked: () => void = () => {};
    const lockTaken = new Promise<void>((resolve) => {
      locked = resolve;
    });
    let proceed: () => void = () => {};
    const mayChange = new Promise<void>((resolve) => {
      proceed = resolve;
    });
    const writer = db.transaction().execute(async (tx) => {
      await sql`LOCK TABLE upstream_routes IN ACCESS EXCLUSIVE MODE`.execute(tx);
      locked();
      await mayChange;
      assert.equal(await store.putProvider(tx, providerRow(name, PROVIDER_CHANGE), 1), true);
      assert.equal(await store.putRoute(tx, routeRow(modelId, ROUTE_CHANGE), 1), true);
      await store.bumpRevision(tx);
    });
    await lockTaken;
    const load = db.transaction().execute((tx) => store.loadAll(tx));
    const deadline = Date.now() + 10_000;
    while (!(await loadIsWaitingOnRoutes(t))) {
      assert.ok(Date.now() < deadline, 'the load never reached the locked routes');
      await delay(10);
    }
    proceed();
    await writer;
    const loaded = await load;
    const provider = loaded.providers.find((p) => p.name === name);
    const route = loaded.routes.find((r) => r.model_id === modelId);
    assert.equal(route?.version, 2, 'the reads after the commit see it');
    assert.equal(provider?.version, route?.version, 'the provider read before the commit was read again');
    assert.equal(loaded.revision, await store.revision(db));
    assert.deepEqual(plain(loaded), plain(await store.loadAll(db)));
  });

  test('a load outside a transaction never shows a change that is not committed', async () => {
    const db = t.handle.db;
    const name = newId('prov');
    let opened: () => void = () => {};
    const changeOpen = new Promise<void>((resolve) => {
      opened = resolve;
    });
    let finish: () => void = () => {};
    const mayFinish = new Promise<void>((resolve) => {
      finish = resolve;
    });
    const change = db.transaction().execute(async (tx) => {
      await store.putProvider(tx, providerRow(name), undefined);
      await store.bumpRevision(tx);
      opened();
      await mayFinish;
      throw new Refused();
    });
    await changeOpen;
    const load = store.loadAll(db);
    await delay(20);
    finish();
    await assert.rejects(change, Refused);
    const loaded = await load;
    assert.equal(loaded.providers.find((p) => p.name === name), undefined, 'the rolled-back provider was never seen');
    assert.equal(loaded.revision, await store.revision(db));
  });

  test('the audit log pages newest first, rows of one time included, without a gap or a repeat', async () => {
    const uow = kyselyUnitOfWork(t.handle.db);
    // Ids in an order of their own, so the pages cannot lean on the insertion order.
    const rows = [
      auditRow('aud_c', NOW + 10),
      auditRow('aud_a', NOW + 20),
      auditRow('aud_e', NOW + 20),
      auditRow('aud_b', NOW + 20),
      auditRow('aud_d', NOW + 20),
      auditRow('aud_f', NOW + 5),
      auditRow('aud_0', NOW + 30),
    ];
    for (const row of rows) await store.appendAudit(uow.direct, row);
    await assert.rejects(store.appendAudit(uow.direct, auditRow('aud_c', NOW)), 'an audit id is unique');
    const newestFirst = ['aud_0', 'aud_e', 'aud_d', 'aud_b', 'aud_a', 'aud_c', 'aud_f'];

    for (const limit of [1, 2, 3, 10]) {
      const seen: string[] = [];
      let before: string | undefined;
      for (let page = 0; page < 10; page++) {
        const rowsOfPage = await store.auditPage(uow.direct, limit, before);
        assert.ok(rowsOfPage.length <= limit);
        seen.push(...rowsOfPage.map((r) => r.id));
        if (rowsOfPage.length < limit) break;
        before = rowsOfPage.at(-1)?.id;
      }
      assert.deepEqual(seen, newestFirst, `pages of ${limit}`);
    }
    assert.deepEqual((await store.auditPage(uow.direct, 10, 'aud_b')).map((r) => r.id), ['aud_a', 'aud_c', 'aud_f']);
    assert.deepEqual(await store.auditPage(uow.direct, 10, 'aud_f'), [], 'nothing after the oldest');
    assert.deepEqual(await store.auditPage(uow.direct, 10, 'aud_unknown'), [], 'an unknown cursor ends the listing');
    assert.deepEqual(plain((await store.auditPage(uow.direct, 1, undefined))[0]), rows[6], 'every column kept');
  });
});

/** SQLite hands rows out without a prototype; compared with literals, only the values should count. */
function plain<T>(value: T): T {
  return structuredClone(value);
}

/** Whether a load of this database waits on the routes' lock (PostgreSQL). */
async function loadIsWaitingOnRoutes(t: TestDatabase): Promise<boolean> {
  const { rows } = await sql<{ waiting: number }>`
    SELECT count(*)::int AS waiting FROM pg_stat_activity
    WHERE wait_event_type = 'Lock' AND query LIKE '%from "upstream_routes"%' AND query NOT LIKE '%pg_stat_activity%'
      AND pid IN (SELECT pid FROM pg_locks WHERE relation = to_regclass('upstream_routes') AND NOT granted)`.execute(t.handle.db);
  return (rows[0]?.waiting ?? 0) > 0;
}

function auditRow(id: string, at: number): UpstreamAuditRow {
  return { id, at, actor: 'admin-token', subject_kind: 'provider', subject: 'a', action: 'put', before_json: null, after_json: `{"id":"${id}"}` };
}

/** A barrier: each caller waits until `count` have arrived. */
function gate(count: number): () => Promise<void> {
  let arrived = 0;
  let open: () => void = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  return () => {
    arrived += 1;
    if (arrived >= count) open();
    return opened;
  };
}
