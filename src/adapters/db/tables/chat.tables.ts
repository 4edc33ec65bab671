/** The chat tables as Kysely sees them: the rows of ports/store-rows/chat.rows.ts, with the columns the database fills. */
import type { Stored } from './stored.ts';
import type { ChatHoldsRow, ChatRequestsRow, UpstreamAnomaliesRow } from '../../../ports/store-rows/chat.rows.ts';

export type ChatRequestsTable = Stored<ChatRequestsRow, 'last_seen_at' | 'attempts' | 'uncollected_micro'>;
export type ChatHoldsTable = ChatHoldsRow;
export type UpstreamAnomaliesTable = UpstreamAnomaliesRow;

export interface ChatTables {
  chat_requests: ChatRequestsTable;
  chat_holds: ChatHoldsTable;
  upstream_anomalies: UpstreamAnomaliesTable;
}
