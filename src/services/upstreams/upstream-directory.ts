/**
 * The upstreams this process serves now (issue 32, item 4): the config file's providers, routes and
 * model settings with the live ones of the store laid over them, name by name. Every process keeps
 * its own copy and learns of a change by the bus (`upstreams.changed`, within milliseconds) and by
 * polling the store's revision (every `pollMs`, 2 s by default), so a lost message delays a change by
 * one poll at most: every API and worker process serves it within 5 s.
 *
 * Reads are synchronous and never touch the store: routing asks on every request.
 */
import type { Logger } from 'pino';
import type { Config, ProviderConfig, RouteTarget } from '../../config/config.types.ts';
import type { ModelOverride } from '../../domain/catalog/catalog-overrides.ts';
import { FILE_KEY_ID, type UpstreamKey, type UpstreamProvider, type UpstreamRouteEntry } from '../../domain/upstreams/live-upstreams.ts';
import { secretHint } from '../../domain/upstreams/secret-hint.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import type { LiveUpstreamRows, UpstreamSettingsStore } from '../../ports/upstream-settings-store.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import { openOptions } from './secret-options.ts';
import type { ServedModelSetting, ServedRoute, UpstreamView } from './upstream-view.ts';

/** The bus topic of a committed change; the payload is the store's revision after it. */
export const UPSTREAMS_CHANGED_TOPIC = 'upstreams.changed';

/** What the directory needs of the secret box: opening what the admin API sealed. */
export interface SecretOpener {
  open(sealed: string): string;
}

export interface UpstreamDirectoryDeps {
  file: Pick<Config, 'providers' | 'routes' | 'models'>;
  /** The live settings; absent: the config file alone is served (the CLI, and until the admin API writes them). */
  live?: { store: UpstreamSettingsStore; uow: UnitOfWork; secrets: SecretOpener; bus: EventBus };
  logger: Logger;
  pollMs?: number;
}

/** What changed in one reload, for the parts that keep something built from the old state. */
export interface UpstreamChange {
  /** Providers added, removed or changed in any way (keys included). */
  providers: Set<string>;
  /** Models whose route or setting changed. */
  routes: Set<string>;
  models: Set<string>;
}

type ChangeListener = (change: UpstreamChange) => void;

export class UpstreamDirectory implements UpstreamView {
  readonly #deps: UpstreamDirectoryDeps;
  readonly #fileProviders: Map<string, UpstreamProvider>;
  #providers: Map<string, UpstreamProvider>;
  #routes: Map<string, ServedRoute>;
  #targets = new Map<string, RouteTarget[]>();
  #models: Map<string, ServedModelSetting>;
  #revision = -1;
  #listeners: ChangeListener[] = [];
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #reloading: Promise<void> | undefined;
  #again = false;

  constructor(deps: UpstreamDirectoryDeps) {
    this.#deps = deps;
    this.#fileProviders = new Map(Object.entries(deps.file.providers).map(([name, p]) => [name, fileProvider(name, p)]));
    this.#providers = new Map(this.#fileProviders);
    this.#routes = fileRoutes(deps.file.routes);
    this.#models = fileModels(deps.file.models);
    this.#rebuildTargets();
  }

  /** Loads the live settings and starts following changes. */
  async start(): Promise<void> {
    const live = this.#deps.live;
    if (!live) return;
    await this.reload();
    this.#unsubscribe = await live.bus.subscribe(UPSTREAMS_CHANGED_TOPIC, (payload) => {
      if (Number(payload) !== this.#revision) void this.reload();
    });
    this.#timer = setInterval(() => void this.#poll(), this.#deps.pollMs ?? 2_000);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#reloading;
  }

  /** Called with what changed after each reload that changed something. */
  onChange(listener: ChangeListener): void {
    this.#listeners.push(listener);
  }

  get revision(): number {
    return this.#revision;
  }

  providers(): UpstreamProvider[] {
    return [...this.#providers.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  provider(name: string): UpstreamProvider | undefined {
    return this.#providers.get(name);
  }

  fileProvider(name: string): UpstreamProvider | undefined {
    return this.#fileProviders.get(name);
  }

  routes(): ServedRoute[] {
    return [...this.#routes.values()].sort((a, b) => a.modelId.localeCompare(b.modelId));
  }

  route(modelId: string): ServedRoute | undefined {
    return this.#routes.get(modelId);
  }

  /** A model's route entries as routing takes them (the upstream model filled in); undefined: none of its own. */
  targets(modelId: string): RouteTarget[] | undefined {
    return this.#targets.get(modelId);
  }

  /** Every model's route entries as routing takes them. */
  allTargets(): ReadonlyMap<string, RouteTarget[]> {
    return this.#targets;
  }

  modelSettings(): ServedModelSetting[] {
    return [...this.#models.values()].sort((a, b) => a.modelId.localeCompare(b.modelId));
  }

  modelSetting(modelId: string): ServedModelSetting | undefined {
    return this.#models.get(modelId);
  }

  fileModelOverrides(): Record<string, ModelOverride> {
    return { ...this.#deps.file.models };
  }

  modelOverrides(): Record<string, ModelOverride> {
    return Object.fromEntries([...this.#models.values()].map((m) => [m.modelId, m.override]));
  }

  async changed(): Promise<void> {
    await this.reload();
    await this.#deps.live?.bus.publish(UPSTREAMS_CHANGED_TOPIC, String(this.#revision));
  }

  /** Reads the store again; concurrent calls share one read, and a call during a read causes one more. */
  async reload(): Promise<void> {
    const live = this.#deps.live;
    if (!live) return;
    if (this.#reloading) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      try {
        do {
          this.#again = false;
          const rows = await live.uow.transaction((tx) => live.store.loadAll(tx));
          this.#apply(rows);
        } while (this.#again);
      } finally {
        this.#reloading = undefined;
      }
    })();
    return this.#reloading;
  }

  async #poll(): Promise<void> {
    const live = this.#deps.live;
    if (!live) return;
    try {
      const revision = await live.store.revision(live.uow.direct);
      if (revision !== this.#revision) await this.reload();
    } catch (error) {
      this.#deps.logger.warn({ err: error }, 'could not read the live upstream settings; serving the last ones read');
    }
  }

  #apply(rows: LiveUpstreamRows): void {
    if (rows.revision === this.#revision) return;
    const secrets = this.#deps.live?.secrets;
    const providers = new Map(this.#fileProviders);
    for (const row of rows.providers) {
      const keys: UpstreamKey[] = rows.keys
        .filter((k) => k.provider === row.name)
        .sort((a, b) => a.created_at - b.created_at || a.id.localeCompare(b.id))
        .map((k) => {
          let secret: string | undefined;
          try {
            secret = secrets?.open(k.secret_sealed);
          } catch (error) {
            // The message names the key, never its secret; the key is served as disabled.
            this.#deps.logger.error({ provider: row.name, keyId: k.id, err: error instanceof Error ? error.message : String(error) }, 'an upstream key could not be opened (SWITCHBOARD_SECRET_KEY differs from the one it was sealed with?); it is not used');
          }
          return { id: k.id, label: k.label, weight: k.weight, enabled: k.enabled === 1 && secret !== undefined, hint: k.hint, secret };
        });
      let options: Record<string, unknown> | undefined;
      try {
        options = secrets ? openOptions(parseJsonObject(row.options_json), secrets) : parseJsonObject(row.options_json);
      } catch (error) {
        this.#deps.logger.error({ provider: row.name, err: error instanceof Error ? error.message : String(error) }, 'a secret option of an upstream provider could not be opened; the provider is served switched off');
      }
      providers.set(row.name, {
        name: row.name,
        type: row.type,
        baseUrl: row.base_url ?? undefined,
        timeoutMs: row.timeout_ms,
        concurrency: row.concurrency,
        options: options ?? {},
        enabled: row.enabled === 1 && options !== undefined,
        keys: keys.length > 0 ? keys : [keylessKey()],
        source: 'live',
        version: row.version,
      });
    }
    const routes = fileRoutes(this.#deps.file.routes);
    for (const row of rows.routes) {
      routes.set(row.model_id, { modelId: row.model_id, entries: parseJsonArray(row.entries_json) as UpstreamRouteEntry[], source: 'live', version: row.version });
    }
    const models = fileModels(this.#deps.file.models);
    for (const row of rows.models) {
      models.set(row.model_id, { modelId: row.model_id, override: parseJsonObject(row.override_json) as ModelOverride, source: 'live', version: row.version });
    }
    const change: UpstreamChange = {
      providers: changedKeys(this.#providers, providers),
      routes: changedKeys(this.#routes, routes),
      models: changedKeys(this.#models, models),
    };
    this.#providers = providers;
    this.#routes = routes;
    this.#models = models;
    this.#revision = rows.revision;
    this.#rebuildTargets();
    if (change.providers.size + change.routes.size + change.models.size === 0) return;
    for (const listener of this.#listeners) {
      try {
        listener(change);
      } catch (error) {
        this.#deps.logger.error({ err: error }, 'applying a live upstream change failed');
      }
    }
  }

  #rebuildTargets(): void {
    const targets = new Map<string, RouteTarget[]>();
    for (const route of this.#routes.values()) {
      targets.set(
        route.modelId,
        route.entries.map((e) => {
          const target: RouteTarget = { provider: e.provider, model: e.model ?? route.modelId };
          if (e.priority !== undefined) target.priority = e.priority;
          if (e.weight !== undefined) target.weight = e.weight;
          if (e.cost !== undefined) target.cost = e.cost;
          if (e.allowLoss !== undefined) target.allowLoss = e.allowLoss;
          return target;
        }),
      );
    }
    this.#targets = targets;
  }
}

/** The config file's provider as served: its `apiKey` is its one key, `file`. */
function fileProvider(name: string, p: ProviderConfig): UpstreamProvider {
  return {
    name,
    type: p.type,
    baseUrl: p.baseUrl,
    timeoutMs: p.timeoutMs,
    concurrency: p.concurrency,
    options: p.options,
    enabled: true,
    keys: [p.apiKey === undefined ? keylessKey() : { id: FILE_KEY_ID, label: null, weight: 1, enabled: true, hint: secretHint(p.apiKey), secret: p.apiKey }],
    source: 'file',
    version: null,
  };
}

function keylessKey(): UpstreamKey {
  return { id: FILE_KEY_ID, label: null, weight: 1, enabled: true, hint: '', secret: undefined };
}

function fileRoutes(routes: Record<string, RouteTarget[]>): Map<string, ServedRoute> {
  return new Map(
    Object.entries(routes).map(([modelId, targets]) => [
      modelId,
      { modelId, entries: targets.map((t) => ({ ...t })), source: 'file' as const, version: null },
    ]),
  );
}

function fileModels(models: Record<string, ModelOverride>): Map<string, ServedModelSetting> {
  return new Map(Object.entries(models).map(([modelId, override]) => [modelId, { modelId, override, source: 'file' as const, version: null }]));
}

/** The names whose value differs (by its JSON, secrets included) between two states. */
function changedKeys<T>(before: Map<string, T>, after: Map<string, T>): Set<string> {
  const changed = new Set<string>();
  for (const [name, value] of after) {
    const old = before.get(name);
    if (old === undefined || JSON.stringify(old) !== JSON.stringify(value)) changed.add(name);
  }
  for (const name of before.keys()) if (!after.has(name)) changed.add(name);
  return changed;
}

function parseJsonObject(text: string): Record<string, unknown> {
  const value: unknown = JSON.parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

function parseJsonArray(text: string): unknown[] {
  const value: unknown = JSON.parse(text);
  return Array.isArray(value) ? value : [];
}
