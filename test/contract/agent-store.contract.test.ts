/**
 * The agent store port (src/ports/agent-store.port.ts) on both engines: the one writer of a step row
 * (startStep at a position once, finishStep by compare-and-set), the run's compare-and-set moves and
 * wake counter, the operations that move the run's money (committed within the limit, closed once),
 * and the event append (gap-free sequence, nothing for a deleted conversation).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { insertConversation } from '../../src/adapters/db/repositories/agent/conversations.repository.ts';
import { insertRun } from '../../src/adapters/db/repositories/agent/runs.repository.ts';
import { KyselyAgentStore } from '../../src/adapters/db/stores/agent-store.ts';
import { kyselyUnitOfWork } from '../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { newId } from '../../src/domain/ids.ts';
import type { OperationRow, RunRow } from '../../src/ports/agent-store.port.ts';
import type { UnitOfWork } from '../../src/ports/unit-of-work.port.ts';
import { describeEachDatabase, type TestDatabase } from '../support/databases.ts';

const NOW = 1_800_000_000_000;
const store = new KyselyAgentStore();

async function newRun(t: TestDatabase, status: RunRow['status'] = 'running', limitMicro = 1_000_000): Promise<RunRow> {
  const db = t.handle.db;
  const conversationId = newId('conv', NOW);
  await insertConversation(db, {
    id: conversationId,
    user_id: 'usr_contract',
    storefront: 'default',
    title: null,
    title_source: null,
    mode: 'auto',
    selected_model_id: null,
    project_id: null,
    profile_id: null,
    default_workflow_id: null,
    settings_json: '{}',
    version: 1,
    event_seq: 0,
    run_count: 0,
    context_json: '[]',
    context_version: 0,
    active_run_id: null,
    last_activity_at: NOW,
    created_at: NOW,
    deleted_at: null,
  });
  const id = newId('run', NOW);
  await insertRun(db, {
    id,
    conversation_id: conversationId,
    user_id: 'usr_contract',
    storefront: 'default',
    api_key_id: null,
    message_id: newId('msg', NOW),
    run_no: 1,
    status,
    wait_reason: null,
    version: 1,
    mode: 'auto',
    orchestrator_model_id: 'model-a',
    selected_model_id: null,
    settings_json: '{}',
    limit_micro: limitMicro,
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
    created_at: NOW,
    started_at: NOW,
    finished_at: null,
    updated_at: NOW,
  });
  const run = await store.findRun(db, id);
  assert.ok(run);
  return run;
}

function operation(run: RunRow, estimateMicro: number): OperationRow {
  return {
    id: newId('op', NOW),
    run_id: run.id,
    user_id: run.user_id,
    step_id: newId('stp', NOW),
    kind: 'chat',
    ref_id: newId('chat', NOW),
    model: 'model-a',
    estimate_micro: estimateMicro,
    cost_micro: 0,
    state: 'committed',
    created_at: NOW,
    settled_at: null,
  };
}

function unitOf(t: TestDatabase): UnitOfWork {
  return kyselyUnitOfWork(t.handle.db);
}

describeEachDatabase('agent store: steps', (t) => {
  test('a step is started once at its position: a second start there fails and leaves the first', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    await store.startStep(uow.direct, { id: 'stp_first', runId: run.id, position: 1, kind: 'model', name: 'model-a', status: 'running', input: { a: 1 }, startedAt: NOW });
    await assert.rejects(uow.transaction((tx) => store.startStep(tx, { id: 'stp_second', runId: run.id, position: 1, kind: 'model', name: 'model-b', status: 'running', input: {}, startedAt: NOW })));
    const steps = await store.listSteps(uow.direct, run.id);
    assert.deepEqual(steps.map((s) => [s.id, s.position, s.status, s.input_json, s.output_json, s.finished_at]), [['stp_first', 1, 'running', '{"a":1}', null, null]]);
  });

  test('an ended step is written ended at its start, with its output', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    await store.startStep(uow.direct, { id: 'stp_steer', runId: run.id, position: 1, kind: 'steer', name: 'steer', status: 'completed', input: { text: 'x' }, output: { ok: true }, startedAt: NOW });
    const [step] = await store.findSteps(uow.direct, ['stp_steer']);
    assert.equal(step?.finished_at, NOW);
    assert.equal(step?.output_json, '{"ok":true}');
    assert.equal(Number(step?.cost_micro), 0);
  });

  test('finishStep is a compare-and-set: from a wrong status nothing changes, and a step ends once', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    await store.startStep(uow.direct, { id: 'stp_wait', runId: run.id, position: 1, kind: 'tool', name: 'ask_clarification', status: 'waiting', toolCallId: 'call_1', input: {}, startedAt: NOW });
    assert.equal(await store.finishStep(uow.direct, 'stp_wait', ['running'], { status: 'completed', output: { answer: 'no' }, costMicro: 5, finishedAt: NOW + 1 }), false);
    let [step] = await store.findSteps(uow.direct, ['stp_wait']);
    assert.deepEqual([step?.status, step?.output_json, Number(step?.cost_micro), step?.finished_at], ['waiting', null, 0, null]);

    assert.equal(await store.finishStep(uow.direct, 'stp_wait', ['waiting'], { status: 'completed', output: { answer: 'yes' }, costMicro: 7, finishedAt: NOW + 2 }), true);
    assert.equal(await store.finishStep(uow.direct, 'stp_wait', ['waiting', 'running'], { status: 'failed', output: { error: 'late' }, finishedAt: NOW + 3 }), false);
    [step] = await store.findSteps(uow.direct, ['stp_wait']);
    assert.deepEqual([step?.status, step?.output_json, Number(step?.cost_micro), step?.finished_at], ['completed', '{"answer":"yes"}', 7, NOW + 2]);
  });

  test('cancelWaitingSteps ends only the waiting steps of the run', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    await store.startStep(uow.direct, { id: 'stp_w', runId: run.id, position: 1, kind: 'tool', name: 'ask_clarification', status: 'waiting', input: {}, startedAt: NOW });
    await store.startStep(uow.direct, { id: 'stp_r', runId: run.id, position: 2, kind: 'model', name: 'model-a', status: 'running', input: {}, startedAt: NOW });
    await store.cancelWaitingSteps(uow.direct, run.id, NOW + 5);
    const steps = await store.listSteps(uow.direct, run.id);
    assert.deepEqual(steps.map((s) => [s.id, s.status]), [['stp_w', 'cancelled'], ['stp_r', 'running']]);
  });
});

describeEachDatabase('agent store: runs', (t) => {
  test('a run moves by compare-and-set: a second move from the old status, a stale version or a move the table forbids changes nothing', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    const version = await store.moveRun(uow.direct, run.id, 'waiting_for_media', { wait_reason: 'media', updated_at: NOW + 1 }, { from: ['running'], version: run.version });
    assert.equal(version, run.version + 1);
    assert.equal(await store.moveRun(uow.direct, run.id, 'waiting_for_media', { wait_reason: 'again' }, { from: ['running'] }), undefined);
    assert.equal(await store.moveRun(uow.direct, run.id, 'running', {}, { version: run.version }), undefined);
    // The table allows completed only from running: a caller's `from` cannot widen it.
    assert.equal(await store.moveRun(uow.direct, run.id, 'completed', { finished_at: NOW + 2 }, { from: ['waiting_for_media'] }), undefined);
    assert.equal(await store.moveRun(uow.direct, run.id, 'running', { wait_reason: null }, { from: ['waiting_for_media'], version }), run.version + 2);
    assert.equal(await store.moveRun(uow.direct, run.id, 'completed', { finished_at: NOW + 3 }, {}), run.version + 3);
    assert.equal(await store.moveRun(uow.direct, run.id, 'running', {}, {}), undefined);
    const after = await store.findRun(uow.direct, run.id);
    assert.deepEqual([after?.status, after?.wait_reason, after?.finished_at, after?.version], ['completed', null, NOW + 3, run.version + 3]);
  });

  test('updateRun is a compare-and-set on the version', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    const version = await store.updateRun(uow.direct, run.id, run.version, { steer_json: '[]', model_attempt: 1 });
    assert.equal(version, run.version + 1);
    assert.equal(await store.updateRun(uow.direct, run.id, run.version, { model_attempt: 5 }), undefined);
    assert.equal((await store.findRun(uow.direct, run.id))?.model_attempt, 1);
  });

  test('a wake since the counter was read is seen; none since is not', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    assert.equal(await store.noWakeSince(uow.direct, run.id, run.wake_seq), true);
    await store.wakeRun(uow.direct, run.id);
    assert.equal(await store.noWakeSince(uow.direct, run.id, run.wake_seq), false);
    assert.equal(await store.noWakeSince(uow.direct, run.id, run.wake_seq + 1), true);
  });

  test('only the free active-run slot is claimed, and only its holder frees it', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    assert.equal(await store.claimActiveRun(uow.direct, run.conversation_id, run.id), true);
    assert.equal(await store.claimActiveRun(uow.direct, run.conversation_id, 'run_other'), false);
    await store.releaseActiveRun(uow.direct, run.conversation_id, 'run_other');
    assert.equal((await store.findConversation(uow.direct, run.conversation_id))?.active_run_id, run.id);
    await store.releaseActiveRun(uow.direct, run.conversation_id, run.id);
    assert.equal((await store.findConversation(uow.direct, run.conversation_id))?.active_run_id, null);
  });
});

describeEachDatabase('agent store: operations and the run money', (t) => {
  test('an operation commits only within the limit, and the run counts it once', async () => {
    const uow = unitOf(t);
    const run = await newRun(t, 'running', 100_000);
    const first = operation(run, 60_000);
    const budget = await uow.transaction((tx) => store.commitOperation(tx, first));
    assert.deepEqual(budget && [budget.limitMicro, budget.settledMicro, budget.committedMicro], [100_000, 0, 60_000]);
    const over = operation(run, 40_001);
    assert.equal(await uow.transaction((tx) => store.commitOperation(tx, over)), undefined);
    assert.deepEqual((await store.listRunOperations(uow.direct, run.id)).map((o) => o.id), [first.id]);
    const after = await store.findRun(uow.direct, run.id);
    assert.deepEqual([Number(after?.committed_micro), Number(after?.settled_micro)], [60_000, 0]);
  });

  test('a run that no longer runs commits nothing', async () => {
    const uow = unitOf(t);
    const run = await newRun(t, 'stopping');
    assert.equal(await store.commitOperation(uow.direct, operation(run, 1)), undefined);
    assert.deepEqual(await store.listRunOperations(uow.direct, run.id), []);
    assert.equal(Number((await store.findRun(uow.direct, run.id))?.committed_micro), 0);
  });

  test('an operation closes once: a second settle or release never counts its money again', async () => {
    const uow = unitOf(t);
    const run = await newRun(t, 'running', 100_000);
    const op = operation(run, 50_000);
    await store.commitOperation(uow.direct, op);
    const settled = await uow.transaction((tx) => store.closeOperation(tx, op, 'settled', 30_000, NOW + 1));
    assert.deepEqual(settled && [settled.settledMicro, settled.committedMicro], [30_000, 0]);
    assert.equal(await uow.transaction((tx) => store.closeOperation(tx, op, 'settled', 30_000, NOW + 2)), undefined);
    assert.equal(await store.closeOperation(uow.direct, op, 'released', 0, NOW + 3), undefined);
    const after = await store.findRun(uow.direct, run.id);
    assert.deepEqual([Number(after?.settled_micro), Number(after?.committed_micro)], [30_000, 0]);
    const [row] = await store.listRunOperations(uow.direct, run.id);
    assert.deepEqual([row?.state, Number(row?.cost_micro), row?.settled_at], ['settled', 30_000, NOW + 1]);
    assert.equal((await store.findOperationByRef(uow.direct, 'chat', op.ref_id))?.id, op.id);
  });

  test('a released operation gives its commitment back and settles nothing', async () => {
    const uow = unitOf(t);
    const run = await newRun(t, 'running', 100_000);
    const op = operation(run, 70_000);
    await store.commitOperation(uow.direct, op);
    const released = await store.closeOperation(uow.direct, op, 'released', 0, NOW + 1);
    assert.deepEqual(released && [released.settledMicro, released.committedMicro], [0, 0]);
    // The limit is whole again: the same estimate fits once more.
    assert.ok(await store.commitOperation(uow.direct, operation(run, 100_000)));
  });

  test('a transaction that throws after a commit leaves neither the operation nor the money', async () => {
    const uow = unitOf(t);
    const run = await newRun(t, 'running', 100_000);
    await assert.rejects(
      uow.transaction(async (tx) => {
        await store.commitOperation(tx, operation(run, 10_000));
        throw new Error('rolled back');
      }),
    );
    assert.deepEqual(await store.listRunOperations(uow.direct, run.id), []);
    assert.equal(Number((await store.findRun(uow.direct, run.id))?.committed_micro), 0);
  });
});

describeEachDatabase('agent store: events and artifacts', (t) => {
  test('events take the conversation sequence in order; a deleted conversation gets none', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    const event = (id: string) => ({ conversation_id: run.conversation_id, id, run_id: run.id, type: 'run.moved', data_json: '{}', created_at: NOW });
    const first = await uow.transaction((tx) => store.appendEvent(tx, event('evt_1')));
    const second = await store.appendEvent(uow.direct, event('evt_2'));
    assert.deepEqual([first?.sequence, second?.sequence, second?.userId], [1, 2, 'usr_contract']);
    assert.deepEqual((await store.listEventsAfter(uow.direct, run.conversation_id, 0, 10)).map((e) => [e.id, Number(e.sequence)]), [['evt_1', 1], ['evt_2', 2]]);
    assert.equal(await store.lastEventSequence(uow.direct, run.conversation_id), 2);
    await t.handle.db.updateTable('agent_conversations').set({ deleted_at: NOW }).where('id', '=', run.conversation_id).execute();
    assert.equal(await store.appendEvent(uow.direct, event('evt_3')), undefined);
    assert.equal((await store.listEventsAfter(uow.direct, run.conversation_id, 0, 10)).length, 2);
  });

  test('an artifact of one generation output is recorded once', async () => {
    const uow = unitOf(t);
    const run = await newRun(t);
    const artifact = {
      id: 'art_1',
      user_id: run.user_id,
      storefront: run.storefront,
      conversation_id: run.conversation_id,
      run_id: run.id,
      step_id: 'stp_x',
      generation_id: 'task_1',
      output_index: 0,
      file_type: 'image',
      blob_key: 'k/1',
      content_type: 'image/png',
      created_at: NOW,
      expires_at: null,
    };
    assert.equal(await store.addArtifactOnce(uow.direct, artifact), true);
    assert.equal(await store.addArtifactOnce(uow.direct, { ...artifact, id: 'art_2' }), false);
    assert.deepEqual((await store.listRunArtifacts(uow.direct, run.id)).map((a) => a.id), ['art_1']);
  });
});
