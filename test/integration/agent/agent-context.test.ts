/**
 * Context references (SPEC rule 13): ids and storefront URLs parsed locally, versioned replacement,
 * search in the local full-text index with bounded fragments read on demand, no widening of access
 * through references of references or another user's conversation, and the source boundary a run
 * captures when it starts.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AgentClient, agentClient } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

interface ContextView {
  version: number;
  references: Array<{ targetType: string; targetId: string; title: string | null }>;
}

const put = (c: AgentClient, id: string, expectedVersion: number, references: unknown[]) => c.call('PUT', `/api/v1/agent/conversations/${id}/context-references`, { expectedVersion, references });
const conv = (targetId: string) => ({ targetType: 'conversation', targetId });
const search = (query: string) => ({ toolCalls: [{ name: 'search_context', arguments: { query } }] });

async function say(c: AgentClient, ctxPlan: (id: string) => void, conversationId: string, text: string): Promise<void> {
  ctxPlan(conversationId);
  await c.waitFor((await c.send(conversationId, text)).runId, ['completed']);
}

describeAgent(
  'agent context references',
  (ctx) => {
    const host = () => new URL(ctx.gw.url).host;

    test('references are ids or URLs of this storefront, replaced by version; foreign, missing and self references are refused', async () => {
      const c = await agentClient(ctx.gw);
      const other = await agentClient(ctx.gw);
      const a = await c.conversation({ title: 'A' });
      const b = await c.conversation({ title: 'Notes B' });
      const d = await c.conversation({ title: 'Notes D' });
      const foreign = await other.conversation({ title: 'not yours' });
      assert.deepEqual((await c.call('GET', `/api/v1/agent/conversations/${a}/context-references`)).body.data, { version: 0, references: [] });
      const saved = await put(c, a, 0, [conv(b), conv(`http://${host()}/agent/c/${d}`)]);
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
      assert.deepEqual(saved.body.data as unknown as ContextView, {
        version: 1,
        references: [
          { targetType: 'conversation', targetId: b, title: 'Notes B' },
          { targetType: 'conversation', targetId: d, title: 'Notes D' },
        ],
      });
      assert.equal((await put(c, a, 0, [])).status, 409, 'a stale version');
      for (const [ref, param] of [
        [conv(foreign), 'references[0].targetId'],
        [conv('conv_doesnotexist0'), 'references[0].targetId'],
        [conv(a), 'references[0].targetId'],
        [conv(`http://elsewhere.example/agent/c/${b}`), 'references[0].targetId'],
        [conv(`http://${host()}/generations/${b}`), 'references[0].targetId'],
        [{ targetType: 'project', targetId: 'prj_1' }, 'body.references.0.targetType'],
      ] as const) {
        const res = await put(c, a, 1, [ref]);
        assert.equal(res.status, 400, JSON.stringify(ref));
        assert.match(String(res.body.error?.param), new RegExp(param.replace(/[[\].]/g, '\\$&')), JSON.stringify(res.body));
      }
      assert.equal((await other.call('GET', `/api/v1/agent/conversations/${a}/context-references`)).status, 404);
      const cleared = await put(c, a, 1, []);
      assert.deepEqual(cleared.body.data, { version: 2, references: [] });
    });

    test('a run searches its references in bounded fragments, reads a message on demand, and never sees later messages or references of references', async () => {
      const c = await agentClient(ctx.gw);
      const plan = (text: string) => (id: string) => ctx.orchestrator.plan(id, { text });
      const b = await c.conversation({ title: 'Launch notes' });
      const deep = await c.conversation({ title: 'Deep' });
      await say(c, plan('noted'), b, `The launch date is the twelfth of May. ${'Filler words about the product. '.repeat(100)}`);
      await say(c, plan('noted'), deep, 'The secret deep fact is the colour teal.');
      assert.equal((await put(c, b, 0, [conv(deep)])).status, 200);
      const a = await c.conversation({ title: 'Planning' });
      assert.equal((await put(c, a, 0, [conv(b)])).status, 200);

      // The run captures its boundary when it starts: a message written to B afterwards stays out.
      ctx.orchestrator.plan(
        a,
        { toolCalls: [{ name: 'ask_clarification', arguments: { question: 'Go on?' } }] },
        search('launch date'),
        (body) => {
          const fragments = lastToolResult(body).fragments as Array<{ messageId: string }>;
          return { toolCalls: [{ name: 'read_context', arguments: { messageId: fragments[0]?.messageId } }] };
        },
        search('later announcement'),
        search('teal deep'),
        { text: 'Read.' },
      );
      const accepted = await c.send(a, 'when is the launch?');
      const waiting = await c.waitFor(accepted.runId, ['waiting_for_clarification']);
      await say(c, plan('noted'), b, 'A later announcement: the launch moves to June.');
      await c.send(a, 'yes', { replyToRunId: accepted.runId, questionId: waiting.pendingActions[0]?.pendingActionId });
      const run = await c.waitFor(accepted.runId, ['completed']);
      const results = run.steps.filter((s) => s.name === 'search_context' || s.name === 'read_context').map((s) => s.output as Record<string, unknown>);
      const found = results[0]?.fragments as Array<{ conversationId: string; fragment: string }>;
      assert.equal(found.length, 1);
      assert.equal(found[0]?.conversationId, b);
      assert.match(String(found[0]?.fragment), /twelfth of May/);
      assert.ok(String(found[0]?.fragment).length <= 602, 'a bounded fragment');
      assert.equal(results[1]?.status, 'succeeded');
      assert.ok(String(results[1]?.text).length <= 4000 && results[1]?.more === false);
      assert.deepEqual(results[2]?.fragments, [], 'a message written after the run started is not in its input');
      assert.deepEqual(results[3]?.fragments, [], 'a reference of a reference is not followed');
      const system = JSON.stringify(ctx.orchestrator.callsFor(a)[0]);
      assert.match(system, new RegExp(`- ${b}: \\\\"Launch notes\\\\"`));
      assert.doesNotMatch(system, new RegExp(deep));
    });
  },
  { protocols: ['openai'] },
);

/** The last tool message of an OpenAI-style request, parsed. */
function lastToolResult(body: Record<string, unknown>): Record<string, unknown> {
  const messages = body.messages as Array<{ role: string; content: unknown }>;
  const tool = [...messages].reverse().find((m) => m.role === 'tool');
  return JSON.parse(String(tool?.content ?? '{}')) as Record<string, unknown>;
}
