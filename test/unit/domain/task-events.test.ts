import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ATTEMPT_NOT_SENT, type AttemptEventSource, deriveTaskEvents, type TaskEventSource } from '../../../src/domain/tasks/task-events.ts';

const base: TaskEventSource = { status: 'processing', created_at: 1_000, started_at: 1_100, finished_at: null, updated_at: 1_100, error_message: null, files_json: null };
const attempt = (n: number, state: AttemptEventSource['state'], at: number, accepted = true): AttemptEventSource => ({
  attempt_no: n,
  error_message: null,
  state,
  started_at: at,
  accepted_at: accepted ? at + 10 : null,
  ended_at: state === 'accepted' || state === 'submitting' ? null : at + 50,
});

test('the list only grows at its end as a task moves, so ids are stable', () => {
  const steps: Array<[TaskEventSource, AttemptEventSource[]]> = [
    [{ ...base, status: 'not_started', started_at: null }, []],
    [base, [attempt(1, 'submitting', 1_100, false)]],
    [base, [attempt(1, 'accepted', 1_100)]],
    [base, [attempt(1, 'failed', 1_100)]],
    [base, [attempt(1, 'failed', 1_100), attempt(2, 'accepted', 1_200)]],
    [{ ...base, status: 'finished', finished_at: 1_300, files_json: '[{}]' }, [attempt(1, 'failed', 1_100), attempt(2, 'succeeded', 1_200)]],
    [{ ...base, status: 'expired', finished_at: 1_300, updated_at: 9_000, files_json: '[{}]' }, [attempt(1, 'failed', 1_100), attempt(2, 'succeeded', 1_200)]],
  ];
  let previous: string[] = [];
  for (const [task, attempts] of steps) {
    const now = deriveTaskEvents(task, attempts).map((e) => `${e.id}:${e.type}:${e.attempt ?? ''}`);
    assert.deepEqual(now.slice(0, previous.length), previous, `${previous} → ${now}`);
    previous = now;
  }
  assert.deepEqual(previous, ['1:queued:', '2:dispatched:1', '3:accepted:1', '4:failover:1', '5:dispatched:2', '6:accepted:2', '7:copying:2', '8:finished:', '9:expired:']);
});

test('a failed last attempt is no failover; an attempt recorded after the task ended is left out', () => {
  const failed = { ...base, status: 'failed' as const, finished_at: 1_200, error_message: 'every provider failed' };
  const events = deriveTaskEvents(failed, [attempt(1, 'failed', 1_100), attempt(2, 'succeeded', 1_500)]);
  assert.deepEqual(events.map((e) => e.type), ['queued', 'dispatched', 'accepted', 'failed']);
  const notSent = { ...attempt(1, 'abandoned', 1_100, false), error_message: ATTEMPT_NOT_SENT };
  assert.deepEqual(deriveTaskEvents({ ...failed, error_message: 'cancelled by the client' }, [notSent]).map((e) => e.type), ['queued', 'failed'], 'a step that lost to a cancel sent nothing');
  assert.equal(events.at(-1)?.error, 'every provider failed');
  assert.equal(events.at(-1)?.message, 'failed: every provider failed; refunded');
});
