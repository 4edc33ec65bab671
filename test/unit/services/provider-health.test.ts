import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createTestDatabase } from '../../support/databases.ts';
import { kyselyAttemptHealthStore } from '../../../src/adapters/db/stores/attempt-health-store.ts';
import { kyselyUnitOfWork } from '../../../src/adapters/db/stores/kysely-unit-of-work.ts';
import { HEALTH_WINDOW_MS, ProviderHealth } from '../../../src/services/upstreams/provider-health.ts';

test('chat calls are counted per minute over the window; older minutes fall out', async () => {
  const { db, dispose } = await createTestDatabase('sqlite');
  try {
    const health = new ProviderHealth(kyselyAttemptHealthStore, kyselyUnitOfWork(db.handle.db));
    const now = Date.UTC(2026, 10, 22, 12, 30, 10);
    // Outside the window: ignored.
    for (let i = 0; i < 50; i++) health.record('openai', false, 'old failure', now - HEALTH_WINDOW_MS - 120_000);
    for (let i = 0; i < 18; i++) health.record('openai', true, undefined, now - 5 * 60_000 + i);
    health.record('openai', false, 'HTTP 503', now - 1000);
    health.record('openai', false, 'HTTP 500', now);
    for (let i = 0; i < 3; i++) health.record('anthropic', false, 'down', now);

    const snapshots = await health.snapshots(['openai', 'anthropic', 'idle'], now);
    assert.deepEqual(
      { ...snapshots.get('openai'), lastSuccessAt: null },
      { status: 'degraded', calls: 20, errors: 2, errorRate: 0.1, lastError: 'HTTP 500', lastErrorAt: new Date(now).toISOString(), lastSuccessAt: null },
    );
    assert.equal(snapshots.get('anthropic')?.status, 'down');
    assert.equal(snapshots.get('idle')?.status, 'unknown');

    // A minute slot reused after the ring wrapped around starts from zero.
    const later = now + HEALTH_WINDOW_MS + 60_000;
    health.record('openai', true, undefined, later);
    assert.equal((await health.snapshots(['openai'], later)).get('openai')?.calls, 1);
  } finally {
    await dispose();
  }
});
