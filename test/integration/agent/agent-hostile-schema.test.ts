/**
 * Issue 17, items 7 and 10 through the agent API: an `outputSchema` whose `$ref`s fan out, close a
 * cycle or run deeper than the bounds, and a pattern with nested quantifiers, are refused with 400
 * invalid_output_schema naming the JSON pointer before anything is written or charged; a schema with
 * definitions and a pattern still works end to end (the pattern checked on RE2 by the engine, a
 * result that does not match it repaired once).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { agentClient, assertBooksBalance } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';
import { closedObject as obj, fanOutSchema } from '../../support/hostile-schemas.ts';

type Json = Record<string, unknown>;

describeAgent(
  'agent outputSchema: hostile schemas and patterns',
  (ctx) => {
    test('fan-out, a $ref cycle and a nested quantifier are refused with 400 naming the pointer; nothing is written or charged', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Hostile schemas' });
      const before = (await c.call('GET', '/api/v1/user/me')).body.data.balance;
      // The fan-out last: accepted (as on main before issue 17), it would freeze this process when its run ends.
      const cases: Array<[Json, RegExp, RegExp]> = [
        [obj({ tree: { $ref: '#/$defs/node' } }, { $defs: { node: obj({ children: { type: 'array', items: { $ref: '#/$defs/node' } } }) } }), /^outputSchema\/\$defs\/node\/properties\/children\/items\/\$ref$/, /\$ref cycle/],
        [obj({ summary: { type: 'string', pattern: '(a+)+c' } }), /^outputSchema\/properties\/summary\/pattern$/, /nest quantifiers/],
        [obj({ summary: { type: 'string', pattern: '(?<=a)b' } }), /^outputSchema\/properties\/summary\/pattern$/, /lookahead or lookbehind/],
        [fanOutSchema(40), /^outputSchema\/\$defs\/d\d+$/, /counted through \$ref/],
        [fanOutSchema(18), /^outputSchema\/\$defs\/d4$/, /expands to more than 50000 nodes/],
      ];
      for (const [schema, param, reason] of cases) {
        const res = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'x' }], outputSchema: schema });
        assert.equal(res.status, 400, JSON.stringify(res.body));
        assert.equal(res.body.error?.code, 'invalid_output_schema');
        assert.match(String(res.body.error?.param), param);
        assert.ok(res.body.error?.message.startsWith(`${res.body.error?.param}: `), res.body.error?.message);
        assert.match(String(res.body.error?.message), reason);
      }
      const messages = (await c.call('GET', `/api/v1/agent/conversations/${conversationId}/messages`)).body.data as unknown as { items: unknown[] };
      assert.equal(messages.items.length, 0, 'no message was written');
      assert.equal((await c.call('GET', '/api/v1/user/me')).body.data.balance, before);
    });

    test('a schema with shared definitions and a pattern works end to end: a result that misses the pattern is repaired once', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Slugs' });
      const schema = obj(
        { slug: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' }, from: { $ref: '#/$defs/point' }, to: { $ref: '#/$defs/point' } },
        { $defs: { point: obj({ x: { type: 'number' }, y: { type: 'number' } }) } },
      );
      ctx.orchestrator.plan(conversationId, { text: 'Route planned.' }, { text: '{"slug": "Red Fox", "from": {"x": 0, "y": 0}, "to": {"x": 1, "y": 2}}' }, { text: '{"slug": "red-fox", "from": {"x": 0, "y": 0}, "to": {"x": 1, "y": 2}}' });
      const accepted = await c.send(conversationId, 'plan it', { outputSchema: schema, structuredOutputMode: 'extract' });
      await c.waitFor(accepted.runId, ['completed']);
      const view = (await c.call('GET', `/api/v1/agent/runs/${accepted.runId}/result`)).body.data as unknown as { structuredResult: unknown; extraction: { status: string; attempts: number } };
      assert.deepEqual(view.structuredResult, { slug: 'red-fox', from: { x: 0, y: 0 }, to: { x: 1, y: 2 } });
      assert.deepEqual([view.extraction.status, view.extraction.attempts], ['succeeded', 2]);
      const repair = JSON.stringify(ctx.orchestrator.callsFor(conversationId)[2]);
      assert.match(repair, /\/slug does not match the pattern/);
      await assertBooksBalance(ctx.gw);
    });
  },
  { protocols: ['openai'] },
);
