/**
 * Model-change proposals (rules 6 and 10): the run waits for the user's decision. A proposal has a
 * version and a hash of exactly what it proposes; a decision must name both, so a stale or expired
 * proposal authorizes nothing.
 */
import type { RunRow } from '../../../ports/agent-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import { requestHash } from '../../../domain/canonical-json.ts';
import { newId } from '../../../domain/ids.ts';
import type { TxEffects } from '../events/agent-writer.ts';
import { moveRun } from '../runs/run-lifecycle.ts';
import { decisionRequired, type ModelChangeProposal } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

/** A proposal not decided within a day expires: the run stays waiting, and accepting it authorizes nothing. */
export const PROPOSAL_TTL_MS = 24 * 3_600_000;

export type Proposal = ModelChangeProposal;

export function proposalHash(runId: string, actionId: string, version: number, proposal: Proposal): string {
  return requestHash({ runId, pendingActionId: actionId, version, ...proposal });
}

/** Records the proposal and moves the run to waiting_for_model_approval; false when the run no longer runs. */
export async function propose(tx: StoreTransaction, fx: TxEffects, run: RunRow, proposal: Proposal, stepId: string | null): Promise<boolean> {
  const id = newId('act', fx.now);
  const version = 1;
  const hash = proposalHash(run.id, id, version, proposal);
  const moved = await moveRun(tx, fx, run, {
    to: 'waiting_for_model_approval',
    waitReason: proposal.origin === 'tool_route' ? 'tool_route_consent' : 'model_approval',
    from: ['running'],
    detail: { pendingActionId: id },
  });
  if (moved === undefined) return false;
  await fx.store.addPendingAction(tx, {
    id,
    run_id: run.id,
    step_id: stepId,
    kind: 'model_change',
    status: 'pending',
    version,
    proposal_hash: hash,
    payload_json: JSON.stringify(proposal),
    response_json: null,
    created_at: fx.now,
    expires_at: fx.now + PROPOSAL_TTL_MS,
    resolved_at: null,
  });
  await fx.emit(
    decisionRequired(runScope(run), { pendingActionId: id, kind: 'model_change', version, proposalHash: hash, proposal, expiresAt: new Date(fx.now + PROPOSAL_TTL_MS).toISOString() }),
  );
  return true;
}
