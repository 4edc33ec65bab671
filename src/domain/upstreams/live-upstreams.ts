/**
 * The upstreams as every process serves them at this moment (issue 32): the config file's providers
 * and routes with the live settings of the store laid over them, name by name (a provider, route or
 * model setting stored live replaces the file's of the same name; deleting it brings the file's back).
 */
import type { RouteCost } from '../routing/route-cost.ts';

/** One upstream key of a provider. The secret lives in memory only, opened from its sealed form. */
export interface UpstreamKey {
  /** `file` for the config file's `apiKey`; `upk_…` for a key added live. */
  id: string;
  label: string | null;
  /** Share of first picks among the provider's usable keys. */
  weight: number;
  enabled: boolean;
  /** What the operator sees of the secret (`sk-…abcd`); '' for a provider without a key. */
  hint: string;
  /** Undefined for a style that needs none (`local`). Never logged, never answered, never exported. */
  secret: string | undefined;
}

export interface UpstreamProvider {
  name: string;
  type: string;
  baseUrl: string | undefined;
  timeoutMs: number;
  concurrency: number;
  options: Record<string, unknown>;
  /** False: every route skips it. */
  enabled: boolean;
  /** Never empty: a provider without any key has one keyless entry (id `file`). */
  keys: UpstreamKey[];
  /** Where it comes from: the config file, or the store (changed through the admin API). */
  source: 'file' | 'live';
  /** The live setting's version (what `expectedVersion` must name); null for the file's. */
  version: number | null;
}

/** A route entry as the store and the admin API hold it (the config file's shape). */
export interface UpstreamRouteEntry {
  provider: string;
  model?: string;
  priority?: number;
  weight?: number;
  cost?: RouteCost;
  allowLoss?: boolean;
}

/** The id of the config file's key of a provider. */
export const FILE_KEY_ID = 'file';
