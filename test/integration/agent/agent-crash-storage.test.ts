/**
 * A worker killed with SIGKILL in the middle of a retained copy (the object written, nothing
 * recorded): another process takes the copy job over when the lease runs out; the operation
 * completes with one file, the same Idempotency-Key replays the same operation, no second object or
 * charge, and `ledger verify` is clean.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, test } from 'node:test';
import { clientFor } from '../../support/agent.ts';
import { ADMIN_TOKEN, type TestGateway } from '../../support/gateway.ts';
import { call, createSharedStores, type GatewayProcess, spawnGateway } from '../../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../../support/services.ts';
import { waitForTask } from '../../support/tasks.ts';

for (const mode of ['embedded', 'scaleout'] as const) {
  describe(`a retained copy survives a worker killed with SIGKILL [${mode}]`, async () => {
    const skip = mode === 'scaleout' ? ((await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL))) : undefined;

    test('one operation, one file, one plan charge', { skip, timeout: 120_000 }, async () => {
      const stores = await createSharedStores(mode, { worker: { leaseMs: 1000 } });
      const running: GatewayProcess[] = [];
      try {
        const setup = await spawnGateway(stores);
        running.push(setup);
        const user = (await call(setup.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 1000 })).body as { id: string };
        const key = ((await call(setup.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
        const c1 = clientFor({ url: setup.url } as TestGateway, key, user.id);
        const created = await c1.call('POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'keep me' } });
        const taskId = created.body.data.taskId as string;
        assert.equal((await waitForTask({ api: (k, m, p, b) => call(setup.url, k ?? '', m, p, b).then((r) => ({ ...r, headers: new Headers() })) }, key, taskId)).status, 'finished');
        const q = (await c1.call('POST', '/api/v1/agent/storage/quote', { planId: 'storage-starter' })).body.data as { quoteId: string; quotaVersion: number };
        assert.equal((await c1.call('POST', '/api/v1/agent/storage/subscribe', { quoteId: q.quoteId, quotaVersion: q.quotaVersion, autoRenew: true }, { 'idempotency-key': 'plan' })).status, 200);
        await setup.stop();
        running.pop();

        const doomed = await spawnGateway(stores, 'all', { SWITCHBOARD_FAULT_POINTS: 'storage.after_copy' });
        running.push(doomed);
        const exited = new Promise<void>((resolve) => doomed.child.once('exit', () => resolve()));
        const c2 = clientFor({ url: doomed.url } as TestGateway, key, user.id);
        const accepted = await c2.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId }, { 'idempotency-key': 'keep' });
        assert.equal(accepted.status, 202, JSON.stringify(accepted.body));
        const operationId = accepted.body.data.operationId as string;
        await exited;
        running.pop();

        const rescuer = await spawnGateway(stores);
        running.push(rescuer);
        const c3 = clientFor({ url: rescuer.url } as TestGateway, key, user.id);
        const again = await c3.call('POST', '/api/v1/agent/storage/retain', { generationId: taskId }, { 'idempotency-key': 'keep' });
        assert.equal(again.body.data.operationId, operationId, 'the retry names the same operation');
        const deadline = Date.now() + 30_000;
        let op: { status: string; file: { fileId: string; url: string } | null };
        for (;;) {
          op = (await c3.call('GET', `/api/v1/agent/storage/operations/${operationId}`)).body.data as typeof op;
          if (op.status !== 'pending') break;
          assert.ok(Date.now() < deadline, 'the copy was finished by another process');
          await new Promise((r) => setTimeout(r, 50));
        }
        assert.equal(op.status, 'completed');
        const files = (await c3.call('GET', '/api/v1/agent/storage/files')).body.data.items as Array<{ fileId: string; sizeBytes: number }>;
        assert.equal(files.length, 1, 'one file');
        const account = (await c3.call('GET', '/api/v1/agent/storage/subscription')).body.data as { subscription: { usedBytes: number }; charges: unknown[] };
        assert.equal(account.subscription.usedBytes, files[0]?.sizeBytes);
        assert.equal(account.charges.length, 1, 'the plan, charged once');
        await rescuer.stop();
        running.pop();
        const ledger = spawnSync(process.execPath, ['src/main.ts', 'ledger', 'verify'], { env: stores.env, encoding: 'utf8' });
        assert.equal(ledger.status, 0, ledger.stdout + ledger.stderr);
      } finally {
        for (const p of running) await p.kill();
        await stores.dispose();
      }
    });
  });
}
