/**
 * Customer groups (issue 33, item 4): the operator puts accounts (users, and organizations, which are
 * accounts too) in groups whose prices are the list prices times a multiplier, for every model or
 * per model. Pure rules: the multiplier's form and bounds, the one rounding rule, and the snapshot a
 * process prices by (built from the store, swapped whole; services/pricing/customer-group-directory.ts).
 *
 * One rule for every amount: a group price is the list amount times the multiplier, rounded up to the
 * whole micro-USD (`groupPriceMicro`), applied once to the final list amount of a request (an
 * estimate, a debit, a hold, a settlement) and to each rate a listing shows. The estimate and the
 * debit of a create both go through EstimateService.price with the same multiplier, so they agree to
 * the micro-USD; a hold is never below the settlement, because the rule is monotonic.
 */
import { invalidInput } from '../errors.ts';

/** Multipliers are integers in parts per million: 1,000,000 is the list price (1×). */
export const LIST_PPM = 1_000_000;
/** 0.01×: below that is a mistake (a free group is not a price). */
export const MIN_PPM = 10_000;
/** 10×: above that is a mistake too (a typo of 1.25 as 125). */
export const MAX_PPM = 10_000_000;
/** The group of every account not put in another; always the list price, never stored. */
export const DEFAULT_GROUP = 'default';
/** Per-model multipliers one group may carry. */
export const MAX_MODEL_MULTIPLIERS = 500;

const GROUP_NAME = /^[a-z0-9][a-z0-9_-]{0,39}$/;
const DECIMAL = /^(\d{1,2})(?:\.(\d{1,6}))?$/;
const PPM_BIG = BigInt(LIST_PPM);

/** The group price of a list amount: ⌈list × ppm / 1,000,000⌉, exact (BigInt); the list amount itself at 1×. */
export function groupPriceMicro(listMicro: number, ppm: number): number {
  if (ppm === LIST_PPM || listMicro === 0) return listMicro;
  if (!Number.isSafeInteger(listMicro) || listMicro < 0) throw new Error(`a list amount must be a non-negative integer of micro-USD, got ${listMicro}`);
  if (!Number.isSafeInteger(ppm) || ppm <= 0) throw new Error(`a multiplier must be a positive integer of parts per million, got ${ppm}`);
  const product = BigInt(listMicro) * BigInt(ppm);
  return Number((product + PPM_BIG - 1n) / PPM_BIG);
}

/**
 * A multiplier as the admin API takes it: a number or a decimal string with at most 6 decimals
 * (`1.25`, `"0.8"`), between 0.01 and 10. Anything else is a 400 naming `field`.
 */
export function parseMultiplier(value: unknown, field: string): number {
  const text = typeof value === 'number' && Number.isFinite(value) ? String(value) : typeof value === 'string' ? value.trim() : undefined;
  const match = text === undefined ? null : DECIMAL.exec(text);
  if (!match) throw invalidInput(`${field} must be a number between 0.01 and 10 with at most 6 decimals (1.25 is 25% above the list price), got ${JSON.stringify(value)}`, field);
  const ppm = Number(match[1]) * LIST_PPM + Number((match[2] ?? '').padEnd(6, '0'));
  if (ppm < MIN_PPM || ppm > MAX_PPM) throw invalidInput(`${field} must be between 0.01 and 10, got ${text}`, field);
  return ppm;
}

/** 1250000 → "1.25": the form the API shows a multiplier in. */
export function multiplierText(ppm: number): string {
  const whole = Math.floor(ppm / LIST_PPM);
  const fraction = String(ppm % LIST_PPM).padStart(6, '0').replace(/0+$/, '');
  return fraction ? `${whole}.${fraction}` : String(whole);
}

/** Refuses (400) a name that is not a group name; `default` is the implicit group and cannot be stored. */
export function checkGroupName(name: string, field: string): void {
  if (!GROUP_NAME.test(name)) throw invalidInput(`${field} must be 1 to 40 lower-case letters, digits, '_' or '-', starting with a letter or digit, got ${JSON.stringify(name)}`, field);
  if (name === DEFAULT_GROUP) throw invalidInput(`${field}: "default" is the group of every account not put in another, always at the list price; it cannot be created or changed`, field);
}

export interface CustomerGroup {
  name: string;
  description: string | null;
  /** For every model without a multiplier of its own. */
  multiplierPpm: number;
  /** Per-model multipliers, by model id; these beat `multiplierPpm`. */
  models: Readonly<Record<string, number>>;
  version: number;
  members: number;
  updatedAt: number;
  updatedBy: string;
}

/** What a price is looked up by, on every request: synchronous, in memory. */
export interface GroupPricing {
  /** The multiplier of `accountId`'s group for `modelId`; LIST_PPM for an account in no group. */
  ppmFor(accountId: string, modelId: string): number;
  /** The group `accountId` is in (`default` when none). */
  groupOf(accountId: string): string;
}

/** Everyone at the list price: the CLI, tests without groups, and a process before its first load. */
export const LIST_PRICES: GroupPricing = { ppmFor: () => LIST_PPM, groupOf: () => DEFAULT_GROUP };

/** One version of the groups and their members, never changed once built. */
export class GroupPriceSnapshot implements GroupPricing {
  readonly revision: number;
  readonly #groups: ReadonlyMap<string, CustomerGroup>;
  readonly #memberOf: ReadonlyMap<string, string>;

  constructor(revision: number, groups: readonly CustomerGroup[], members: ReadonlyMap<string, string>) {
    this.revision = revision;
    this.#groups = new Map(groups.map((g) => [g.name, g]));
    this.#memberOf = members;
  }

  ppmFor(accountId: string, modelId: string): number {
    const name = this.#memberOf.get(accountId);
    if (name === undefined) return LIST_PPM;
    const group = this.#groups.get(name);
    if (!group) return LIST_PPM;
    return group.models[modelId] ?? group.multiplierPpm;
  }

  groupOf(accountId: string): string {
    const name = this.#memberOf.get(accountId);
    return name !== undefined && this.#groups.has(name) ? name : DEFAULT_GROUP;
  }

  groups(): CustomerGroup[] {
    return [...this.#groups.values()].sort((a, b) => a.name.localeCompare(b.name));
  }

  group(name: string): CustomerGroup | undefined {
    return this.#groups.get(name);
  }
}
