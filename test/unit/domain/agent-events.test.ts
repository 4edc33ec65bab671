import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { budgetUpdated, conversationUpdated, type NewAgentEvent, runMoved, stepCompleted } from '../../../src/domain/agent/agent-events.ts';

const scope = { conversationId: 'conv_1', runId: 'run_1' };

describe('agent event constructors', () => {
  it('give a status move the type of its target: terminal moves their own, every other a status change', () => {
    const typeOf = (to: 'running' | 'completed' | 'failed' | 'cancelled' | 'stopping'): string => runMoved(scope, { from: 'running', to, waitReason: null }).type;
    assert.deepEqual(['running', 'stopping', 'completed', 'failed', 'cancelled'].map((to) => typeOf(to as Parameters<typeof typeOf>[0])), [
      'run.status_changed',
      'run.status_changed',
      'run.completed',
      'run.failed',
      'run.cancelled',
    ]);
  });

  it('keep the payload as given and the scope of the event', () => {
    const event: NewAgentEvent = stepCompleted(scope, { stepId: 'stp_1', kind: 'tool', name: 'finish', status: 'completed', result: { status: 'completed' } });
    assert.deepEqual(event, { conversationId: 'conv_1', runId: 'run_1', type: 'run.step.completed', data: { stepId: 'stp_1', kind: 'tool', name: 'finish', status: 'completed', result: { status: 'completed' } } });
    const budget = budgetUpdated(scope, { limitMicroUsd: '5', settledMicroUsd: '1', committedMicroUsd: '2', remainingMicroUsd: '2', version: 3 });
    assert.equal(budget.type, 'budget.updated');
    // A conversation's own event belongs to no run.
    assert.deepEqual(conversationUpdated('conv_1', { title: 'Foxes', titleSource: 'generated' }), { conversationId: 'conv_1', runId: null, type: 'conversation.updated', data: { title: 'Foxes', titleSource: 'generated' } });
  });
});
