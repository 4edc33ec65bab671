/**
 * What the admin API and the console read of the upstreams every process serves now (the directory,
 * upstream-directory.ts, implements it): the config file with the live settings laid over it.
 */
import type { ModelOverride } from '../../domain/catalog/catalog-overrides.ts';
import type { UpstreamProvider, UpstreamRouteEntry } from '../../domain/upstreams/live-upstreams.ts';

export interface ServedRoute {
  modelId: string;
  entries: UpstreamRouteEntry[];
  source: 'file' | 'live';
  /** The live setting's version; null for the file's. */
  version: number | null;
}

export interface ServedModelSetting {
  modelId: string;
  override: ModelOverride;
  source: 'file' | 'live';
  version: number | null;
}

export interface UpstreamView {
  /** Every provider served, the built-in `local` among them, sorted by name. */
  providers(): UpstreamProvider[];
  provider(name: string): UpstreamProvider | undefined;
  /** The config file's provider of that name, if any (what a DELETE of the live one brings back). */
  fileProvider(name: string): UpstreamProvider | undefined;
  /** Every model with a route of its own (file or live), sorted by id. */
  routes(): ServedRoute[];
  route(modelId: string): ServedRoute | undefined;
  /** Every model with a setting of its own (file or live). */
  modelSettings(): ServedModelSetting[];
  modelSetting(modelId: string): ServedModelSetting | undefined;
  /** The config file's model settings (what a deleted live setting gives way to). */
  fileModelOverrides(): Record<string, ModelOverride>;
  /** The model overrides the catalog is built with now (file and live merged), for validating a change. */
  modelOverrides(): Record<string, ModelOverride>;
  /**
   * After this process committed a change: re-reads the store so that this process serves it at once,
   * and tells the other processes (the bus; they also poll the store's revision).
   */
  changed(): Promise<void>;
}
