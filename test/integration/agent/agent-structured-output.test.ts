/**
 * Structured output (SPEC rule 17): a closed schema checked before any charge; `auto` filled from
 * known fields without a call; extraction billed within the run's limit with one repair; a failed
 * extraction keeps the main outputs; a budget pause during extraction resumes without repeating media.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentClient, agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

const image = (prompt: string) => ({ toolCalls: [{ name: 'generate_image', arguments: { prompt, model: 'z-image-turbo' } }] });

interface StructuredResult {
  status: string;
  mainOutcome: { text: string; artifactIds: string[] } | null;
  artifacts: Array<{ artifactId: string; url: string }>;
  structuredResult: unknown;
  schemaHash: string | null;
  sourceSteps: string[];
  extraction: { status: string; method: string | null; attempts: number; costMicroUsd: string; error: string | null } | null;
}

const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });

async function result(c: AgentClient, runId: string): Promise<StructuredResult> {
  return (await c.call('GET', `/api/v1/agent/runs/${runId}/result`)).body.data as unknown as StructuredResult;
}

async function balance(c: AgentClient): Promise<number> {
  return Number(((await c.call('GET', '/api/v1/user/me')).body.data as unknown as { balance: number }).balance);
}

describeAgent(
  'agent structured output',
  (ctx) => {
    test('a schema outside the subset is refused with 400 invalid_output_schema and a JSON pointer; nothing is written or charged', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation();
      const before = await balance(c);
      for (const [schema, pointer] of [
        [{ type: 'object', properties: { a: { type: 'string' } }, required: ['a'] }, 'outputSchema/additionalProperties'],
        [obj({ a: { type: 'string', allOf: [] } }), 'outputSchema/properties/a/allOf'],
        [obj({ a: { $ref: 'https://x.test/s.json' } }), 'outputSchema/properties/a/$ref'],
        ['a string', 'outputSchema'],
      ] as const) {
        const res = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'x' }], outputSchema: schema });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error?.code, 'invalid_output_schema');
        assert.equal(res.body.error?.param, pointer);
      }
      const mode = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'x' }], structuredOutputMode: 'auto' });
      assert.equal(mode.status, 400);
      const messages = (await c.call('GET', `/api/v1/agent/conversations/${conversationId}/messages`)).body.data as unknown as { items: unknown[] };
      assert.equal(messages.items.length, 0, 'no message was written');
      assert.equal(await balance(c), before);
    });

    test('300 random bodies for outputSchema never make the server answer 500, and a refusal names a pointer', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Fuzz' });
      let seed = 7;
      const r = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      const atoms = [null, true, 0, -1.5, 'object', 'string', '#/$defs/a', [], {}];
      const keys = ['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf', '$ref', '$defs', 'format', 'pattern', 'allOf', 'minimum'];
      const noise = (depth: number): unknown => {
        if (depth > 3 || r() < 0.3) return atoms[Math.floor(r() * atoms.length)];
        if (r() < 0.3) return Array.from({ length: Math.floor(r() * 3) }, () => noise(depth + 1));
        const out: Record<string, unknown> = {};
        for (let i = 0; i < 1 + Math.floor(r() * 4); i++) out[keys[Math.floor(r() * keys.length)] as string] = noise(depth + 1);
        return out;
      };
      for (let i = 0; i < 300; i++) {
        const schema = i % 2 ? { type: 'object', ...(noise(0) as object) } : noise(0);
        const res = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'x' }], outputSchema: schema, deliveryMode: 'followup' });
        assert.ok(res.status < 500, `${res.status} for ${JSON.stringify(schema)}`);
        if (res.status === 400 && res.body.error?.code === 'invalid_output_schema') assert.match(String(res.body.error.param), /^outputSchema(\/|$)/);
        if (res.status === 200) {
          const runId = (res.body.data as unknown as { runId: string }).runId;
          await c.call('POST', `/api/v1/agent/runs/${runId}/stop`);
        }
      }
    });

    test('auto: a schema of known fields is filled from the run without any extraction call', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Known fields' });
      ctx.orchestrator.plan(conversationId, image('a red fox'), { text: 'Here is your fox.' });
      const schema = obj({ summary: { type: 'string' }, imageUrls: { type: 'array', items: { type: 'string' } }, artifacts: { type: 'array', items: obj({ artifactId: { type: 'string' }, url: { type: 'string' } }) } });
      const accepted = await c.send(conversationId, 'a red fox', { outputSchema: schema });
      const run = await c.waitFor(accepted.runId, ['completed']);
      const view = await result(c, accepted.runId);
      const url = view.artifacts[0]?.url;
      assert.ok(url);
      assert.deepEqual(view.structuredResult, { summary: 'Here is your fox.', imageUrls: [url], artifacts: [{ artifactId: view.artifacts[0]?.artifactId, url }] });
      assert.deepEqual([view.extraction?.status, view.extraction?.method, view.extraction?.attempts, view.extraction?.costMicroUsd], ['succeeded', 'deterministic', 0, '0']);
      assert.match(String(view.schemaHash), /^[0-9a-f]{64}$/);
      assert.equal(view.sourceSteps.length, 1);
      assert.equal(ctx.orchestrator.callsFor(conversationId).length, 2, 'two orchestrator turns, no extraction call');
      assert.equal(run.steps.filter((s) => s.kind === 'extract').length, 0);
    });

    test('extract: a billed extraction call, one billed repair after a result that does not fit, within the run\'s limit', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Extraction' });
      ctx.orchestrator.plan(conversationId, image('a mug'), { text: 'A blue mug.' }, { text: '{"colour": "blue"}' }, { text: '```json\n{"colour": "blue", "count": 1}\n```' });
      const schema = obj({ colour: { type: 'string', enum: ['blue', 'red'] }, count: { type: 'integer', minimum: 1 } });
      const accepted = await c.send(conversationId, 'a mug', { outputSchema: schema, structuredOutputMode: 'extract' });
      const run = await c.waitFor(accepted.runId, ['completed']);
      const view = await result(c, accepted.runId);
      assert.deepEqual(view.structuredResult, { colour: 'blue', count: 1 });
      assert.deepEqual([view.extraction?.status, view.extraction?.method, view.extraction?.attempts], ['succeeded', 'model', 2]);
      const extracts = run.steps.filter((s) => s.kind === 'extract');
      assert.equal(extracts.length, 2);
      assert.ok(Number(view.extraction?.costMicroUsd) > 0, 'both calls are billed');
      assert.equal(Number(view.extraction?.costMicroUsd), extracts.reduce((sum, s) => sum + Number(s.costMicroUsd), 0));
      assert.equal(view.mainOutcome?.text, 'A blue mug.');
      // The repair call saw what was wrong.
      const repair = JSON.stringify(ctx.orchestrator.callsFor(conversationId)[3]);
      assert.match(repair, /does not fit the schema: \/count is required/);
      assert.ok(Number(run.budget.settledMicroUsd) <= Number(run.budget.limitMicroUsd));
      await assertBooksBalance(ctx.gw);
    });

    test('a failed extraction completes the run with its main outputs and charges intact, and no structured result', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Failing extraction' });
      ctx.orchestrator.plan(conversationId, image('a cat'), { text: 'A cat.' }, { text: 'sorry, no JSON' }, { text: '{"name": 7}' });
      const accepted = await c.send(conversationId, 'a cat', { outputSchema: obj({ name: { type: 'string' } }) });
      const run = await c.waitFor(accepted.runId, ['completed']);
      const view = await result(c, accepted.runId);
      assert.equal(view.structuredResult, null);
      assert.equal(view.extraction?.status, 'failed');
      assert.match(String(view.extraction?.error), /after 2 extraction calls/);
      assert.equal(view.mainOutcome?.text, 'A cat.');
      assert.equal(view.artifacts.length, 1);
      assert.equal(run.status, 'completed');
      await assertBooksBalance(ctx.gw);
    });

    test('a budget pause during extraction resumes the finalization without repeating the media', async () => {
      const c = await agentClient(ctx.gw);
      const schema = obj({ colour: { type: 'string' } });
      // A first run measures what the main work costs and what the extraction call holds.
      const probe = await c.conversation({ title: 'Probe' });
      ctx.orchestrator.plan(probe, image('a lamp'), { text: 'A lamp.' }, { text: '{"colour": "green"}' });
      const measured = await c.waitFor((await c.send(probe, 'a lamp', { outputSchema: schema, structuredOutputMode: 'extract' })).runId, ['completed']);
      const extractInput = measured.steps.find((s) => s.kind === 'extract')?.input as { holdMicroUsd: string } | undefined;
      const extractHold = Number(extractInput?.holdMicroUsd);
      assert.ok(extractHold > 0);
      const mainCost = measured.steps.filter((s) => s.kind !== 'extract').reduce((sum, s) => sum + Number(s.costMicroUsd), 0);

      const conversationId = await c.conversation({ title: 'Paused' });
      ctx.orchestrator.plan(conversationId, image('a lamp'), { text: 'A lamp.' }, { text: '{"colour": "green"}' });
      const limit = mainCost + extractHold - 1;
      const accepted = await c.send(conversationId, 'a lamp', { outputSchema: schema, structuredOutputMode: 'extract', maxCostMicroUsd: String(limit) });
      const waiting = await c.waitFor(accepted.runId, ['waiting_for_budget']);
      assert.equal(waiting.waitReason, 'run_limit');
      assert.equal(waiting.steps.filter((s) => s.name === 'generate_image').length, 1);
      assert.equal((await result(c, accepted.runId)).extraction?.status, 'pending');
      const budget = await c.call('PATCH', `/api/v1/agent/runs/${accepted.runId}/budget`, { maxCostMicroUsd: String(limit + extractHold), expectedVersion: waiting.budget.version });
      assert.equal(budget.status, 200, JSON.stringify(budget.body));
      assert.equal((await c.call('POST', `/api/v1/agent/runs/${accepted.runId}/resume`)).status, 200);
      const done = await c.waitFor(accepted.runId, ['completed']);
      assert.equal(done.steps.filter((s) => s.name === 'generate_image').length, 1, 'the image was not made again');
      assert.deepEqual((await result(c, accepted.runId)).structuredResult, { colour: 'green' });
      const tasks = await ctx.gw.gateway.services.database.db.selectFrom('tasks').select('id').where('agent_run_id', '=', accepted.runId).execute();
      assert.equal(tasks.length, 1);
      await assertBooksBalance(ctx.gw);
    });
  },
  { protocols: ['openai', 'anthropic'] },
);
