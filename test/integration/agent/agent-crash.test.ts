/**
 * A worker killed with SIGKILL at each step of a run: before its model call, before a dispatch, right
 * after a dispatch, while the provider runs an accepted job, and before a finished generation is
 * settled. Another process takes the run over when the lease runs out; the run completes, no model
 * call that was made, no generation and no charge is repeated, and `ledger verify` is clean.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, describe, test } from 'node:test';
import { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';
import { clientFor } from '../../support/agent.ts';
import { ADMIN_TOKEN, type TestGateway } from '../../support/gateway.ts';
import { call, createSharedStores, type GatewayProcess, spawnGateway } from '../../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../../support/services.ts';

type Phase = { name: string; faultPoint?: string; killWhenAccepted?: boolean };

const PHASES: Phase[] = [
  { name: 'before its model call (the hold committed, nothing sent)', faultPoint: 'agent.before_model_call' },
  { name: 'before a dispatch (the model turn stored)', faultPoint: 'agent.before_dispatch' },
  { name: 'right after a dispatch committed', faultPoint: 'agent.after_dispatch' },
  { name: 'after the provider accepted the job', killWhenAccepted: true },
  { name: 'during the settlement of the finished generation', faultPoint: 'agent.before_settle' },
];

for (const mode of ['embedded', 'scaleout'] as const) {
  describe(`an agent run survives a worker killed with SIGKILL [${mode}]`, async () => {
    const skip = mode === 'scaleout' ? ((await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL))) : undefined;

    test('at every step, the run completes with one generation, one charge per call, and balanced books', { skip, timeout: 240_000 }, async () => {
      const orchestrator = await ScriptedOrchestrator.start('openai');
      after(() => orchestrator.close());
      const stores = await createSharedStores(mode, {
        providers: { orch: orchestrator.provider(), slowjob: { type: 'local', options: { latencyMs: 1500 } } },
        routes: { 'gpt-5.4-mini': ['orch'], 'z-image-turbo': ['slowjob'] },
        worker: { leaseMs: 1000 },
      });
      const running: GatewayProcess[] = [];
      try {
        const setup = await spawnGateway(stores);
        running.push(setup);
        const user = (await call(setup.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 1000 })).body as { id: string };
        const key = ((await call(setup.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
        await setup.stop();
        running.pop();

        for (const phase of PHASES) {
          const doomed = await spawnGateway(stores, 'all', phase.faultPoint ? { SWITCHBOARD_FAULT_POINTS: phase.faultPoint } : {});
          running.push(doomed);
          const exited = new Promise<void>((resolve) => doomed.child.once('exit', () => resolve()));
          const c1 = clientFor({ url: doomed.url } as TestGateway, key, user.id);
          const conversationId = await c1.conversation({ title: phase.name });
          orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'survive', model: 'z-image-turbo' } }] }, { text: 'survived' });
          const run = await c1.send(conversationId, 'an image that survives a crash');
          if (phase.killWhenAccepted) {
            const deadline = Date.now() + 20_000;
            for (;;) {
              const view = await c1.run(run.runId);
              const generationId = view.costs.operations.find((o) => o.kind === 'generation')?.generationId;
              if (generationId) {
                const detail = (await c1.call('GET', `/api/v1/generation/${generationId}`)).body.data as { attempts: Array<{ state: string }> };
                if (detail.attempts[0]?.state === 'accepted') break;
              }
              assert.ok(Date.now() < deadline, 'the generation was accepted in time');
              await new Promise((r) => setTimeout(r, 20));
            }
            await doomed.kill();
          }
          await exited;
          running.pop();

          const rescuer = await spawnGateway(stores);
          running.push(rescuer);
          const c2 = clientFor({ url: rescuer.url } as TestGateway, key, user.id);
          const done = await c2.waitFor(run.runId, ['completed', 'failed', 'cancelled'], 60_000);
          assert.equal(done.status, 'completed', `${phase.name}: ${JSON.stringify(done.error)}`);
          const result = await c2.result(run.runId);
          assert.equal(result.artifacts.length, 1, phase.name);
          // One generation, never dispatched twice; the model answered each turn once.
          const generations = done.costs.operations.filter((o) => o.kind === 'generation');
          assert.deepEqual(generations.map((o) => o.state), ['settled'], phase.name);
          assert.equal(orchestrator.callsFor(conversationId).length, 2, `${phase.name}: model calls`);
          const settledChats = done.costs.operations.filter((o) => o.kind === 'chat' && o.state === 'settled');
          assert.equal(settledChats.length, 2, `${phase.name}: charged calls`);
          await rescuer.stop();
          running.pop();
        }

        // One debit per generation, no refund, and every book agrees.
        const ledger = spawnSync(process.execPath, ['src/main.ts', 'ledger', 'verify'], { env: stores.env, encoding: 'utf8' });
        assert.equal(ledger.status, 0, ledger.stdout + ledger.stderr);
        const check = await spawnGateway(stores);
        running.push(check);
        const entries = ((await call(check.url, ADMIN_TOKEN, 'GET', `/admin/v1/users/${user.id}/ledger?limit=100`)).body as { data: Array<{ kind: string }> }).data;
        assert.equal(entries.filter((e) => e.kind === 'generation_debit').length, PHASES.length);
        assert.equal(entries.filter((e) => e.kind === 'generation_refund').length, 0);
        assert.equal(entries.filter((e) => e.kind === 'chat_charge').length, 2 * PHASES.length);
      } finally {
        for (const p of running) await p.kill();
        await stores.dispose();
      }
    });
  });
}
