/**
 * The key door on agent runs (issue 29, item 2), in both modes: each operation a run dispatches (model
 * calls, generations) is checked against the key that started it, at dispatch time. A generation
 * outside the allow-list, past rpm, or of a key narrowed or revoked mid-run is refused in words and
 * debits nothing; the key's spend cap holds for a run's charges, 20 concurrent runs included.
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { ScriptedOrchestrator } from '../fakes/scripted-orchestrator.ts';
import { clientFor, type RunView } from '../support/agent.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';
import { assertBooks, createLimitedKey, keySpent } from '../support/limited-keys.ts';

const orchestrator = await ScriptedOrchestrator.start('openai');
after(() => orchestrator.close());

/** The operations of one fox run (model calls, one generate_image) made with the owner's own key: what such a run commits. */
async function priceFoxRun(gw: TestGateway, ownerKey: string, userId: string): Promise<RunView['costs']['operations']> {
  const probe = clientFor(gw, ownerKey, userId);
  const conversationId = await probe.conversation();
  orchestrator.plan(conversationId, foxTurn, { text: 'Here.' });
  const run = await probe.waitFor((await probe.send(conversationId, 'a fox')).runId, ['completed']);
  return run.costs.operations;
}

const foxTurn = { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a fox', model: 'nano-banana-2' } }] };

describeEachMode(
  'the key door on agent runs',
  (ctx) => {
    test('an agent run of an allow-listed key cannot dispatch a generation for another model: refused in words, nothing debited', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const limited = await createLimitedKey(ctx.gw, owner, { allowedModels: ['gpt-5.4-mini'] });
      const c = clientFor(ctx.gw, limited.key, userId);
      const conversationId = await c.conversation();
      orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a fox', model: 'nano-banana-2' } }] }, { text: 'I may not make images with this key.' });
      const accepted = await c.send(conversationId, 'make an image of a fox');
      const run = await c.waitFor(accepted.runId, ['completed', 'failed']);

      const tool = run.steps.find((s) => s.kind === 'tool');
      assert.ok(tool, JSON.stringify(run.steps.map((s) => [s.kind, s.name, s.status])));
      const output = tool.output as { status: string; error: string } | null;
      assert.equal(output?.status, 'refused', JSON.stringify(tool));
      assert.match(output?.error ?? '', /may not use the model "nano-banana-2"/);
      assert.equal(run.costs.operations.filter((o) => o.kind === 'generation').length, 0, 'no operation was committed for it');
      const tasks = await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('id').where('user_id', '=', userId).execute();
      assert.deepEqual(tasks, [], 'no generation was created or debited');
      const debits = await ctx.gw.gateway.services.database.db.selectFrom('ledger_entries').select('kind').where('user_id', '=', userId).where('kind', '=', 'generation_debit').execute();
      assert.deepEqual(debits, []);
      await assertBooks(ctx.gw);
    });

    test('an agent run\'s operations count towards the key\'s requests per minute, and a revoked key\'s run is refused', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const limited = await createLimitedKey(ctx.gw, owner, { requestsPerMinute: 1 });
      const c = clientFor(ctx.gw, limited.key, userId);
      const conversationId = await c.conversation();
      orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a fox', model: 'nano-banana-2' } }] }, { text: 'Done.' });
      const accepted = await c.send(conversationId, 'make an image of a fox');
      const run = await c.waitFor(accepted.runId, ['completed', 'failed']);
      // The run's first model call took the key's one request of the minute; what it dispatched next was refused.
      const refusals = run.steps.flatMap((s) => [JSON.stringify(s.output)]).filter((o) => o.includes('per minute'));
      assert.ok(refusals.length > 0, JSON.stringify(run.steps.map((s) => [s.kind, s.name, s.status, s.output])));
      assert.deepEqual(await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('id').where('user_id', '=', userId).execute(), []);
      const direct = await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
      assert.equal(direct.status, 429, 'the run\'s operation counted for the key');

      const other = await createLimitedKey(ctx.gw, owner, {});
      assert.equal((await ctx.gw.api(owner, 'DELETE', `/api/v1/keys/${other.id}`)).status, 200);
      await assert.rejects(ctx.gw.gateway.services.keyDoor.admitRunOperation(other.id, 'gpt-5.4-mini', 'chat'), (error: { code?: string; message?: string }) => {
        assert.equal(error.code, 'forbidden');
        assert.match(error.message ?? '', /revoked/);
        return true;
      });
      await assertBooks(ctx.gw);
    });

    test('an agent run\'s model calls take the key\'s concurrency: with its one slot held, the run\'s calls are refused in words', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const limited = await createLimitedKey(ctx.gw, owner, { concurrentGenerations: 1 });
      // The key's one slot, as a request of the key in flight holds it.
      const inFlight = await ctx.gw.gateway.services.keyDoor.admit(limited.id, undefined, 'chat');
      try {
        const c = clientFor(ctx.gw, limited.key, userId);
        const conversationId = await c.conversation();
        orchestrator.plan(conversationId, foxTurn, { text: 'Done.' });
        const run = await c.waitFor((await c.send(conversationId, 'a fox')).runId, ['completed', 'failed']);
        assert.equal(run.status, 'failed');
        const refused = run.steps.filter((s) => JSON.stringify(s.output).includes('allows 1 concurrent request'));
        assert.ok(refused.length > 0, JSON.stringify(run.steps.map((s) => [s.kind, s.name, s.status, s.output])));
        assert.equal(run.budget.settledMicroUsd, '0', 'a refused call holds and charges nothing');
      } finally {
        inFlight();
      }
      const direct = await ctx.gw.api(limited.key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 20 });
      assert.equal(direct.status, 200, 'the run gave back every slot it took');
      await assertBooks(ctx.gw);
    });

    test('a key narrowed or revoked while its run waits: the resumed run\'s generation is refused in words, nothing debited', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const ownerClient = clientFor(ctx.gw, owner, userId);
      for (const change of ['narrowed', 'revoked'] as const) {
        const limited = await createLimitedKey(ctx.gw, owner, {});
        const c = clientFor(ctx.gw, limited.key, userId);
        const conversationId = await c.conversation();
        orchestrator.plan(conversationId, foxTurn, { text: 'Done.' });
        // A limit below the image's price: the run waits for budget before the generation is dispatched.
        const accepted = await c.send(conversationId, 'a fox', { maxCostMicroUsd: '60000' });
        const waiting = await c.waitFor(accepted.runId, ['waiting_for_budget']);
        const changed =
          change === 'narrowed'
            ? await ctx.gw.api(owner, 'PATCH', `/api/v1/keys/${limited.id}`, { limits: { allowedModels: ['gpt-5.4-mini'] } })
            : await ctx.gw.api(owner, 'DELETE', `/api/v1/keys/${limited.id}`);
        assert.equal(changed.status, 200, JSON.stringify(changed.body));
        const patched = await ownerClient.call('PATCH', `/api/v1/agent/runs/${accepted.runId}/budget`, { maxCostMicroUsd: '500000', expectedVersion: waiting.budget.version });
        assert.equal(patched.status, 200, JSON.stringify(patched.body));
        assert.equal((await ownerClient.call('POST', `/api/v1/agent/runs/${accepted.runId}/resume`)).status, 200);
        const run = await ownerClient.waitFor(accepted.runId, ['completed', 'failed']);
        const output = run.steps.find((s) => s.kind === 'tool')?.output as { status: string; error: string } | undefined;
        assert.equal(output?.status, 'refused', `${change}: ${JSON.stringify(run.steps)}`);
        assert.match(output?.error ?? '', change === 'narrowed' ? /may not use the model "nano-banana-2"/ : /revoked/);
        assert.deepEqual(await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('id').where('api_key_id', '=', limited.id).execute(), []);
      }
      await assertBooks(ctx.gw);
    });

    test('a generation of a run past the key\'s spend cap is refused in words: no debit, the run goes on', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(100_000);
      const ops = await priceFoxRun(ctx.gw, owner, userId);
      const generation = Number(ops.find((o) => o.kind === 'generation')?.estimateMicroUsd);
      const chatHolds = ops.filter((o) => o.kind === 'chat').reduce((n, o) => n + Number(o.estimateMicroUsd), 0);
      // The model calls fit the cap; the generation does not.
      const cap = generation - 1;
      assert.ok(chatHolds < cap, `${chatHolds} < ${cap}`);
      const limited = await createLimitedKey(ctx.gw, owner, { spendCapMicroUsd: cap });
      const c = clientFor(ctx.gw, limited.key, userId);
      const conversationId = await c.conversation();
      orchestrator.plan(conversationId, foxTurn, { text: 'The key\'s cap stopped the image.' });
      const run = await c.waitFor((await c.send(conversationId, 'a fox')).runId, ['completed', 'failed']);
      assert.equal(run.status, 'completed', JSON.stringify(run.error));
      const output = run.steps.find((s) => s.kind === 'tool')?.output as { status: string; error: string } | undefined;
      assert.equal(output?.status, 'refused', JSON.stringify(run.steps));
      assert.match(output?.error ?? '', /spend cap/);
      assert.deepEqual(await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('id').where('api_key_id', '=', limited.id).execute(), []);
      assert.ok((await keySpent(ctx.gw, limited.id)) <= cap);
      await assertBooks(ctx.gw);
    });

    test('a run of a key whose cap is spent ends failed with key_spend_cap_reached, not after trying every fallback model', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const zero = await createLimitedKey(ctx.gw, owner, { spendCapMicroUsd: 0 });
      const c = clientFor(ctx.gw, zero.key, userId);
      const conversationId = await c.conversation();
      orchestrator.plan(conversationId, foxTurn, { text: 'Here.' });
      const run = await c.waitFor((await c.send(conversationId, 'a fox')).runId, ['completed', 'failed']);
      assert.equal(run.status, 'failed');
      assert.equal(run.error?.code, 'key_spend_cap_reached', JSON.stringify(run.error));
      assert.equal(run.budget.settledMicroUsd, '0');
      assert.equal(await keySpent(ctx.gw, zero.id), 0);
      await assertBooks(ctx.gw);
    });

    test('20 concurrent agent runs on one capped key: the key\'s spend never passes the cap, what was refused is in words and debited nothing', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(100_000);
      const db = ctx.gw.gateway.services.database.db;
      const perRun = (await priceFoxRun(ctx.gw, owner, userId)).reduce((n, o) => n + Number(o.estimateMicroUsd), 0);
      assert.ok(perRun > 0);
      const cap = perRun * 3;
      const limited = await createLimitedKey(ctx.gw, owner, { spendCapMicroUsd: cap });
      const c = clientFor(ctx.gw, limited.key, userId);

      const conversations = await Promise.all(Array.from({ length: 20 }, () => c.conversation()));
      for (const id of conversations) orchestrator.plan(id, foxTurn, { text: 'Here.' });
      const accepted = await Promise.all(conversations.map((id) => c.send(id, 'a capped fox')));
      const runs = await Promise.all(accepted.map((a) => c.waitFor(a.runId, ['completed', 'failed'], 120_000)));

      const words = runs.flatMap((r) => [JSON.stringify(r.error), ...r.steps.map((s) => JSON.stringify(s.output))]).filter((t) => t.includes('spend cap'));
      assert.ok(words.length > 0, 'some operation met the cap, and says so');
      const spent = await keySpent(ctx.gw, limited.id);
      assert.ok(spent <= cap, `${spent} <= ${cap}`);
      const chat = await db.selectFrom('chat_requests').select('cost_micro').where('api_key_id', '=', limited.id).execute();
      const tasks = await db.selectFrom('tasks').select(['cost_micro', 'refunded_micro']).where('api_key_id', '=', limited.id).execute();
      assert.equal(chat.reduce((n, r) => n + Number(r.cost_micro), 0) + tasks.reduce((n, t) => n + Number(t.cost_micro) - Number(t.refunded_micro), 0), spent);
      const held = await db.selectFrom('api_key_spend').select('held_micro').where('key_id', '=', limited.id).where('period', '=', 'total').executeTakeFirstOrThrow();
      assert.equal(Number(held.held_micro), 0);
      await assertBooks(ctx.gw);
    });
  },
  {
    configFile: {
      providers: { orch: orchestrator.provider() },
      routes: { 'gpt-5.4-mini': ['orch'] },
    },
  },
);
