/**
 * Idempotency keys are forgotten after their retention (a week), except a decision's while its run has
 * not ended a day ago (AGENT.md "Idempotency"); on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pruneIdempotencyRecords } from '../../src/adapters/db/repositories/agent/idempotency.repository.ts';
import { describeEachDatabase } from '../support/databases.ts';

const DAY = 86_400_000;

describeEachDatabase('idempotency records are pruned', (database) => {
  test('old plain keys go; decisions stay until their run ended a day ago', async () => {
    const db = database.handle.db;
    const now = 100 * DAY;
    const run = (id: string, finishedAt: number | null) => ({
      id,
      conversation_id: 'conv_x',
      user_id: 'usr_x',
      storefront: 'default',
      api_key_id: null,
      message_id: `msg_${id}`,
      run_no: 1,
      status: finishedAt === null ? ('running' as const) : ('completed' as const),
      wait_reason: null,
      version: 1,
      mode: 'auto' as const,
      orchestrator_model_id: 'gpt-5.4-mini',
      selected_model_id: null,
      settings_json: '{}',
      limit_micro: 1,
      budget_needed_micro: null,
      outcome_json: null,
      output_schema_json: null,
      structured_mode: null,
      schema_hash: null,
      structured_json: null,
      structured_result_json: null,
      workflow_json: null,
      context_json: null,
      error_code: null,
      error_message: null,
      stop_requested_at: null,
      created_at: 0,
      started_at: 0,
      finished_at: finishedAt,
      updated_at: 0,
    });
    await db.insertInto('agent_runs').values([run('run_open', null), run('run_recent', now - DAY / 2), run('run_old', now - 3 * DAY)]).execute();
    const record = (scope: string, key: string, createdAt: number) => ({ scope, key, request_hash: 'h', response_json: '{}', status_code: 200, created_at: createdAt });
    await db
      .insertInto('idempotency_records')
      .values([
        record('storage_subscribe:usr_x', 'old', now - 8 * DAY),
        record('storage_retain:usr_x', 'fresh', now - 6 * DAY),
        record('agent_decision:usr_x:run_open', 'a', now - 30 * DAY),
        record('agent_decision:usr_x:run_recent', 'b', now - 30 * DAY),
        record('agent_decision:usr_x:run_old', 'c', now - 30 * DAY),
        record('agent_decision:usr_x:run_old', 'd', now - 2 * DAY),
      ])
      .execute();
    assert.equal(await pruneIdempotencyRecords(db, now - 7 * DAY, now, DAY, 100), 2);
    const left = (await db.selectFrom('idempotency_records').select(['scope', 'key']).orderBy('key').execute()).map((r) => r.key);
    assert.deepEqual(left, ['a', 'b', 'd', 'fresh']);
    assert.equal(await pruneIdempotencyRecords(db, now - 7 * DAY, now, DAY, 100), 0, 'running it again removes nothing more');
  });
});
