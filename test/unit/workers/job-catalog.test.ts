import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pino } from 'pino';
import type { ClaimedJob, JobOutcome } from '../../../src/ports/work-queue.port.ts';
import { ENTITY_POISON, JOB_CATALOG, MAINTENANCE_POISON, newJob, OUTSIDE_POISON, recurringJobs } from '../../../src/domain/jobs/job-catalog.ts';
import { bindJobCatalog, type JobHandlers } from '../../../src/workers/job-binding.ts';

const quiet = pino({ level: 'silent' });
const done = async (): Promise<JobOutcome> => ({ kind: 'done' });
const entityHandlers = { handler: done, giveUp: done };
const handlers: JobHandlers = {
  task: entityHandlers,
  agent_run: entityHandlers,
  webhook: entityHandlers,
  storage_copy: entityHandlers,
  sweep: done,
  chat_settle: done,
  agent_capability_probe: done,
  agent_event_prune: done,
  agent_attachment_cleanup: done,
  agent_idempotency_prune: done,
  storage_billing: done,
  budget_alerts: done,
};

describe('the job catalog', () => {
  it('places each kind’s job by its payload: its reference, its queue and (a delivery) its lane', () => {
    assert.deepEqual(newJob('task', { taskId: 'task_1', provider: 'kie-main' }, 5), { kind: 'task', refId: 'task_1', queue: 'kie-main', runAt: 5 });
    assert.deepEqual(newJob('agent_run', { runId: 'run_1' }, 6), { kind: 'agent_run', refId: 'run_1', queue: 'agent', runAt: 6 });
    assert.deepEqual(newJob('webhook', { deliveryId: 'whd_1', userId: 'usr_1', url: 'https://Hooks.Example.com:8443/a/b?c' }, 7), {
      kind: 'webhook',
      refId: 'whd_1',
      queue: 'webhooks',
      runAt: 7,
      lane: { tenant: 'usr_1', target: 'usr_1 https://hooks.example.com:8443' },
    });
    assert.deepEqual(newJob('storage_copy', { operationId: 'sop_1' }, 8), { kind: 'storage_copy', refId: 'sop_1', queue: 'maintenance', runAt: 8 });
  });

  it('makes the one row of every recurring kind, with the references and first runs the rows already stored carry', () => {
    // The (kind, reference) pairs are the unique keys of rows written by earlier versions: they must not change.
    assert.deepEqual(
      recurringJobs(1_000).map((j) => [j.kind, j.refId, j.queue, j.runAt]),
      [
        ['sweep', 'media-retention', 'maintenance', 1_000],
        ['chat_settle', 'chat-abandoned', 'maintenance', 1_000],
        ['agent_capability_probe', 'routes', 'maintenance', 1_000],
        ['agent_event_prune', 'events', 'maintenance', 61_000],
        ['agent_attachment_cleanup', 'attachments', 'maintenance', 61_000],
        ['agent_idempotency_prune', 'idempotency', 'maintenance', 3_601_000],
        ['storage_billing', 'subscriptions', 'maintenance', 61_000],
        ['budget_alerts', 'budget-alerts', 'maintenance', 1_000],
      ],
    );
  });

  it('binds every kind to its handler with the catalog’s poison rule and time-out', () => {
    const bound = bindJobCatalog(handlers, quiet);
    assert.deepEqual(Object.keys(bound).sort(), Object.keys(JOB_CATALOG).sort());
    const rules = Object.fromEntries(Object.entries(bound).map(([kind, k]) => [kind, [k.poison, k.timeoutMs]]));
    assert.deepEqual(rules.task, [OUTSIDE_POISON, 15 * 60_000]);
    assert.deepEqual(rules.agent_run, [ENTITY_POISON, 30 * 60_000]);
    assert.deepEqual(rules.webhook, [OUTSIDE_POISON, 2 * 60_000]);
    assert.deepEqual(rules.storage_copy, [OUTSIDE_POISON, 30 * 60_000]);
    for (const kind of ['sweep', 'chat_settle', 'agent_capability_probe', 'agent_event_prune', 'agent_attachment_cleanup', 'agent_idempotency_prune', 'storage_billing', 'budget_alerts']) {
      assert.deepEqual(rules[kind], [MAINTENANCE_POISON, 10 * 60_000], kind);
    }
    assert.equal(bound.task?.handler, done);
    assert.equal(bound.sweep?.handler, done);
  });

  it('gives a recurring kind that keeps failing the maintenance give-up: it comes back at a later round', async () => {
    const bound = bindJobCatalog(handlers, quiet);
    const job: ClaimedJob = { id: 'job_1', kind: 'sweep', refId: 'media-retention', queue: 'maintenance', runAt: 0, attempts: 3, leaseUntil: 0 };
    const before = Date.now();
    const outcome = await bound.sweep?.giveUp(job, { failures: 3, repeats: 3, error: new Error('x'), fingerprint: 'x' });
    assert.equal(outcome?.kind, 'again');
    assert.ok(outcome?.kind === 'again' && outcome.runAt >= before + 5 * 60_000);
  });

  it('refuses, at compile time, a kind without a handler and a payload of the wrong shape', () => {
    // @ts-expect-error: every kind of the catalog needs its handler
    const missing: JobHandlers = { ...handlers, storage_billing: undefined };
    // @ts-expect-error: a task's payload names its provider
    const wrong = () => newJob('task', { taskId: 'task_1' }, 0);
    // @ts-expect-error: a recurring kind is not enqueued by hand
    const recurring = () => newJob('sweep', {}, 0);
    assert.equal(typeof wrong, 'function');
    assert.equal(typeof recurring, 'function');
    assert.equal(missing.storage_billing, undefined);
  });
});
