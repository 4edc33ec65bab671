/** The media tables as Kysely sees them: the rows of ports/store-rows/media.rows.ts, with the columns the database fills. */
import type { StoredFilesRow, TaskAttemptsRow, TasksRow, WebhookAttemptsRow, WebhookDeliveriesRow } from '../../../ports/store-rows/media.rows.ts';

export type TasksTable = TasksRow;
export type TaskAttemptsTable = TaskAttemptsRow;
export type StoredFilesTable = StoredFilesRow;
export type WebhookDeliveriesTable = WebhookDeliveriesRow;
export type WebhookAttemptsTable = WebhookAttemptsRow;

export interface MediaTables {
  tasks: TasksTable;
  task_attempts: TaskAttemptsTable;
  stored_files: StoredFilesTable;
  webhook_deliveries: WebhookDeliveriesTable;
  webhook_attempts: WebhookAttemptsTable;
}
