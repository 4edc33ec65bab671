/**
 * The per-key spend rule has one source (src/adapters/db/ledger/key-spend-rule.ts): the SQLite thread
 * and the Kysely book run its text, and PostgreSQL's functions are that text rendered. Migrations are
 * history, so the newest PostgreSQL migration that defines the functions must hold exactly the
 * rendering: a change to the rule without a new migration fails here.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { KEY_SPEND_RULE, numbered, pieces, postgresKeySpendFunctions } from '../../../src/adapters/db/ledger/key-spend-rule.ts';
import { listMigrations } from '../../../src/adapters/db/migrate.ts';

test('the newest PostgreSQL migration defining api_key_spend_move holds the rule as rendered', async () => {
  const defining = (await listMigrations('postgres')).filter((m) => m.sql.includes('FUNCTION api_key_spend_move'));
  const newest = defining.at(-1);
  assert.ok(newest, 'a migration defines api_key_spend_move');
  assert.ok(newest.version >= 35, `migration ${newest.version} predates the shared rule`);
  assert.ok(newest.sql.includes(postgresKeySpendFunctions()), `migration ${newest.version}_${newest.name} differs from scripts/print-key-spend-functions.ts: add a migration with its output`);
  assert.ok(newest.sql.includes('FUNCTION api_key_cap_room'), 'the cap room is defined beside it');
});

test('the renderings bind every parameter: numbered for the SQLite thread, cut for Kysely', () => {
  const order = ['key', 'month', 'spent', 'held', 'guarded'] as const;
  const move = numbered(KEY_SPEND_RULE.moveCapRow, order);
  assert.doesNotMatch(move, /:[a-z]/, 'no named parameter left');
  assert.match(move, /\?5/, 'the guard is bound');
  assert.throws(() => numbered(KEY_SPEND_RULE.capRoom, order), /:amount has no place/);
  const cut = pieces(KEY_SPEND_RULE.ensureRows);
  assert.deepEqual(cut.parameters, ['key', 'key', 'month']);
  assert.equal(cut.sql.length, cut.parameters.length + 1);
  assert.equal(cut.sql.join('?'), numbered(KEY_SPEND_RULE.ensureRows, order).replace(/\?\d/g, '?'));
});
