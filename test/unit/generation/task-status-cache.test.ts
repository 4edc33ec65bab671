import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { TaskStatusRow } from '../../../src/adapters/db/repositories/tasks.repository.ts';
import type { TaskStatusData } from '../../../src/services/generation/task-presenter.ts';
import { TaskStatusCache } from '../../../src/services/generation/task-status-cache.ts';

const row = (status: TaskStatusRow['status'], expiresAt: number | null = null): TaskStatusRow => ({
  id: 'task_1',
  status,
  files_json: '[]',
  output_json: null,
  created_at: 0,
  error_message: null,
  expires_at: expiresAt,
});
const data = (status: TaskStatusData['status']): TaskStatusData => ({ taskId: 'task_1', status, files: [], output: null, createdTime: '1970-01-01T00:00:00.000Z', errorMessage: null });

test('running tasks are never cached; ended ones are, for their owner only', () => {
  const cache = new TaskStatusCache();
  cache.remember('usr_a', row('processing'), data('processing'));
  assert.equal(cache.get('usr_a', 'task_1', 0), undefined);
  cache.remember('usr_a', row('failed'), data('failed'));
  assert.equal(cache.get('usr_a', 'task_1', 0)?.status, 'failed');
  assert.equal(cache.get('usr_b', 'task_1', 0), undefined, 'another user never sees it');
});

test('a finished task is served from the cache only until its files expire', () => {
  const cache = new TaskStatusCache();
  cache.remember('usr_a', row('finished', 1000), data('finished'));
  assert.equal(cache.get('usr_a', 'task_1', 999)?.status, 'finished');
  assert.equal(cache.get('usr_a', 'task_1', 1000), undefined);
  cache.remember('usr_a', row('finished', 5000), data('finished'));
  cache.forget('task_1');
  assert.equal(cache.get('usr_a', 'task_1', 0), undefined);
});
