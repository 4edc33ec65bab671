import type { AgentStore, NewStep, StepEnd } from '../../../ports/agent-store.port.ts';
import type { StepStatus } from '../../../domain/agent/step-status.ts';

const OPEN_STEP: ReadonlySet<StepStatus> = new Set(['running', 'waiting']);
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { finishStep, insertStep } from '../repositories/agent/steps.repository.ts';
import { executorOf } from '../schema.ts';

/** The agent's store over Kysely, for SQLite and PostgreSQL alike. */
export class KyselyAgentStore implements AgentStore {
  async startStep(tx: StoreTransaction, step: NewStep): Promise<void> {
    const ended = !OPEN_STEP.has(step.status);
    await insertStep(executorOf(tx), {
      id: step.id,
      run_id: step.runId,
      position: step.position,
      kind: step.kind,
      name: step.name,
      status: step.status,
      tool_call_id: step.toolCallId ?? null,
      input_json: JSON.stringify(step.input),
      output_json: step.output === undefined ? null : JSON.stringify(step.output),
      cost_micro: step.costMicro ?? 0,
      started_at: step.startedAt,
      finished_at: step.finishedAt !== undefined ? step.finishedAt : ended ? step.startedAt : null,
    });
  }

  finishStep(tx: StoreTransaction, stepId: string, from: readonly StepStatus[], end: StepEnd): Promise<boolean> {
    return finishStep(executorOf(tx), stepId, from, {
      status: end.status,
      ...(end.output !== undefined ? { output_json: JSON.stringify(end.output) } : {}),
      ...(end.costMicro !== undefined ? { cost_micro: end.costMicro } : {}),
      finished_at: end.finishedAt,
    });
  }
}
