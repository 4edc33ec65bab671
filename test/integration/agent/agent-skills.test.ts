/**
 * Skills (SPEC rule 15): in automatic mode the built-in skills a request calls for are loaded, each
 * with its version frozen for the run and shown in its activity (steps and events); manual mode loads
 * none; a skill changed after the run loaded it does not change the run.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SKILLS } from '../../../src/domain/agent/skills.ts';
import { agentClient } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';

function systemOf(body: Record<string, unknown> | undefined): string {
  const messages = (body?.messages ?? []) as Array<{ role: string; content: unknown }>;
  return String(messages.find((m) => m.role === 'system')?.content ?? '');
}

describeAgent(
  'agent skills',
  (ctx) => {
    test('an automatic run loads the skills its request calls for, with their versions in its steps and events', async () => {
      const c = await agentClient(ctx.gw);
      const conversationId = await c.conversation({ title: 'Skills' });
      ctx.orchestrator.plan(conversationId, { text: 'Planned.' });
      const accepted = await c.send(conversationId, 'a storyboard of four shots for our product advert');
      const run = await c.waitFor(accepted.runId, ['completed']);
      const skills = run.steps.filter((s) => s.kind === 'skill');
      assert.deepEqual(
        skills.map((s) => [s.name, s.input.version]),
        [
          ['advertising-visuals', '1.0.0'],
          ['video-storyboards', '1.0.0'],
        ],
      );
      const events = await c.events(conversationId);
      assert.deepEqual(
        events.filter((e) => e.type === 'run.step.completed' && e.data.kind === 'skill').map((e) => [e.data.name, e.data.version]),
        [
          ['advertising-visuals', '1.0.0'],
          ['video-storyboards', '1.0.0'],
        ],
      );
      const system = systemOf(ctx.orchestrator.callsFor(conversationId)[0]);
      assert.match(system, /Skill Advertising visuals \(1\.0\.0\): Lead with the product/);
      assert.match(system, /Skill Video storyboards \(1\.0\.0\)/);
      assert.doesNotMatch(system, /Skill Campaign planning/);
    });

    test('manual mode loads no skill, and a request that needs none gets none', async () => {
      const c = await agentClient(ctx.gw);
      const manual = await c.conversation({ title: 'Manual', mode: 'manual', selectedModelId: 'z-image-turbo' });
      ctx.orchestrator.plan(manual, { text: 'ok' });
      const a = await c.waitFor((await c.send(manual, 'a product advert banner')).runId, ['completed']);
      assert.equal(a.steps.filter((s) => s.kind === 'skill').length, 0);
      const plain = await c.conversation({ title: 'Plain' });
      ctx.orchestrator.plan(plain, { text: 'ok' });
      const b = await c.waitFor((await c.send(plain, 'a red fox in the snow')).runId, ['completed']);
      assert.equal(b.steps.filter((s) => s.kind === 'skill').length, 0);
    });

    if (ctx.mode === 'embedded') {
      test('a skill changed while a run waits does not change that run: its loaded text is what the model reads', async () => {
        const c = await agentClient(ctx.gw);
        const conversationId = await c.conversation({ title: 'Frozen' });
        ctx.orchestrator.plan(conversationId, { toolCalls: [{ name: 'ask_clarification', arguments: { question: 'Which campaign?' } }] }, { text: 'ok' });
        const accepted = await c.send(conversationId, 'plan our launch campaign');
        const waiting = await c.waitFor(accepted.runId, ['waiting_for_clarification']);
        const skill = SKILLS.find((s) => s.id === 'campaign-planning') as { instructions: string; version: string };
        const original = { instructions: skill.instructions, version: skill.version };
        skill.instructions = 'CHANGED TEXT';
        skill.version = '2.0.0';
        try {
          const questionId = waiting.pendingActions[0]?.pendingActionId ?? '';
          await c.send(conversationId, 'the spring one', { replyToRunId: accepted.runId, questionId });
          await c.waitFor(accepted.runId, ['completed']);
        } finally {
          skill.instructions = original.instructions;
          skill.version = original.version;
        }
        const second = systemOf(ctx.orchestrator.callsFor(conversationId)[1]);
        assert.match(second, /Skill Campaign planning \(1\.0\.0\): State the campaign/);
        assert.doesNotMatch(second, /CHANGED TEXT/);
      });
    }
  },
  { protocols: ['openai'] },
);
