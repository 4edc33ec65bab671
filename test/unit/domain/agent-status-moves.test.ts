import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { markAttachmentExpired } from '../../../src/adapters/db/repositories/agent/attachments.repository.ts';
import { resolvePendingAction } from '../../../src/adapters/db/repositories/agent/pending-actions.repository.ts';
import { transitionRun } from '../../../src/adapters/db/repositories/agent/runs.repository.ts';
import { finishStep } from '../../../src/adapters/db/repositories/agent/steps.repository.ts';
import type { Executor } from '../../../src/adapters/db/schema.ts';
import { ATTACHMENT_MOVES, ATTACHMENT_STATUSES, attachmentMovableFrom } from '../../../src/domain/agent/attachment-status.ts';
import { OPERATION_MOVES, OPERATION_STATES, operationMovableFrom } from '../../../src/domain/agent/operation-state.ts';
import { PENDING_ACTION_MOVES, PENDING_ACTION_STATUSES, pendingActionMovableFrom } from '../../../src/domain/agent/pending-action-status.ts';
import { allowedFrom, RUN_STATUSES, runMovableFrom } from '../../../src/domain/agent/run-status.ts';
import { STEP_MOVES, STEP_STATUSES, stepMovableFrom } from '../../../src/domain/agent/step-status.ts';

/** A database that fails the test if a query reaches it: a refused move must not write anything. */
const untouchable = new Proxy({} as Executor, {
  get(_target, property) {
    throw new Error(`the refused move reached the database (${String(property)})`);
  },
});

describe('agent status tables', () => {
  it('name only known statuses, and no status moves into itself', () => {
    const tables: Array<[readonly string[], Record<string, readonly string[]>]> = [
      [STEP_STATUSES, STEP_MOVES],
      [OPERATION_STATES, OPERATION_MOVES],
      [PENDING_ACTION_STATUSES, PENDING_ACTION_MOVES],
      [ATTACHMENT_STATUSES, ATTACHMENT_MOVES],
      [RUN_STATUSES, Object.fromEntries(RUN_STATUSES.map((s) => [s, allowedFrom(s)]))],
    ];
    for (const [statuses, moves] of tables) {
      assert.deepEqual(Object.keys(moves).sort(), [...statuses].sort());
      for (const [to, from] of Object.entries(moves)) {
        for (const status of from) assert.ok(statuses.includes(status), `${status} → ${to}`);
        assert.ok(!from.includes(to), `${to} → ${to}`);
      }
    }
  });

  it('let a caller’s `from` narrow the table, never widen it', () => {
    assert.deepEqual(runMovableFrom('running', ['queued']), ['queued']);
    assert.deepEqual(runMovableFrom('completed', ['queued', 'running']), ['running']);
    assert.deepEqual(runMovableFrom('completed', ['queued']), []);
    assert.deepEqual(runMovableFrom('cancelled'), allowedFrom('cancelled'));
    assert.deepEqual(stepMovableFrom('failed', ['waiting']), []);
    assert.deepEqual(stepMovableFrom('completed', ['waiting']), ['waiting']);
    assert.deepEqual(stepMovableFrom('running', ['waiting']), []);
    assert.deepEqual(operationMovableFrom('settled', ['released']), []);
    assert.deepEqual(operationMovableFrom('released'), ['committed']);
    assert.deepEqual(pendingActionMovableFrom('answered', ['declined']), []);
    assert.deepEqual(pendingActionMovableFrom('expired'), []);
    assert.deepEqual(attachmentMovableFrom('completed', ['expired']), []);
    assert.deepEqual(attachmentMovableFrom('expired', ['completed']), ['completed']);
  });

  it('refuse a move from outside the table before it reaches the database', async () => {
    // queued → completed is not a move of the table, whatever the caller says it expects.
    assert.equal(await transitionRun(untouchable, 'run_1', 'completed', {}, { from: ['queued'] }), undefined);
    assert.equal(await transitionRun(untouchable, 'run_1', 'queued', {}, { from: ['running'] }), undefined);
    assert.equal(await finishStep(untouchable, 'stp_1', ['waiting'], { status: 'failed', finished_at: 1 }), false);
    assert.equal(await finishStep(untouchable, 'stp_1', ['completed'], { status: 'cancelled', finished_at: 1 }), false);
    assert.equal(await resolvePendingAction(untouchable, 'act_1', 1, 'expired', null, 1), false);
    assert.equal(await markAttachmentExpired(untouchable, 'att_1', 'expired'), false);
  });
});
