/**
 * GET and PUT /agent/settings: the user's agent defaults on a storefront, versioned. Version 0 means
 * "never saved" (the built-in defaults); a save names the version it read (expectedVersion) and a
 * stale one is refused with 409, so two tabs cannot overwrite each other silently.
 */
import {
  type AgentSettings,
  defaultAgentSettings,
  mergeSettings,
  type PartialAgentSettings,
  parseSettings,
  withAvailableModels,
} from '../../../domain/agent/agent-settings.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import type { AgentLibraryStore } from '../../../ports/agent-library-store.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';
import type { RouteCapabilities } from './route-capabilities.service.ts';

export interface SettingsView {
  version: number;
  settings: AgentSettings;
  updatedAt: string | null;
}

export class AgentSettingsService {
  readonly #store: AgentLibraryStore;
  readonly #uow: UnitOfWork;
  readonly #catalog: Catalog;
  readonly #capabilities: RouteCapabilities;

  constructor(deps: { store: AgentLibraryStore; uow: UnitOfWork; catalog: Catalog; capabilities: RouteCapabilities }) {
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#catalog = deps.catalog;
    this.#capabilities = deps.capabilities;
  }

  async get(caller: AgentCaller): Promise<SettingsView> {
    const owner = ownerOf(caller);
    const row = await this.#store.findSettings(this.#uow.direct, owner);
    const defaults = defaultAgentSettings(this.#catalog);
    if (!row) return { version: 0, settings: defaults, updatedAt: null };
    const saved = JSON.parse(row.settings_json) as PartialAgentSettings;
    return { version: row.version, settings: withAvailableModels(this.#catalog, mergeSettings(defaults, saved)), updatedAt: new Date(Number(row.updated_at)).toISOString() };
  }

  /** Fields the body omits keep their current values. */
  async put(caller: AgentCaller, body: unknown): Promise<SettingsView> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be {expectedVersion, settings}', 'body');
    const fields = body as Record<string, unknown>;
    for (const key of Object.keys(fields)) if (key !== 'expectedVersion' && key !== 'settings') throw invalidInput(`unknown field ${key}; allowed: expectedVersion, settings`, key);
    const expected = fields.expectedVersion;
    if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 0) {
      throw invalidInput('expectedVersion is required: 0 before the first save, otherwise the version from GET /agent/settings', 'expectedVersion');
    }
    if (fields.settings === undefined) throw invalidInput('settings is required', 'settings');
    const given = parseSettings(this.#catalog, fields.settings, 'settings');
    await this.#checkOrchestrators(given);
    const current = await this.get(caller);
    if (current.version !== expected) throw staleSettings(current.version);
    const next = mergeSettings(current.settings, given);
    const owner = ownerOf(caller);
    const version = await this.#store.saveSettings(this.#uow.direct, owner, expected, JSON.stringify(next), Date.now());
    if (version === undefined) throw staleSettings((await this.get(caller)).version);
    return { version, settings: next, updatedAt: new Date().toISOString() };
  }

  /**
   * The user's settings on this storefront with the layers on top, later ones winning (a run's
   * snapshot: project defaults, then the conversation's overrides; rule 9).
   */
  async effective(caller: AgentCaller, ...layers: PartialAgentSettings[]): Promise<AgentSettings> {
    const { settings } = await this.get(caller);
    return withAvailableModels(this.#catalog, mergeSettings(settings, ...layers));
  }

  /** An orchestrator whose every route was verified to have no tool calling is refused (rule 10 is for manual picks). */
  async #checkOrchestrators(given: PartialAgentSettings): Promise<void> {
    const check = async (id: string | undefined, field: string) => {
      if (id === undefined) return;
      const verdict = await this.#capabilities.modelVerdict(id, 'tools');
      if (verdict === 'failed') throw invalidInput(`${field}: ${id} has no route with verified tool calling, which the orchestrator needs (see GET /api/v1/agent/models)`, field);
    };
    await check(given.orchestratorModelId, 'settings.orchestratorModelId');
    for (const [i, id] of (given.fallbackModelIds ?? []).entries()) await check(id, `settings.fallbackModelIds[${i}]`);
  }
}

function staleSettings(current: number): AppError {
  return new AppError('version_conflict', `expectedVersion is stale: the settings are at version ${current}; GET them again and retry`, { param: 'expectedVersion' });
}
