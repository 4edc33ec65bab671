/**
 * Live changes to the upstreams (issue 32, item 4): providers and their key pools, routes and model
 * settings, written to the store in one transaction each with the version guard, the revision bump
 * and an audit row, then announced so that every process serves the change (upstream-directory.ts).
 *
 * A provider of the config file is copied into the store the first time it is changed here (its file
 * key sealed and kept under the id `file`); from then on the stored one wins, until it is deleted,
 * which brings the file's back. Secrets are sealed before they reach the store and leave it only as
 * hints.
 */
import type { RouteTarget } from '../../config/config.types.ts';
import { parseModelOverride, parseRouteList } from '../../config/upstream-config.ts';
import type { ModelOverride } from '../../domain/catalog/catalog-overrides.ts';
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import { keySubject } from '../../domain/upstreams/health-subjects.ts';
import { FILE_KEY_ID, type UpstreamProvider } from '../../domain/upstreams/live-upstreams.ts';
import { secretHint } from '../../domain/upstreams/secret-hint.ts';
import { type SecretBox, SecretBoxError } from '../../ports/secret-box.port.ts';
import type { ModelSettingsRow, UpstreamAuditRow, UpstreamKeysRow, UpstreamProvidersRow } from '../../ports/store-rows/upstreams.rows.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { UpstreamHealthBoard } from '../../ports/upstream-health.port.ts';
import type { UpstreamSettingsStore } from '../../ports/upstream-settings-store.port.ts';
import { sealOptions } from './secret-options.ts';
import {
  checked,
  checkProviderName,
  expectedVersionOf,
  type KeyInput,
  keyInputsOf,
  keySettingsOf,
  MAX_KEYS_PER_PROVIDER,
  providerFieldsOf,
  readerOf,
  secretOf,
} from './upstream-settings-input.ts';
import { modelRecord, parseObject, providerRecord, routeRecord } from './upstream-records.ts';
import { exportOf, importPlanOf, maskedSecretOption, sameAsExported, type UpstreamExport } from './upstream-transfer.ts';
import type { UpstreamView } from './upstream-view.ts';

export interface UpstreamSettingsDeps {
  store: UpstreamSettingsStore;
  uow: UnitOfWork;
  secrets: SecretBox;
  directory: UpstreamView;
  board: UpstreamHealthBoard;
  isKnownType(type: string): boolean;
  knownTypes(): string[];
  /** True for a model of the catalog (hidden ones included). */
  isModel(id: string): boolean;
  /** Throws ConfigError when the catalog cannot be built with these model settings. */
  checkModelSettings(overrides: Record<string, ModelOverride>): void;
  now?: () => number;
}

const PROVIDER_FIELDS = ['type', 'baseUrl', 'timeoutMs', 'concurrency', 'options', 'enabled', 'keys', 'expectedVersion'] as const;
const PATCH_FIELDS = ['type', 'baseUrl', 'timeoutMs', 'concurrency', 'options', 'enabled', 'expectedVersion'] as const;

function versionConflict(what: string, expected: number | undefined, actual: number | undefined): AppError {
  return new AppError('version_conflict', `${what} is at version ${actual ?? 0}, not ${expected ?? 0}: read it again and repeat the change on what you read`);
}

export class UpstreamSettingsService {
  readonly #deps: UpstreamSettingsDeps;
  readonly #now: () => number;

  constructor(deps: UpstreamSettingsDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  /** Creates or replaces a provider; `keys` absent keeps the keys it has (the file's key for a file provider). */
  async putProvider(name: string, body: unknown, actor: string): Promise<UpstreamProvider> {
    checkProviderName(name);
    const r = readerOf(body);
    checked(() => r.onlyKeys(PROVIDER_FIELDS));
    const fields = providerFieldsOf(r, (t) => this.#deps.isKnownType(t), () => this.#deps.knownTypes());
    const expected = expectedVersionOf(r);
    const keyInputs = r.has('keys') ? keyInputsOf(r.raw('keys'), 'keys') : undefined;
    const options = this.#seal(() => sealOptions(fields.options, this.#deps.secrets));
    await this.#write(async (tx, now) => {
      const current = await this.#deps.store.provider(tx, name);
      if (expected !== undefined && (current?.version ?? 0) !== expected) throw versionConflict(`provider ${name}`, expected, current?.version);
      const currentKeys = current ? await this.#deps.store.keys(tx, name) : [];
      const row: UpstreamProvidersRow = {
        name,
        type: fields.type,
        base_url: fields.baseUrl ?? null,
        timeout_ms: fields.timeoutMs,
        concurrency: fields.concurrency,
        options_json: JSON.stringify(options),
        enabled: fields.enabled ? 1 : 0,
        version: (current?.version ?? 0) + 1,
        updated_at: now,
        updated_by: actor,
      };
      if (!(await this.#deps.store.putProvider(tx, row, current?.version))) throw versionConflict(`provider ${name}`, current?.version, undefined);
      const keys = await this.#replaceKeys(tx, name, current ? currentKeys : this.#fileKeys(name, now), keyInputs, current !== undefined, now);
      await this.#audit(tx, { actor, kind: 'provider', subject: name, action: 'put', before: current ? providerRecord(current, currentKeys) : this.#fileRecord(name), after: providerRecord(row, keys), now });
    });
    return this.#served(name);
  }

  /** Changes some of a provider's fields; a provider of the file is first copied into the store. */
  async patchProvider(name: string, body: unknown, actor: string): Promise<UpstreamProvider> {
    const r = readerOf(body);
    checked(() => r.onlyKeys(PATCH_FIELDS));
    const expected = expectedVersionOf(r);
    await this.#write(async (tx, now) => {
      const { row: current, keys, before } = await this.#materialized(tx, name, expected, now);
      const merged = readerOf({
        type: current.type,
        ...(current.base_url === null ? {} : { baseUrl: current.base_url }),
        timeoutMs: current.timeout_ms,
        concurrency: current.concurrency,
        enabled: current.enabled === 1,
        ...withoutVersionField(body),
      });
      const fields = providerFieldsOf(merged, (t) => this.#deps.isKnownType(t), () => this.#deps.knownTypes());
      const options = r.has('options') ? this.#seal(() => sealOptions(fields.options, this.#deps.secrets)) : parseObject(current.options_json);
      const row: UpstreamProvidersRow = {
        ...current,
        type: fields.type,
        base_url: fields.baseUrl ?? null,
        timeout_ms: fields.timeoutMs,
        concurrency: fields.concurrency,
        options_json: JSON.stringify(options),
        enabled: fields.enabled ? 1 : 0,
        version: current.version + 1,
        updated_at: now,
        updated_by: actor,
      };
      if (!(await this.#deps.store.putProvider(tx, row, current.version))) throw versionConflict(`provider ${name}`, current.version, undefined);
      await this.#audit(tx, { actor, kind: 'provider', subject: name, action: 'patch', before, after: providerRecord(row, keys), now });
    });
    return this.#served(name);
  }

  /** Deletes the live provider (the config file's of the same name, if any, is served again). */
  async deleteProvider(name: string, expectedVersion: number | undefined, actor: string): Promise<void> {
    checkProviderName(name);
    await this.#write(async (tx, now) => {
      const current = await this.#deps.store.provider(tx, name);
      if (!current) {
        if (this.#deps.directory.fileProvider(name)) throw new AppError('conflict', `provider ${name} comes from the config file: remove it there, or switch it off here (PATCH with enabled: false)`);
        throw new AppError('not_found', `no provider ${name}`);
      }
      if (expectedVersion !== undefined && current.version !== expectedVersion) throw versionConflict(`provider ${name}`, expectedVersion, current.version);
      if (!this.#deps.directory.fileProvider(name)) {
        const users = this.#deps.directory.routes().filter((route) => route.entries.some((e) => e.provider === name)).map((route) => route.modelId);
        if (users.length > 0) throw new AppError('conflict', `provider ${name} is in the route of ${users.slice(0, 10).join(', ')}${users.length > 10 ? '…' : ''}: change those routes first`);
      }
      const keys = await this.#deps.store.keys(tx, name);
      if (!(await this.#deps.store.deleteProvider(tx, name, current.version))) throw versionConflict(`provider ${name}`, current.version, undefined);
      await this.#audit(tx, { actor, kind: 'provider', subject: name, action: 'delete', before: providerRecord(current, keys), after: this.#fileRecord(name), now });
    });
  }

  /** Adds a key to a provider's pool (rotation: add the new key, then switch the old one off). */
  async addKey(name: string, body: unknown, actor: string): Promise<{ id: string; hint: string }> {
    const r = readerOf(body);
    checked(() => r.onlyKeys(['secret', 'weight', 'label', 'enabled', 'expectedVersion']));
    const secret = secretOf(r);
    const settings = keySettingsOf(r);
    const expected = expectedVersionOf(r);
    const sealed = this.#seal(() => this.#deps.secrets.seal(secret));
    const id = newKeyId();
    const hint = secretHint(secret);
    await this.#write(async (tx, now) => {
      const { row, keys, before } = await this.#materialized(tx, name, expected, now);
      if (keys.length >= MAX_KEYS_PER_PROVIDER) throw invalidInput(`provider ${name} has ${MAX_KEYS_PER_PROVIDER} keys already: delete one first`, 'secret');
      const key: UpstreamKeysRow = { id, provider: name, secret_sealed: sealed, hint, label: settings.label ?? null, weight: settings.weight ?? 1, enabled: settings.enabled === false ? 0 : 1, created_at: now, updated_at: now };
      await this.#deps.store.insertKey(tx, key);
      const bumped = await this.#bumpProvider(tx, row, actor, now);
      await this.#audit(tx, { actor, kind: 'key', subject: `${name}/${id}`, action: 'put', before, after: providerRecord(bumped, [...keys, key]), now });
    });
    return { id, hint };
  }

  /** Changes a key's weight, label or switch; switching it on also clears a disabling by the health board. */
  async patchKey(name: string, keyId: string, body: unknown, actor: string): Promise<void> {
    const r = readerOf(body);
    checked(() => r.onlyKeys(['weight', 'label', 'enabled', 'expectedVersion']));
    const settings = keySettingsOf(r);
    const expected = expectedVersionOf(r);
    await this.#write(async (tx, now) => {
      const { row, keys, before } = await this.#materialized(tx, name, expected, now);
      const key = keys.find((k) => k.id === keyId);
      if (!key) throw new AppError('not_found', `provider ${name} has no key ${keyId}`);
      const change = { ...(settings.weight === undefined ? {} : { weight: settings.weight }), ...(settings.label === undefined ? {} : { label: settings.label }), ...(settings.enabled === undefined ? {} : { enabled: settings.enabled ? 1 : 0 }), updated_at: now };
      await this.#deps.store.updateKey(tx, name, keyId, change);
      const bumped = await this.#bumpProvider(tx, row, actor, now);
      await this.#audit(tx, { actor, kind: 'key', subject: `${name}/${keyId}`, action: 'patch', before, after: providerRecord(bumped, keys.map((k) => (k.id === keyId ? { ...k, ...change } : k))), now });
    });
    if (settings.enabled === true) await this.#deps.board.enable(keySubject(name, keyId));
  }

  async deleteKey(name: string, keyId: string, expectedVersion: number | undefined, actor: string): Promise<void> {
    await this.#write(async (tx, now) => {
      const { row, keys, before } = await this.#materialized(tx, name, expectedVersion, now);
      if (!keys.some((k) => k.id === keyId)) throw new AppError('not_found', `provider ${name} has no key ${keyId}`);
      await this.#deps.store.deleteKey(tx, name, keyId);
      const bumped = await this.#bumpProvider(tx, row, actor, now);
      await this.#audit(tx, { actor, kind: 'key', subject: `${name}/${keyId}`, action: 'delete', before, after: providerRecord(bumped, keys.filter((k) => k.id !== keyId)), now });
    });
  }

  /** Sets a model's route: entries `{provider, model?, priority?, weight?}`, validated as the file's. */
  async putRoute(modelId: string, body: unknown, actor: string): Promise<void> {
    if (!this.#deps.isModel(modelId)) throw new AppError('model_not_found', `no model ${modelId} in the catalog`);
    const r = readerOf(body);
    checked(() => r.onlyKeys(['entries', 'expectedVersion']));
    const expected = expectedVersionOf(r);
    const entries: RouteTarget[] = checked(() => parseRouteList(r.raw('entries'), 'entries', modelId, (name) => this.#deps.directory.provider(name) !== undefined));
    await this.#write(async (tx, now) => {
      const current = await this.#deps.store.route(tx, modelId);
      if (expected !== undefined && (current?.version ?? 0) !== expected) throw versionConflict(`the route of ${modelId}`, expected, current?.version);
      const row = { model_id: modelId, entries_json: JSON.stringify(entries), version: (current?.version ?? 0) + 1, updated_at: now, updated_by: actor };
      if (!(await this.#deps.store.putRoute(tx, row, current?.version))) throw versionConflict(`the route of ${modelId}`, current?.version, undefined);
      const file = this.#deps.directory.route(modelId);
      await this.#audit(tx, { actor, kind: 'route', subject: modelId, action: 'put', before: current ? routeRecord(current) : file?.source === 'file' ? { modelId, entries: file.entries } : null, after: routeRecord(row), now });
    });
  }

  async deleteRoute(modelId: string, expectedVersion: number | undefined, actor: string): Promise<void> {
    await this.#write(async (tx, now) => {
      const current = await this.#deps.store.route(tx, modelId);
      if (!current) throw new AppError('not_found', `${modelId} has no live route (a route of the config file is changed there)`);
      if (expectedVersion !== undefined && current.version !== expectedVersion) throw versionConflict(`the route of ${modelId}`, expectedVersion, current.version);
      if (!(await this.#deps.store.deleteRoute(tx, modelId, current.version))) throw versionConflict(`the route of ${modelId}`, current.version, undefined);
      await this.#audit(tx, { actor, kind: 'route', subject: modelId, action: 'delete', before: routeRecord(current), after: null, now });
    });
  }

  /** Sets a model's visibility, names and prices; replaces the config file's setting of that model. */
  async putModel(modelId: string, body: unknown, actor: string): Promise<void> {
    if (!this.#deps.isModel(modelId)) throw new AppError('model_not_found', `no model ${modelId} in the catalog`);
    const r = readerOf(body);
    const expected = expectedVersionOf(r);
    const withoutVersion = readerOf(withoutVersionField(body));
    const override = checked(() => parseModelOverride(withoutVersion));
    this.#checkModels(modelId, override);
    await this.#write(async (tx, now) => {
      const current = await this.#deps.store.modelSetting(tx, modelId);
      if (expected !== undefined && (current?.version ?? 0) !== expected) throw versionConflict(`the setting of ${modelId}`, expected, current?.version);
      const row: ModelSettingsRow = { model_id: modelId, override_json: JSON.stringify(override), version: (current?.version ?? 0) + 1, updated_at: now, updated_by: actor };
      if (!(await this.#deps.store.putModelSetting(tx, row, current?.version))) throw versionConflict(`the setting of ${modelId}`, current?.version, undefined);
      const file = this.#deps.directory.fileModelOverrides()[modelId];
      await this.#audit(tx, { actor, kind: 'model', subject: modelId, action: 'put', before: current ? modelRecord(current) : file ? { modelId, ...file } : null, after: modelRecord(row), now });
    });
  }

  async deleteModel(modelId: string, expectedVersion: number | undefined, actor: string): Promise<void> {
    await this.#write(async (tx, now) => {
      const current = await this.#deps.store.modelSetting(tx, modelId);
      if (!current) throw new AppError('not_found', `${modelId} has no live setting`);
      if (expectedVersion !== undefined && current.version !== expectedVersion) throw versionConflict(`the setting of ${modelId}`, expectedVersion, current.version);
      const others = this.#deps.directory.modelOverrides();
      delete others[modelId];
      const file = this.#deps.directory.fileModelOverrides()[modelId];
      // What serves again is the file's setting of the model, if any; it must still build.
      checked(() => this.#deps.checkModelSettings(file ? { ...others, [modelId]: file } : others));
      if (!(await this.#deps.store.deleteModelSetting(tx, modelId, current.version))) throw versionConflict(`the setting of ${modelId}`, current.version, undefined);
      await this.#audit(tx, { actor, kind: 'model', subject: modelId, action: 'delete', before: modelRecord(current), after: null, now });
    });
  }

  /** The live state as a file, secrets out. */
  async exportLive(): Promise<UpstreamExport> {
    const rows = await this.#deps.uow.transaction((tx) => this.#deps.store.loadAll(tx));
    return exportOf(rows, this.#now());
  }

  /**
   * Makes the live state what the file says, in one transaction: what it does not name is deleted.
   * Keys named by an id not stored here (a file from another gateway) are left out and reported.
   */
  async importLive(doc: unknown, actor: string): Promise<{ providers: number; routes: number; models: number; missingKeys: string[] }> {
    const directory = this.#deps.directory;
    const plan = importPlanOf(doc, {
      isKnownType: (t) => this.#deps.isKnownType(t),
      knownTypes: () => this.#deps.knownTypes(),
      isModel: (id) => this.#deps.isModel(id),
      fileProviders: new Set(directory.providers().map((p) => p.name).filter((name) => directory.fileProvider(name) !== undefined)),
    });
    checked(() => this.#deps.checkModelSettings({ ...directory.fileModelOverrides(), ...Object.fromEntries(plan.models.map((m) => [m.modelId, m.override])) }));
    const missingKeys: string[] = [];
    await this.#write(async (tx, now) => {
      missingKeys.length = 0;
      const before = await this.#deps.store.loadAll(tx);
      const planned = new Set(plan.providers.map((p) => p.name));
      for (const row of before.providers) if (!planned.has(row.name)) await this.#deps.store.deleteProvider(tx, row.name, row.version);
      const routed = new Set(plan.routes.map((r) => r.modelId));
      for (const row of before.routes) if (!routed.has(row.model_id)) await this.#deps.store.deleteRoute(tx, row.model_id, row.version);
      const set = new Set(plan.models.map((m) => m.modelId));
      for (const row of before.models) if (!set.has(row.model_id)) await this.#deps.store.deleteModelSetting(tx, row.model_id, row.version);
      for (const p of plan.providers) {
        const current = before.providers.find((row) => row.name === p.name);
        let options: Record<string, unknown>;
        if (current && sameAsExported(p.options, current.options_json)) options = parseObject(current.options_json);
        else {
          const masked = maskedSecretOption(p.options);
          if (masked !== undefined) throw invalidInput(`holds a hint, not the secret: give the secret itself (or export again and import that file unchanged)`, `providers.${p.name}.options.${masked}`);
          options = this.#seal(() => sealOptions(p.options, this.#deps.secrets));
        }
        const row: UpstreamProvidersRow = {
          name: p.name,
          type: p.fields.type,
          base_url: p.fields.baseUrl ?? null,
          timeout_ms: p.fields.timeoutMs,
          concurrency: p.fields.concurrency,
          options_json: JSON.stringify(options),
          enabled: p.fields.enabled ? 1 : 0,
          version: (current?.version ?? 0) + 1,
          updated_at: now,
          updated_by: actor,
        };
        if (!(await this.#deps.store.putProvider(tx, row, current?.version))) throw versionConflict(`provider ${p.name}`, current?.version, undefined);
        const have = current ? before.keys.filter((k) => k.provider === p.name) : this.#fileKeys(p.name, now);
        await this.#replaceKeys(tx, p.name, have, p.keys, current !== undefined, now, (id) => missingKeys.push(`${p.name}/${id}`));
      }
      for (const r of plan.routes) {
        const current = before.routes.find((row) => row.model_id === r.modelId);
        const row = { model_id: r.modelId, entries_json: JSON.stringify(r.entries), version: (current?.version ?? 0) + 1, updated_at: now, updated_by: actor };
        if (!(await this.#deps.store.putRoute(tx, row, current?.version))) throw versionConflict(`the route of ${r.modelId}`, current?.version, undefined);
      }
      for (const m of plan.models) {
        const current = before.models.find((row) => row.model_id === m.modelId);
        const row: ModelSettingsRow = { model_id: m.modelId, override_json: JSON.stringify(m.override), version: (current?.version ?? 0) + 1, updated_at: now, updated_by: actor };
        if (!(await this.#deps.store.putModelSetting(tx, row, current?.version))) throw versionConflict(`the setting of ${m.modelId}`, current?.version, undefined);
      }
      const after = await this.#deps.store.loadAll(tx);
      await this.#audit(tx, { actor, kind: 'import', subject: '*', action: 'import', before: exportOf(before, now), after: exportOf(after, now), now });
    });
    return { providers: plan.providers.length, routes: plan.routes.length, models: plan.models.length, missingKeys };
  }

  async auditPage(limit: number, before: string | undefined): Promise<UpstreamAuditRow[]> {
    return this.#deps.store.auditPage(this.#deps.uow.direct, limit, before);
  }

  #checkModels(modelId: string, override: ModelOverride): void {
    checked(() => this.#deps.checkModelSettings({ ...this.#deps.directory.modelOverrides(), [modelId]: override }));
  }

  /** One change: its transaction with the revision bump, then every process told. */
  async #write(change: (tx: StoreTransaction, now: number) => Promise<void>): Promise<void> {
    await this.#deps.uow.transaction(async (tx) => {
      await change(tx, this.#now());
      await this.#deps.store.bumpRevision(tx);
    });
    await this.#deps.directory.changed();
  }

  #seal<T>(seal: () => T): T {
    try {
      return seal();
    } catch (error) {
      if (error instanceof SecretBoxError) throw new AppError('service_unavailable', error.message);
      throw error;
    }
  }

  /**
   * The provider's stored row and keys, copying a provider of the file into the store first (its key
   * sealed, under the id `file`, so its health record carries over).
   */
  async #materialized(tx: StoreTransaction, name: string, expected: number | undefined, now: number): Promise<{ row: UpstreamProvidersRow; keys: UpstreamKeysRow[]; before: unknown }> {
    const stored = await this.#deps.store.provider(tx, name);
    if (stored) {
      if (expected !== undefined && stored.version !== expected) throw versionConflict(`provider ${name}`, expected, stored.version);
      const keys = await this.#deps.store.keys(tx, name);
      return { row: stored, keys, before: providerRecord(stored, keys) };
    }
    const file = this.#deps.directory.fileProvider(name);
    if (!file) throw new AppError('not_found', `no provider ${name}`);
    if (expected !== undefined && expected !== 0) throw versionConflict(`provider ${name}`, expected, 0);
    const row: UpstreamProvidersRow = {
      name,
      type: file.type,
      base_url: file.baseUrl ?? null,
      timeout_ms: file.timeoutMs,
      concurrency: file.concurrency,
      options_json: JSON.stringify(this.#seal(() => sealOptions(file.options, this.#deps.secrets))),
      enabled: 1,
      version: 1,
      updated_at: now,
      updated_by: 'config-file',
    };
    if (!(await this.#deps.store.putProvider(tx, row, undefined))) throw versionConflict(`provider ${name}`, 0, undefined);
    const keys = this.#fileKeys(name, now);
    for (const key of keys) await this.#deps.store.insertKey(tx, key);
    return { row, keys, before: this.#fileRecord(name) };
  }

  /** The file provider's key as a stored key (sealed), or none. */
  #fileKeys(name: string, now: number): UpstreamKeysRow[] {
    const key = this.#deps.directory.fileProvider(name)?.keys.find((k) => k.id === FILE_KEY_ID && k.secret !== undefined);
    if (!key?.secret) return [];
    const secret = key.secret;
    return [{ id: FILE_KEY_ID, provider: name, secret_sealed: this.#seal(() => this.#deps.secrets.seal(secret)), hint: key.hint, label: 'config file', weight: 1, enabled: 1, created_at: now, updated_at: now }];
  }

  #fileRecord(name: string): unknown {
    const file = this.#deps.directory.fileProvider(name);
    if (!file) return null;
    return {
      name,
      type: file.type,
      baseUrl: file.baseUrl ?? null,
      timeoutMs: file.timeoutMs,
      concurrency: file.concurrency,
      source: 'file',
      keys: file.keys.filter((k) => k.secret !== undefined).map((k) => ({ id: k.id, hint: k.hint, label: null, weight: k.weight, enabled: k.enabled })),
    };
  }

  /** A key change moves the provider's version, so that `expectedVersion` covers its keys too. */
  async #bumpProvider(tx: StoreTransaction, row: UpstreamProvidersRow, actor: string, now: number): Promise<UpstreamProvidersRow> {
    const next = { ...row, version: row.version + 1, updated_at: now, updated_by: actor };
    if (!(await this.#deps.store.putProvider(tx, next, row.version))) throw versionConflict(`provider ${row.name}`, row.version, undefined);
    return next;
  }

  /** The keys after a PUT: the listed ones (new secrets sealed, known ids kept with their changes), the rest deleted. */
  async #replaceKeys(tx: StoreTransaction, name: string, have: UpstreamKeysRow[], inputs: KeyInput[] | undefined, stored: boolean, now: number, missing?: (id: string) => void): Promise<UpstreamKeysRow[]> {
    if (inputs === undefined) {
      if (!stored) for (const key of have) await this.#deps.store.insertKey(tx, key);
      return have;
    }
    const byId = new Map(have.map((k) => [k.id, k]));
    const next: UpstreamKeysRow[] = [];
    for (const [i, input] of inputs.entries()) {
      const settings = { ...(input.weight === undefined ? {} : { weight: input.weight }), ...(input.label === undefined ? {} : { label: input.label }), ...(input.enabled === undefined ? {} : { enabled: input.enabled ? 1 : 0 }) };
      if (input.secret !== undefined) {
        const secret = input.secret;
        next.push({ id: newKeyId(), provider: name, secret_sealed: this.#seal(() => this.#deps.secrets.seal(secret)), hint: secretHint(secret), label: null, weight: 1, enabled: 1, created_at: now + i, updated_at: now, ...settings });
        continue;
      }
      const old = byId.get(input.id);
      if (!old && missing) {
        missing(input.id);
        continue;
      }
      if (!old) throw invalidInput(`provider ${name} has no key ${input.id} (give its secret to add it)`, `keys[${i}].id`);
      next.push({ ...old, ...settings, updated_at: now });
    }
    const keep = new Set(next.map((k) => k.id));
    for (const old of have) if (stored && !keep.has(old.id)) await this.#deps.store.deleteKey(tx, name, old.id);
    for (const key of next) {
      if (stored && byId.has(key.id)) await this.#deps.store.updateKey(tx, name, key.id, { label: key.label, weight: key.weight, enabled: key.enabled, updated_at: now });
      else await this.#deps.store.insertKey(tx, key);
    }
    return next;
  }

  async #audit(tx: StoreTransaction, entry: { actor: string; kind: string; subject: string; action: string; before: unknown; after: unknown; now: number }): Promise<void> {
    await this.#deps.store.appendAudit(tx, {
      id: newAuditId(entry.now),
      at: entry.now,
      actor: entry.actor,
      subject_kind: entry.kind,
      subject: entry.subject,
      action: entry.action,
      before_json: entry.before === null || entry.before === undefined ? null : JSON.stringify(entry.before),
      after_json: entry.after === null || entry.after === undefined ? null : JSON.stringify(entry.after),
    });
  }

  #served(name: string): UpstreamProvider {
    const served = this.#deps.directory.provider(name);
    if (!served) throw new AppError('internal_error', `provider ${name} was stored but is not served`);
    return served;
  }
}

function withoutVersionField(body: unknown): Record<string, unknown> {
  const { expectedVersion: _version, ...rest } = (body ?? {}) as Record<string, unknown>;
  return rest;
}

function newKeyId(): string {
  return newId('upk');
}

function newAuditId(now: number): string {
  return newId('aud', now);
}
