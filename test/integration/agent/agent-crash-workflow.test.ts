/**
 * A worker killed with SIGKILL in the middle of a workflow (issue 11, rule 14): right after a node's
 * dispatch committed, and while a node's accepted generation runs. Another process takes the run over;
 * every node is dispatched exactly once (one task per node), nothing is charged twice, the run
 * completes, and `ledger verify` is clean.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';
import { clientFor } from '../../support/agent.ts';
import { ADMIN_TOKEN, type TestGateway } from '../../support/gateway.ts';
import { call, createSharedStores, type GatewayProcess, spawnGateway } from '../../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../../support/services.ts';

const PHASES = [
  { name: 'right after a node was dispatched', faultPoint: 'agent.after_dispatch' },
  { name: 'before a finished node was settled', faultPoint: 'agent.before_settle' },
];

for (const mode of ['embedded', 'scaleout'] as const) {
  describe(`a workflow survives a worker killed with SIGKILL [${mode}]`, async () => {
    const skip = mode === 'scaleout' ? ((await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL))) : undefined;

    test('each node is dispatched once and the run completes with all its files', { skip, timeout: 240_000 }, async () => {
      const orchestrator = await ScriptedOrchestrator.start('openai');
      after(() => orchestrator.close());
      const stores = await createSharedStores(mode, {
        providers: { orch: orchestrator.provider() },
        routes: { 'gpt-5.4-mini': ['orch'] },
        worker: { leaseMs: 1000 },
      });
      const running: GatewayProcess[] = [];
      try {
        const setup = await spawnGateway(stores);
        running.push(setup);
        const user = (await call(setup.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 2000 })).body as { id: string };
        const key = ((await call(setup.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
        await setup.stop();
        running.pop();

        for (const phase of PHASES) {
          const doomed = await spawnGateway(stores, 'all', { SWITCHBOARD_FAULT_POINTS: phase.faultPoint });
          running.push(doomed);
          const exited = new Promise<void>((resolve) => doomed.child.once('exit', () => resolve()));
          const c1 = clientFor({ url: doomed.url } as TestGateway, key, user.id);
          const conversationId = await c1.conversation({ title: phase.name });
          const run = await c1.send(conversationId, 'cards', { workflowId: 'product-cards', workflowInput: { productName: 'Mug', description: 'a blue ceramic mug' } });
          await exited;
          running.pop();

          const rescuer = await spawnGateway(stores);
          running.push(rescuer);
          const c2 = clientFor({ url: rescuer.url } as TestGateway, key, user.id);
          const done = await c2.waitFor(run.runId, ['completed', 'failed', 'cancelled'], 90_000);
          assert.equal(done.status, 'completed', `${phase.name}: ${JSON.stringify(done.error)}`);
          const generations = done.costs.operations.filter((o) => o.kind === 'generation');
          assert.deepEqual(generations.map((o) => o.state), ['settled', 'settled', 'settled'], phase.name);
          assert.equal(new Set(generations.map((o) => o.generationId)).size, 3, `${phase.name}: one task per node`);
          const nodes = done.steps.filter((s) => s.kind === 'tool').map((s) => (s.output as { status?: string } | null)?.status);
          assert.deepEqual(nodes, ['succeeded', 'succeeded', 'succeeded'], phase.name);
          await rescuer.stop();
          running.pop();
        }
        const ledger = spawnSync(process.execPath, ['src/main.ts', 'ledger', 'verify'], { env: stores.env, encoding: 'utf8' });
        assert.equal(ledger.status, 0, ledger.stdout + ledger.stderr);
        const check = await spawnGateway(stores);
        running.push(check);
        const entries = ((await call(check.url, ADMIN_TOKEN, 'GET', `/admin/v1/users/${user.id}/ledger?limit=200`)).body as { data: Array<{ kind: string }> }).data;
        assert.equal(entries.filter((e) => e.kind === 'generation_debit').length, 3 * PHASES.length, 'one debit per node');
        assert.equal(entries.filter((e) => e.kind === 'generation_refund').length, 0);
      } finally {
        for (const p of running) await p.kill();
        await stores.dispose();
      }
    });
  });
}
