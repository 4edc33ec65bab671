/**
 * A worker killed with SIGKILL during a run's structured-output finalization (issue 11): before the
 * extraction call (its hold committed, nothing sent) and after the result was extracted but before the
 * run was finalized. Another process takes the run over; the media is not made again, the extraction
 * call is made once (twice only when the first was never sent), nothing is charged twice, and
 * `ledger verify` is clean.
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
  { name: 'before the extraction call', faultPoint: 'agent.before_extract_call' },
  { name: 'after extraction, before the run was finalized', faultPoint: 'agent.before_finalize' },
];

const SCHEMA = { type: 'object', properties: { colour: { type: 'string' } }, required: ['colour'], additionalProperties: false };

for (const mode of ['embedded', 'scaleout'] as const) {
  describe(`structured output survives a worker killed with SIGKILL [${mode}]`, async () => {
    const skip = mode === 'scaleout' ? ((await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL))) : undefined;

    test('the run completes with its structured result, one generation and no repeated charge', { skip, timeout: 240_000 }, async () => {
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
        const user = (await call(setup.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 1000 })).body as { id: string };
        const key = ((await call(setup.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
        await setup.stop();
        running.pop();

        for (const phase of PHASES) {
          const doomed = await spawnGateway(stores, 'all', { SWITCHBOARD_FAULT_POINTS: phase.faultPoint });
          running.push(doomed);
          const exited = new Promise<void>((resolve) => doomed.child.once('exit', () => resolve()));
          const c1 = clientFor({ url: doomed.url } as TestGateway, key, user.id);
          const conversationId = await c1.conversation({ title: phase.name });
          orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a lamp', model: 'z-image-turbo' } }] }, { text: 'A lamp.' }, { text: '{"colour": "green"}' });
          const run = await c1.send(conversationId, 'a lamp', { outputSchema: SCHEMA, structuredOutputMode: 'extract' });
          await exited;
          running.pop();

          const rescuer = await spawnGateway(stores);
          running.push(rescuer);
          const c2 = clientFor({ url: rescuer.url } as TestGateway, key, user.id);
          const done = await c2.waitFor(run.runId, ['completed', 'failed', 'cancelled'], 60_000);
          assert.equal(done.status, 'completed', `${phase.name}: ${JSON.stringify(done.error)}`);
          const result = (await c2.call('GET', `/api/v1/agent/runs/${run.runId}/result`)).body.data as { structuredResult: unknown; extraction: { attempts: number } };
          assert.deepEqual(result.structuredResult, { colour: 'green' }, phase.name);
          assert.equal(done.costs.operations.filter((o) => o.kind === 'generation').length, 1, `${phase.name}: one generation`);
          // Two orchestrator turns and one extraction call reached the model, whatever the crash.
          assert.equal(orchestrator.callsFor(conversationId).length, 3, `${phase.name}: model calls`);
          const chats = done.costs.operations.filter((o) => o.kind === 'chat');
          assert.equal(chats.filter((o) => o.state === 'settled').length, 3, `${phase.name}: charged calls`);
          assert.ok(chats.every((o) => o.state === 'settled' || o.state === 'released'), `${phase.name}: nothing left open`);
          await rescuer.stop();
          running.pop();
        }
        const ledger = spawnSync(process.execPath, ['src/main.ts', 'ledger', 'verify'], { env: stores.env, encoding: 'utf8' });
        assert.equal(ledger.status, 0, ledger.stdout + ledger.stderr);
      } finally {
        for (const p of running) await p.kill();
        await stores.dispose();
      }
    });
  });
}
