/** The foundation tables as Kysely sees them: the rows of ports/store-rows/foundation.rows.ts, with the columns the database fills. */
import type { ApiKeySpendRow, ApiKeysRow, IdempotencyRecordsRow, LedgerEntriesRow, SchemaMigrationsRow, UsersRow } from '../../../ports/store-rows/foundation.rows.ts';

export type UsersTable = UsersRow;
export type ApiKeysTable = ApiKeysRow;
export type ApiKeySpendTable = ApiKeySpendRow;
export type LedgerEntriesTable = LedgerEntriesRow;
export type IdempotencyRecordsTable = IdempotencyRecordsRow;
export type SchemaMigrationsTable = SchemaMigrationsRow;

export interface FoundationTables {
  users: UsersTable;
  api_keys: ApiKeysTable;
  api_key_spend: ApiKeySpendTable;
  ledger_entries: LedgerEntriesTable;
  idempotency_records: IdempotencyRecordsTable;
  schema_migrations: SchemaMigrationsTable;
}
