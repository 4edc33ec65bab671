/**
 * Appends agent events inside the caller's transaction (AGENT.md "Events"): the conversation's next
 * sequence, the event row, and one webhook delivery per subscribed destination, all committed with
 * the state change they describe, so an event exists if and only if its change does.
 */
import { type AgentEvent, type EventScope, type NewAgentEvent, WEBHOOK_EVENT_TYPES } from '../../../domain/agent/agent-events.ts';
import { newId } from '../../../domain/ids.ts';
import type { AgentStore } from '../../../ports/agent-store.port.ts';
import type { StoreTransaction } from '../../../ports/store-transaction.port.ts';
import type { NewWebhookDelivery } from '../../webhooks/webhook-deliveries.ts';

export type { NewAgentEvent };

/**
 * Records one webhook delivery and its job in the caller's transaction (the webhooks' writer,
 * src/services/webhooks/webhook-deliveries.ts, bound by the agent module).
 */
export type EnqueueEventDelivery = (tx: StoreTransaction, delivery: NewWebhookDelivery) => Promise<string | undefined>;

/** The scope of a run's events: its conversation and itself. */
export function runScope(run: { id: string; conversation_id: string }): EventScope {
  return { conversationId: run.conversation_id, runId: run.id };
}

/** Undefined when the conversation has been deleted (nothing is written then). */
export async function appendEvent(tx: StoreTransaction, store: AgentStore, enqueueDelivery: EnqueueEventDelivery, event: NewAgentEvent, now: number): Promise<{ event: AgentEvent; webhooks: number } | undefined> {
  const id = newId('evt', now);
  const grant = await store.appendEvent(tx, {
    conversation_id: event.conversationId,
    id,
    run_id: event.runId,
    type: event.type,
    data_json: JSON.stringify(event.data),
    created_at: now,
  });
  if (!grant) return undefined;
  // Fields in the order clients and webhook signatures have always seen; type and data stay the pair the constructor built.
  const stored = {
    id,
    sequence: grant.sequence,
    type: event.type,
    conversationId: event.conversationId,
    runId: event.runId,
    createdAt: new Date(now).toISOString(),
    data: event.data,
  } as AgentEvent;
  let webhooks = 0;
  if (WEBHOOK_EVENT_TYPES.includes(event.type)) {
    for (const destination of await store.listEventWebhooks(tx, grant.userId, grant.storefront)) {
      const types = JSON.parse(destination.event_types_json) as string[];
      if (!types.includes(event.type) && !types.includes('*')) continue;
      if (destination.scope === 'conversation' && destination.scope_id !== event.conversationId) continue;
      if (destination.scope === 'project' && (grant.projectId === null || destination.scope_id !== grant.projectId)) continue;
      await enqueueDelivery(tx, {
        userId: grant.userId,
        messageId: id,
        destinationId: destination.id,
        eventType: event.type,
        url: destination.url,
        body: { type: event.type, timestamp: stored.createdAt, data: stored },
        now,
      });
      webhooks++;
    }
  }
  return { event: stored, webhooks };
}
