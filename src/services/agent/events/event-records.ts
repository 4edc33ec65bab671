import type { AgentEventsRow as EventRow } from '../../../ports/store-rows/agent.rows.ts';
import type { AgentEvent } from '../../../domain/agent/agent-events.ts';

export function eventFromRow(row: EventRow): AgentEvent {
  // The row holds what a constructor of agent-events.ts built, under the type it was built for.
  return {
    id: row.id,
    sequence: Number(row.sequence),
    type: row.type,
    conversationId: row.conversation_id,
    runId: row.run_id,
    createdAt: new Date(Number(row.created_at)).toISOString(),
    data: JSON.parse(row.data_json),
  } as AgentEvent;
}

/** One SSE frame: `id:` is the sequence (what Last-Event-ID sends back), `event:` the type. */
export function sseFrame(event: AgentEvent): string {
  return `id: ${event.sequence}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`;
}
