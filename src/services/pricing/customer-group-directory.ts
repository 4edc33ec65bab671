/**
 * The customer groups this process prices by (issue 33, item 4): every group and every assignment,
 * held in memory as one snapshot (domain/pricing/customer-groups.ts) that a reload replaces whole.
 * Pricing a request is a map lookup: the hot paths (chat, create) gain no store access. A change is
 * learnt as the upstream settings are (upstream-directory.ts): by the bus (`customer-groups.changed`,
 * within milliseconds) and by polling the store's revision (every `pollMs`, 2 s by default), so every
 * API and worker process prices by it within 5 s even when a message is lost.
 */
import type { Logger } from 'pino';
import { type CustomerGroup, type GroupPricing, GroupPriceSnapshot } from '../../domain/pricing/customer-groups.ts';
import type { CustomerGroupRows, CustomerGroupsStore } from '../../ports/customer-groups-store.port.ts';
import type { EventBus } from '../../ports/event-bus.port.ts';
import type { UnitOfWork } from '../../ports/unit-of-work.port.ts';

/** The bus topic of a committed change; the payload is the store's revision after it. */
export const CUSTOMER_GROUPS_CHANGED_TOPIC = 'customer-groups.changed';

export interface CustomerGroupDirectoryDeps {
  store: CustomerGroupsStore;
  uow: UnitOfWork;
  bus: EventBus;
  logger: Logger;
  pollMs?: number;
}

export class CustomerGroupDirectory implements GroupPricing {
  readonly #deps: CustomerGroupDirectoryDeps;
  #snapshot = new GroupPriceSnapshot(-1, [], new Map());
  #timer: NodeJS.Timeout | undefined;
  #unsubscribe: (() => Promise<void>) | undefined;
  #reloading: Promise<void> | undefined;
  #again = false;

  constructor(deps: CustomerGroupDirectoryDeps) {
    this.#deps = deps;
  }

  async start(): Promise<void> {
    await this.reload();
    this.#unsubscribe = await this.#deps.bus.subscribe(CUSTOMER_GROUPS_CHANGED_TOPIC, (payload) => {
      if (Number(payload) !== this.#snapshot.revision) void this.reload().catch((error: unknown) => this.#warn(error));
    });
    this.#timer = setInterval(() => void this.#poll(), this.#deps.pollMs ?? 2_000);
    this.#timer.unref();
  }

  async close(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#unsubscribe?.();
    this.#unsubscribe = undefined;
    await this.#reloading?.catch(() => {});
  }

  /** The version now served: a request that prices twice (a quote, then a hold) reads it once. */
  get snapshot(): GroupPriceSnapshot {
    return this.#snapshot;
  }

  ppmFor(accountId: string, modelId: string): number {
    return this.#snapshot.ppmFor(accountId, modelId);
  }

  groupOf(accountId: string): string {
    return this.#snapshot.groupOf(accountId);
  }

  /** After a committed change: served here at once, then announced to the other processes. */
  async changed(): Promise<void> {
    await this.reload();
    await this.#deps.bus.publish(CUSTOMER_GROUPS_CHANGED_TOPIC, String(this.#snapshot.revision));
  }

  /** Reads the store again; concurrent calls share one read, and a call during a read causes one more. */
  async reload(): Promise<void> {
    if (this.#reloading) {
      this.#again = true;
      return this.#reloading;
    }
    this.#reloading = (async () => {
      try {
        do {
          this.#again = false;
          const rows = await this.#deps.uow.transaction((tx) => this.#deps.store.loadAll(tx));
          if (rows.revision !== this.#snapshot.revision) this.#snapshot = snapshotOf(rows, this.#deps.logger);
        } while (this.#again);
      } finally {
        this.#reloading = undefined;
      }
    })();
    return this.#reloading;
  }

  async #poll(): Promise<void> {
    try {
      const revision = await this.#deps.store.revision(this.#deps.uow.direct);
      if (revision !== this.#snapshot.revision) await this.reload();
    } catch (error) {
      this.#warn(error);
    }
  }

  #warn(error: unknown): void {
    this.#deps.logger.warn({ err: error }, 'could not read the customer groups; pricing by the last ones read');
  }
}

function snapshotOf(rows: CustomerGroupRows, logger: Logger): GroupPriceSnapshot {
  const counts = new Map<string, number>();
  const members = new Map<string, string>();
  for (const m of rows.members) {
    members.set(m.account_id, m.group_name);
    counts.set(m.group_name, (counts.get(m.group_name) ?? 0) + 1);
  }
  const groups: CustomerGroup[] = rows.groups.map((g) => ({
    name: g.name,
    description: g.description,
    multiplierPpm: g.multiplier_ppm,
    models: modelMultipliersOf(g.name, g.models_json, logger),
    version: g.version,
    members: counts.get(g.name) ?? 0,
    updatedAt: Number(g.updated_at),
    updatedBy: g.updated_by,
  }));
  return new GroupPriceSnapshot(rows.revision, groups, members);
}

/** The stored per-model multipliers; an entry that is not a positive integer is skipped (logged), never priced at 0. */
function modelMultipliersOf(group: string, json: string, logger: Logger): Record<string, number> {
  const out: Record<string, number> = {};
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    value = undefined;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    logger.error({ group }, 'the per-model multipliers of a customer group are not an object; its group multiplier applies to every model');
    return out;
  }
  for (const [model, ppm] of Object.entries(value)) {
    if (typeof ppm === 'number' && Number.isSafeInteger(ppm) && ppm > 0) out[model] = ppm;
    else logger.error({ group, model }, 'a per-model multiplier of a customer group is not a positive integer; the group multiplier applies');
  }
  return out;
}
