/** The live upstream settings' tables as Kysely sees them (migration 036): the rows of ports/store-rows/upstreams.rows.ts, plus the revision row. */
import type { ModelSettingsRow, UpstreamAuditRow, UpstreamKeysRow, UpstreamProvidersRow, UpstreamRoutesRow } from '../../../ports/store-rows/upstreams.rows.ts';

export type UpstreamProvidersTable = UpstreamProvidersRow;
export type UpstreamKeysTable = UpstreamKeysRow;
export type UpstreamRoutesTable = UpstreamRoutesRow;
export type ModelSettingsTable = ModelSettingsRow;
export type UpstreamAuditTable = UpstreamAuditRow;

/** The one row (id 1) every change bumps; no port row, since the port hands out only the number. */
export interface UpstreamSettingsRevisionTable {
  id: number;
  revision: number;
}

export interface UpstreamTables {
  upstream_providers: UpstreamProvidersTable;
  upstream_keys: UpstreamKeysTable;
  upstream_routes: UpstreamRoutesTable;
  model_settings: ModelSettingsTable;
  upstream_audit: UpstreamAuditTable;
  upstream_settings_revision: UpstreamSettingsRevisionTable;
}
