/**
 * Stored upstream settings as the operator reads them, in the audit log and in an export: secrets
 * only as hints (keys and secret options alike), never the sealed value either.
 */
import type { ModelOverride } from '../../domain/catalog/catalog-overrides.ts';
import type { UpstreamRouteEntry } from '../../domain/upstreams/live-upstreams.ts';
import type { ModelSettingsRow, UpstreamKeysRow, UpstreamProvidersRow, UpstreamRoutesRow } from '../../ports/store-rows/upstreams.rows.ts';
import { maskOptions } from './secret-options.ts';

export interface KeyRecord {
  id: string;
  hint: string;
  label: string | null;
  weight: number;
  enabled: boolean;
}

export interface ProviderRecord {
  name: string;
  type: string;
  baseUrl: string | null;
  timeoutMs: number;
  concurrency: number;
  options: Record<string, unknown>;
  enabled: boolean;
  keys: KeyRecord[];
}

export function keyRecord(row: UpstreamKeysRow): KeyRecord {
  return { id: row.id, hint: row.hint, label: row.label, weight: row.weight, enabled: row.enabled === 1 };
}

export function providerRecord(row: UpstreamProvidersRow, keys: UpstreamKeysRow[]): ProviderRecord {
  return {
    name: row.name,
    type: row.type,
    baseUrl: row.base_url,
    timeoutMs: row.timeout_ms,
    concurrency: row.concurrency,
    options: maskOptions(parseObject(row.options_json)),
    enabled: row.enabled === 1,
    keys: keys.map(keyRecord),
  };
}

export function routeRecord(row: UpstreamRoutesRow): { modelId: string; entries: UpstreamRouteEntry[] } {
  return { modelId: row.model_id, entries: JSON.parse(row.entries_json) as UpstreamRouteEntry[] };
}

export function modelRecord(row: ModelSettingsRow): { modelId: string } & ModelOverride {
  return { modelId: row.model_id, ...(JSON.parse(row.override_json) as ModelOverride) };
}

export function parseObject(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
