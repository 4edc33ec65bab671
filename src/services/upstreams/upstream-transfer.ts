/**
 * The live upstream settings as a file (issue 32, item 4): exported in the config file's shape
 * (`providers`, `routes`, `models` keyed by name) with every secret out (keys as hints, secret options
 * masked), and imported back as the whole live state in one transaction. An imported key names either
 * a new `secret` or the `id` of a key stored here already, whose sealed secret is kept; a key known
 * only by its hint cannot be brought back and is reported, not invented.
 */
import { ConfigReader } from '../../config/config-reader.ts';
import type { RouteTarget } from '../../config/config.types.ts';
import { PROVIDER_NAME, parseModelOverride, parseRouteList } from '../../config/upstream-config.ts';
import type { ModelOverride } from '../../domain/catalog/catalog-overrides.ts';
import { ConfigError } from '../../domain/config-error.ts';
import type { LiveUpstreamRows } from '../../ports/upstream-settings-store.port.ts';
import { isSecretOption, maskOptions } from './secret-options.ts';
import { checked, type KeyInput, keyInputsOf, providerFieldsOf } from './upstream-settings-input.ts';
import { parseObject, providerRecord } from './upstream-records.ts';

export const EXPORT_FORMAT = 'switchboard.upstreams';

export interface UpstreamExport {
  format: typeof EXPORT_FORMAT;
  version: 1;
  exportedAt: string;
  providers: Record<string, unknown>;
  routes: Record<string, unknown>;
  models: Record<string, unknown>;
}

export interface ImportedProvider {
  name: string;
  fields: ReturnType<typeof providerFieldsOf>;
  /** As given: masked values are recognised against the stored ones by the caller. */
  options: Record<string, unknown>;
  keys: KeyInput[] | undefined;
}

export interface ImportPlan {
  providers: ImportedProvider[];
  routes: Array<{ modelId: string; entries: RouteTarget[] }>;
  models: Array<{ modelId: string; override: ModelOverride }>;
}

export function exportOf(rows: LiveUpstreamRows, now: number): UpstreamExport {
  const providers: Record<string, unknown> = {};
  for (const row of rows.providers) {
    const { name: _name, ...record } = providerRecord(row, rows.keys.filter((k) => k.provider === row.name));
    providers[row.name] = record;
  }
  return {
    format: EXPORT_FORMAT,
    version: 1,
    exportedAt: new Date(now).toISOString(),
    providers,
    routes: Object.fromEntries(rows.routes.map((r) => [r.model_id, JSON.parse(r.entries_json) as unknown])),
    models: Object.fromEntries(rows.models.map((m) => [m.model_id, JSON.parse(m.override_json) as unknown])),
  };
}

export interface ImportChecks {
  isKnownType(type: string): boolean;
  knownTypes(): string[];
  isModel(id: string): boolean;
  /** Providers of the config file (an imported route may name them). */
  fileProviders: ReadonlySet<string>;
}

/** Reads and checks a whole file before anything is written; a refusal names the field as `providers.x.type`. */
export function importPlanOf(doc: unknown, checks: ImportChecks): ImportPlan {
  return checked(() => {
    const r = new ConfigReader(doc, '');
    r.onlyKeys(['format', 'version', 'exportedAt', 'providers', 'routes', 'models']);
    if (r.string('format') !== undefined && r.string('format') !== EXPORT_FORMAT) throw new ConfigError('format', `must be ${EXPORT_FORMAT}`);
    const version = r.number('version', { integer: true });
    if (version !== undefined && version !== 1) throw new ConfigError('version', 'must be 1');
    const providersSection = r.object('providers');
    const providers: ImportedProvider[] = [];
    for (const name of providersSection?.keys() ?? []) {
      if (!PROVIDER_NAME.test(name)) throw new ConfigError(`providers.${name}`, 'is not a provider name (lowercase letters, digits, _ or -)');
      const p = providersSection?.object(name) as ConfigReader;
      p.onlyKeys(['type', 'baseUrl', 'timeoutMs', 'concurrency', 'options', 'enabled', 'keys']);
      const fields = providerFieldsOf(p, checks.isKnownType, checks.knownTypes);
      providers.push({ name, fields, options: fields.options, keys: p.has('keys') ? keyInputsOf(p.raw('keys'), p.field('keys')) : undefined });
    }
    if (providers.length > 500) throw new ConfigError('providers', 'may hold at most 500 providers');
    const names = new Set([...checks.fileProviders, ...providers.map((p) => p.name)]);
    const routesSection = r.object('routes');
    const routes = (routesSection?.keys() ?? []).map((modelId) => {
      if (!checks.isModel(modelId)) throw new ConfigError(`routes.${modelId}`, 'is not a model of the catalog');
      return { modelId, entries: parseRouteList(routesSection?.raw(modelId), `routes.${modelId}`, modelId, (name) => names.has(name)) };
    });
    const modelsSection = r.object('models');
    const models = (modelsSection?.keys() ?? []).map((modelId) => {
      if (!checks.isModel(modelId)) throw new ConfigError(`models.${modelId}`, 'is not a model of the catalog');
      return { modelId, override: parseModelOverride(modelsSection?.object(modelId) as ConfigReader) };
    });
    return { providers, routes, models };
  });
}

/** True when the imported options are the stored ones as exported (their secrets masked): keep the stored ones. */
export function sameAsExported(imported: Record<string, unknown>, storedJson: string): boolean {
  return JSON.stringify(imported) === JSON.stringify(maskOptions(parseObject(storedJson)));
}

/** A secret option given as its mask (`…`) but not the stored options as exported: its secret is not in the file. */
export function maskedSecretOption(options: Record<string, unknown>): string | undefined {
  return Object.keys(options).find((name) => isSecretOption(name) && JSON.stringify(options[name]).includes('…'));
}
