/**
 * The operator's changes to customer groups (issue 33, item 4): groups with their multipliers (for
 * every model, and per model), and which group an account is in. Each change is validated before
 * anything is written, written in one transaction with the version guard, the revision bump and an
 * audit row (upstream_audit, with the other price settings), then served here at once and announced
 * to every process (customer-group-directory.ts).
 */
import { AppError, invalidInput } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import {
  type CustomerGroup,
  checkGroupName,
  DEFAULT_GROUP,
  LIST_PPM,
  MAX_MODEL_MULTIPLIERS,
  multiplierText,
  parseMultiplier,
} from '../../domain/pricing/customer-groups.ts';
import type { CustomerGroupsStore } from '../../ports/customer-groups-store.port.ts';
import type { CustomerGroupsRow } from '../../ports/store-rows/customer-groups.rows.ts';
import type { StoreTransaction } from '../../ports/store-transaction.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';
import type { CustomerGroupDirectory } from './customer-group-directory.ts';

export interface CustomerGroupsDeps {
  store: CustomerGroupsStore;
  uow: UnitOfWork;
  directory: CustomerGroupDirectory;
  /** True for a model of the catalog (hidden ones included). */
  isModel(id: string): boolean;
  now?: () => number;
}

/** A group as the admin API shows it. */
export interface GroupView {
  name: string;
  description: string | null;
  multiplier: string;
  models: Record<string, string>;
  members: number;
  version: number;
  updatedAt: string;
  updatedBy: string;
}

export interface AccountGroupView {
  accountId: string;
  group: string;
  multiplier: string;
}

const CREATE_FIELDS = new Set(['name', 'description', 'multiplier', 'models']);
const PATCH_FIELDS = new Set(['description', 'multiplier', 'models', 'expectedVersion']);

export class CustomerGroupsService {
  readonly #deps: CustomerGroupsDeps;
  readonly #now: () => number;

  constructor(deps: CustomerGroupsDeps) {
    this.#deps = deps;
    this.#now = deps.now ?? Date.now;
  }

  list(): GroupView[] {
    return this.#deps.directory.snapshot.groups().map(viewOf);
  }

  get(name: string): GroupView {
    const group = this.#deps.directory.snapshot.group(name);
    if (!group) throw new AppError('not_found', `no customer group ${JSON.stringify(name)}`);
    return viewOf(group);
  }

  async create(body: unknown, actor: string): Promise<GroupView> {
    const input = objectOf(body);
    onlyFields(input, CREATE_FIELDS);
    if (typeof input.name !== 'string') throw invalidInput('name is required: the group\'s name, such as "vip"', 'name');
    const name = input.name;
    checkGroupName(name, 'name');
    if (input.multiplier === undefined) throw invalidInput('multiplier is required (1.25 is 25% above the list price)', 'multiplier');
    const multiplier = parseMultiplier(input.multiplier, 'multiplier');
    const models = input.models === undefined ? {} : this.#models(input.models);
    const description = descriptionOf(input.description);
    await this.#write(async (tx, now) => {
      const row: CustomerGroupsRow = { name, description, multiplier_ppm: multiplier, models_json: JSON.stringify(models), version: 1, created_at: now, updated_at: now, updated_by: actor };
      if (!(await this.#deps.store.putGroup(tx, row, undefined))) throw new AppError('conflict', `the customer group ${name} exists already: change it with PATCH /admin/v1/groups/${name}`);
      await this.#audit(tx, { actor, subject: name, action: 'put', before: null, after: recordOf(row), now });
    });
    return this.get(name);
  }

  async patch(name: string, body: unknown, actor: string): Promise<GroupView> {
    const input = objectOf(body);
    onlyFields(input, PATCH_FIELDS);
    const expected = versionOf(input.expectedVersion);
    const multiplier = input.multiplier === undefined ? undefined : parseMultiplier(input.multiplier, 'multiplier');
    const models = input.models === undefined ? undefined : this.#models(input.models);
    const description = input.description === undefined ? undefined : descriptionOf(input.description);
    await this.#write(async (tx, now) => {
      const current = await this.#deps.store.group(tx, name);
      if (!current) throw new AppError('not_found', `no customer group ${JSON.stringify(name)}`);
      if (expected !== undefined && current.version !== expected) throw versionConflict(name, expected, current.version);
      const row: CustomerGroupsRow = {
        ...current,
        ...(multiplier === undefined ? {} : { multiplier_ppm: multiplier }),
        ...(models === undefined ? {} : { models_json: JSON.stringify(models) }),
        ...(description === undefined ? {} : { description }),
        version: current.version + 1,
        updated_at: now,
        updated_by: actor,
      };
      if (!(await this.#deps.store.putGroup(tx, row, current.version))) throw versionConflict(name, current.version, undefined);
      await this.#audit(tx, { actor, subject: name, action: 'patch', before: recordOf(current), after: recordOf(row), now });
    });
    return this.get(name);
  }

  /** Deletes a group nobody is in (move its accounts first: a price must not change by accident). */
  async delete(name: string, expectedVersion: number | undefined, actor: string): Promise<void> {
    await this.#write(async (tx, now) => {
      const current = await this.#deps.store.group(tx, name);
      if (!current) throw new AppError('not_found', `no customer group ${JSON.stringify(name)}`);
      if (expectedVersion !== undefined && current.version !== expectedVersion) throw versionConflict(name, expectedVersion, current.version);
      const members = await this.#deps.store.countMembers(tx, name);
      if (members > 0) throw new AppError('conflict', `the customer group ${name} has ${members} account${members === 1 ? '' : 's'}: put them in another group first`);
      if (!(await this.#deps.store.deleteGroup(tx, name, current.version))) throw versionConflict(name, current.version, undefined);
      await this.#audit(tx, { actor, subject: name, action: 'delete', before: recordOf(current), after: null, now });
    });
  }

  accountGroup(accountId: string): AccountGroupView {
    const group = this.#deps.directory.groupOf(accountId);
    const ppm = this.#deps.directory.snapshot.group(group)?.multiplierPpm ?? LIST_PPM;
    return { accountId, group, multiplier: multiplierText(ppm) };
  }

  /** Puts an account (a user or an organization) in a group; `default` (or null) takes it out of any. */
  async setAccountGroup(accountId: string, body: unknown, actor: string): Promise<AccountGroupView> {
    const input = objectOf(body);
    onlyFields(input, new Set(['group']));
    const given = input.group;
    if (given !== null && typeof given !== 'string') throw invalidInput('group is required: a group\'s name, or "default" (or null) for the list price', 'group');
    const group = given === null || given === DEFAULT_GROUP ? DEFAULT_GROUP : given;
    if (group !== DEFAULT_GROUP && !this.#deps.directory.snapshot.group(group)) {
      // The snapshot may be a moment behind a group created elsewhere: the store decides.
      if (!(await this.#deps.store.group(this.#deps.uow.direct, group))) throw invalidInput(`no customer group ${JSON.stringify(group)} (GET /admin/v1/groups lists them)`, 'group');
    }
    await this.#write(async (tx, now) => {
      if (!(await this.#deps.store.accountExists(tx, accountId))) throw new AppError('user_not_found', `no account ${JSON.stringify(accountId)}`);
      const before = (await this.#deps.store.membership(tx, accountId))?.group_name ?? DEFAULT_GROUP;
      if (group === DEFAULT_GROUP) await this.#deps.store.clearMembership(tx, accountId);
      else {
        if (!(await this.#deps.store.group(tx, group))) throw invalidInput(`no customer group ${JSON.stringify(group)} (GET /admin/v1/groups lists them)`, 'group');
        await this.#deps.store.setMembership(tx, { account_id: accountId, group_name: group, updated_at: now, updated_by: actor });
      }
      await this.#audit(tx, { actor, subject: accountId, kind: 'customer_group_member', action: 'put', before: { group: before }, after: { group }, now });
    });
    return this.accountGroup(accountId);
  }

  #models(value: unknown): Record<string, number> {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidInput('models must be an object of model id to multiplier, such as {"gpt-4o": 1.1}', 'models');
    const entries = Object.entries(value);
    if (entries.length > MAX_MODEL_MULTIPLIERS) throw invalidInput(`models may name at most ${MAX_MODEL_MULTIPLIERS} models`, 'models');
    const out: Record<string, number> = {};
    for (const [model, multiplier] of entries) {
      const field = `models.${model}`;
      if (!this.#deps.isModel(model)) throw invalidInput(`${field}: ${JSON.stringify(model)} is not a model of the catalog (GET /api/v1/catalog lists them)`, field);
      out[model] = parseMultiplier(multiplier, field);
    }
    return out;
  }

  /** One transaction with the revision bump; the change is served here before the call returns. */
  async #write(work: (tx: StoreTransaction, now: number) => Promise<void>): Promise<void> {
    const now = this.#now();
    await this.#deps.uow.transaction(async (tx) => {
      await work(tx, now);
      await this.#deps.store.bumpRevision(tx);
    });
    await this.#deps.directory.changed();
  }

  async #audit(tx: StoreTransaction, entry: { actor: string; subject: string; kind?: string; action: string; before: unknown; after: unknown; now: number }): Promise<void> {
    await this.#deps.store.appendAudit(tx, {
      id: newId('aud', entry.now),
      at: entry.now,
      actor: entry.actor,
      subject_kind: entry.kind ?? 'customer_group',
      subject: entry.subject,
      action: entry.action,
      before_json: entry.before === null ? null : JSON.stringify(entry.before),
      after_json: entry.after === null ? null : JSON.stringify(entry.after),
    });
  }
}

function viewOf(group: CustomerGroup): GroupView {
  return {
    name: group.name,
    description: group.description,
    multiplier: multiplierText(group.multiplierPpm),
    models: Object.fromEntries(Object.entries(group.models).map(([model, ppm]) => [model, multiplierText(ppm)])),
    members: group.members,
    version: group.version,
    updatedAt: new Date(group.updatedAt).toISOString(),
    updatedBy: group.updatedBy,
  };
}

function recordOf(row: CustomerGroupsRow): Record<string, unknown> {
  const models = JSON.parse(row.models_json) as Record<string, number>;
  return { name: row.name, description: row.description, multiplier: multiplierText(row.multiplier_ppm), models: Object.fromEntries(Object.entries(models).map(([m, ppm]) => [m, multiplierText(ppm)])) };
}

function objectOf(body: unknown): Record<string, unknown> {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be a JSON object');
  return body as Record<string, unknown>;
}

function onlyFields(input: Record<string, unknown>, allowed: ReadonlySet<string>): void {
  for (const key of Object.keys(input)) if (!allowed.has(key)) throw invalidInput(`unknown field ${key} (allowed: ${[...allowed].join(', ')})`, key);
}

function descriptionOf(value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > 200) throw invalidInput('description must be a string of at most 200 characters, or null', 'description');
  return value.trim() === '' ? null : value;
}

function versionOf(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw invalidInput('expectedVersion must be a non-negative integer', 'expectedVersion');
  return value;
}

function versionConflict(name: string, expected: number | undefined, actual: number | undefined): AppError {
  return new AppError('version_conflict', `the customer group ${name} is at version ${actual ?? 0}, not ${expected ?? 0}: read it again and repeat the change on what you read`);
}
