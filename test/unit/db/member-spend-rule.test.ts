/**
 * The member spend rule has one source (src/adapters/db/ledger/member-spend-rule.ts), as the per-key
 * rule: the SQLite thread and the Kysely book run its text, PostgreSQL's functions are that text
 * rendered, and the newest migration defining them holds exactly the rendering.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { MEMBER_SPEND_RULE, memberPieces, numberedMember, postgresMemberSpendFunctions } from '../../../src/adapters/db/ledger/member-spend-rule.ts';
import { listMigrations } from '../../../src/adapters/db/migrate.ts';

test('the newest PostgreSQL migration defining member_spend_move holds the rule as rendered', async () => {
  const newest = (await listMigrations('postgres')).filter((m) => m.sql.includes('FUNCTION member_spend_move')).at(-1);
  assert.ok(newest, 'a migration defines member_spend_move');
  assert.ok(newest.sql.includes(postgresMemberSpendFunctions()), `migration ${newest.version}_${newest.name} differs from the rule: add a migration with postgresMemberSpendFunctions()`);
  assert.match(newest.sql, /member_spend_move\(op->>'key', op->>'month', 0, amount, true\)/, 'the chat batch guards a hold by the member cap');
  assert.match(newest.sql, /member_cap_room\(op->>'key', op->>'month', amount\)/, "and keeps a settlement within the member's room");
});

test('the renderings bind every parameter; a refusal takes back exactly what the move added', () => {
  const order = ['key', 'month', 'spent', 'held'] as const;
  const move = numberedMember(MEMBER_SPEND_RULE.move, order);
  assert.doesNotMatch(move, /:[a-z]/);
  assert.throws(() => numberedMember(MEMBER_SPEND_RULE.capRoom, order), /:amount has no place/);
  assert.equal(MEMBER_SPEND_RULE.unmove, MEMBER_SPEND_RULE.move.replace('cast(:spent as bigint), cast(:held as bigint)', '-cast(:spent as bigint), -cast(:held as bigint)'));
  const cut = memberPieces(MEMBER_SPEND_RULE.overCap);
  assert.deepEqual(cut.parameters, ['month', 'key']);
  assert.equal(cut.sql.length, cut.parameters.length + 1);
});
