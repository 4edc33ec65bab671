/** The agent tables as Kysely sees them: the rows of ports/store-rows/agent.rows.ts, with the columns the database fills. */
import type { Stored } from './stored.ts';
import type { AgentArtifactsRow, AgentAttachmentsRow, AgentConversationsRow, AgentEventsRow, AgentMessagesRow, AgentOperationsRow, AgentPendingActionsRow, AgentRunsRow, AgentSettingsRow, AgentStepsRow, AgentWebhooksRow, ChatRouteCapabilitiesRow } from '../../../ports/store-rows/agent.rows.ts';

export type { AgentMessageKind } from '../../../ports/store-rows/agent.rows.ts';

export type AgentSettingsTable = AgentSettingsRow;
export type AgentConversationsTable = Stored<AgentConversationsRow, 'event_seq' | 'run_count' | 'context_json' | 'context_version'>;
export type AgentMessagesTable = AgentMessagesRow;
export type AgentRunsTable = Stored<AgentRunsRow, 'wake_seq' | 'model_attempt' | 'overrides_json' | 'settled_micro' | 'committed_micro' | 'budget_version' | 'steer_json' | 'step_count' | 'revision'>;
export type AgentStepsTable = Stored<AgentStepsRow, 'cost_micro'>;
export type AgentOperationsTable = Stored<AgentOperationsRow, 'cost_micro'>;
export type AgentPendingActionsTable = AgentPendingActionsRow;
export type AgentEventsTable = AgentEventsRow;
export type AgentArtifactsTable = AgentArtifactsRow;
export type AgentAttachmentsTable = AgentAttachmentsRow;
export type AgentWebhooksTable = AgentWebhooksRow;
export type ChatRouteCapabilitiesTable = ChatRouteCapabilitiesRow;

export interface AgentTables {
  agent_settings: AgentSettingsTable;
  agent_conversations: AgentConversationsTable;
  agent_messages: AgentMessagesTable;
  agent_runs: AgentRunsTable;
  agent_steps: AgentStepsTable;
  agent_operations: AgentOperationsTable;
  agent_pending_actions: AgentPendingActionsTable;
  agent_events: AgentEventsTable;
  agent_artifacts: AgentArtifactsTable;
  agent_attachments: AgentAttachmentsTable;
  agent_webhooks: AgentWebhooksTable;
  chat_route_capabilities: ChatRouteCapabilitiesTable;
}
