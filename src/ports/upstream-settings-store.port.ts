/**
 * The live upstream settings in the store (issue 32, item 4). Every write names the version it read
 * (`expectedVersion`; undefined: the setting must not exist yet, or the caller does not care when
 * `force` is set by an import) and bumps the store's revision, which every process polls to learn of
 * changes it missed on the bus.
 */
import type { StoreTransaction } from './store-transaction.port.ts';
import type { ModelSettingsRow, UpstreamAuditRow, UpstreamKeysRow, UpstreamProvidersRow, UpstreamRoutesRow } from './store-rows/upstreams.rows.ts';

export interface LiveUpstreamRows {
  providers: UpstreamProvidersRow[];
  keys: UpstreamKeysRow[];
  routes: UpstreamRoutesRow[];
  models: ModelSettingsRow[];
  revision: number;
}

export interface UpstreamSettingsStore {
  /** Everything live, read in one snapshot. */
  loadAll(tx: StoreTransaction): Promise<LiveUpstreamRows>;
  /** A number that grows with every change; cheap (one row). */
  revision(tx: StoreTransaction): Promise<number>;
  /** Bumps the revision (inside the change's transaction) and returns the new one. */
  bumpRevision(tx: StoreTransaction): Promise<number>;

  provider(tx: StoreTransaction, name: string): Promise<UpstreamProvidersRow | undefined>;
  /** Inserts or replaces; false when the stored version is not `expectedVersion` (undefined: must be absent). */
  putProvider(tx: StoreTransaction, row: UpstreamProvidersRow, expectedVersion: number | undefined): Promise<boolean>;
  /** Deletes the provider and its keys; false when the version differs or it is absent. */
  deleteProvider(tx: StoreTransaction, name: string, expectedVersion: number | undefined): Promise<boolean>;

  keys(tx: StoreTransaction, provider: string): Promise<UpstreamKeysRow[]>;
  insertKey(tx: StoreTransaction, row: UpstreamKeysRow): Promise<void>;
  updateKey(tx: StoreTransaction, provider: string, id: string, change: Partial<Pick<UpstreamKeysRow, 'label' | 'weight' | 'enabled' | 'secret_sealed' | 'hint' | 'updated_at'>>): Promise<boolean>;
  deleteKey(tx: StoreTransaction, provider: string, id: string): Promise<boolean>;

  route(tx: StoreTransaction, modelId: string): Promise<UpstreamRoutesRow | undefined>;
  putRoute(tx: StoreTransaction, row: UpstreamRoutesRow, expectedVersion: number | undefined): Promise<boolean>;
  deleteRoute(tx: StoreTransaction, modelId: string, expectedVersion: number | undefined): Promise<boolean>;

  modelSetting(tx: StoreTransaction, modelId: string): Promise<ModelSettingsRow | undefined>;
  putModelSetting(tx: StoreTransaction, row: ModelSettingsRow, expectedVersion: number | undefined): Promise<boolean>;
  deleteModelSetting(tx: StoreTransaction, modelId: string, expectedVersion: number | undefined): Promise<boolean>;

  appendAudit(tx: StoreTransaction, row: UpstreamAuditRow): Promise<void>;
  /** Newest first; `before` is the id of the last row of the previous page. */
  auditPage(tx: StoreTransaction, limit: number, before: string | undefined): Promise<UpstreamAuditRow[]>;
}
