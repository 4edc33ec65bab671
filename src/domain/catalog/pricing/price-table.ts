/**
 * The price tiers of a media model: every cell of its tariff (the cartesian product of the
 * dimensions it uses), the default cell, operator overrides, and the quote for one request.
 * Money is integer micro-USD; a quote multiplies integers only.
 */
import { ConfigError } from '../../config-error.ts';
import type { PriceTierOverride } from '../catalog-overrides.ts';
import { assertMicro, microToUsd, usdToMicro } from '../../money.ts';
import type { PriceQuote, PriceTier, PriceUnit, ValidatedInput } from '../catalog.types.ts';
import type { FamilyContext, FamilyDef } from '../dsl/family.ts';
import type { FieldDef } from '../dsl/field.types.ts';
import { type Cell, cellKey, type TariffDef } from './tariff.ts';

export interface PriceCell {
  key: string;
  /** The dimension values of the cell; empty for a flat tariff. */
  dims: Cell;
  micro: number;
  isDefault: boolean;
}

export interface PriceTable {
  unit: Exclude<PriceUnit, 'megatoken'>;
  dimNames: readonly string[];
  cells: PriceCell[];
}

function dimension(family: FamilyDef, name: string) {
  const d = family.billing.dimensions?.[name];
  if (!d) throw new Error(`family ${family.id} has no billing dimension ${name}`);
  return d;
}

function selectCell(family: FamilyDef, dimNames: readonly string[], input: ValidatedInput, ctx: FamilyContext): Cell {
  const cell: Record<string, string> = {};
  for (const name of dimNames) cell[name] = dimension(family, name).select(input, ctx);
  return cell;
}

/** Builds the table from a tariff; throws (a declaration bug) when a cell has no price. */
export function buildPriceTable(
  modelId: string,
  family: FamilyDef,
  fields: readonly FieldDef[],
  tariff: TariffDef,
  defaults: ValidatedInput,
  ctx: FamilyContext,
): PriceTable {
  let cells: Array<Record<string, string>> = [{}];
  for (const name of tariff.dims) {
    const values = dimension(family, name).values(fields);
    cells = cells.flatMap((c) => values.map((v) => ({ ...c, [name]: v })));
  }
  const defaultKey = cellKey(tariff.dims, selectCell(family, tariff.dims, defaults, ctx));
  const out = cells.map((dims) => {
    const key = cellKey(tariff.dims, dims);
    const usd = tariff.price(dims);
    if (usd === undefined) throw new Error(`model ${modelId} has no price for tier ${key}`);
    return { key, dims, micro: usdToMicro(usd), isDefault: key === defaultKey };
  });
  if (!out.some((c) => c.isDefault)) throw new Error(`model ${modelId}: default tier ${defaultKey} is not among its tiers`);
  return { unit: family.billing.unit, dimNames: tariff.dims, cells: out };
}

function sameDims(a: Readonly<Record<string, string>>, b: Readonly<Record<string, string>>): boolean {
  const ka = Object.keys(a);
  return ka.length === Object.keys(b).length && ka.every((k) => a[k] === b[k]);
}

/**
 * Replaces every price. Each override tier names a cell by `dimensions` (matrix tariffs) or by `key`;
 * every cell must be priced exactly once, and `isDefault`, when given, must sit on the default cell.
 */
export function applyPricingOverride(table: PriceTable, tiers: readonly PriceTierOverride[], field: string): PriceTable {
  const keys = table.cells.map((c) => c.key).join(', ');
  const prices = new Map<string, number>();
  tiers.forEach((tier, i) => {
    const cell = tier.dimensions ? table.cells.find((c) => sameDims(c.dims, tier.dimensions ?? {})) : table.cells.find((c) => c.key === tier.key);
    const named = tier.dimensions ? `dimensions ${JSON.stringify(tier.dimensions)}` : `key ${JSON.stringify(tier.key)}`;
    if (!cell) throw new ConfigError(`${field}[${i}]`, `${named} is not a price tier of this model (tiers: ${keys})`);
    if (prices.has(cell.key)) throw new ConfigError(`${field}[${i}]`, `tier ${cell.key} is priced twice`);
    if (tier.isDefault === true && !cell.isDefault) {
      const def = table.cells.find((c) => c.isDefault)?.key ?? '';
      throw new ConfigError(`${field}[${i}]`, `isDefault belongs on tier ${def} (what a request without parameters selects), not ${cell.key}`);
    }
    let micro: number;
    try {
      micro = usdToMicro(tier.price);
    } catch {
      throw new ConfigError(`${field}[${i}].price`, `must be a USD amount with at most 6 decimals, got ${JSON.stringify(tier.price)}`);
    }
    prices.set(cell.key, micro);
  });
  const missing = table.cells.filter((c) => !prices.has(c.key)).map((c) => c.key);
  if (missing.length > 0) throw new ConfigError(field, `has no price for tier${missing.length > 1 ? 's' : ''} ${missing.join(', ')} (every tier needs one: ${keys})`);
  return { ...table, cells: table.cells.map((c) => ({ ...c, micro: prices.get(c.key) ?? c.micro })) };
}

export function publishTiers(table: PriceTable): PriceTier[] {
  const matrix = table.dimNames.length > 1;
  return table.cells.map((c) => ({ key: c.key, price: microToUsd(c.micro), isDefault: c.isDefault, ...(matrix ? { dimensions: { ...c.dims } } : {}) }));
}

export function defaultCell(table: PriceTable): PriceCell {
  const cell = table.cells.find((c) => c.isDefault);
  if (!cell) throw new Error('price table without a default tier');
  return cell;
}

export function quote(family: FamilyDef, table: PriceTable, input: ValidatedInput, ctx: FamilyContext): PriceQuote {
  const key = cellKey(table.dimNames, selectCell(family, table.dimNames, input, ctx));
  const cell = table.cells.find((c) => c.key === key);
  if (!cell) throw new Error(`model ${ctx.modelId} has no price tier ${key}`);
  const units = family.billing.units ? family.billing.units(input, ctx) : 1;
  if (!Number.isSafeInteger(units) || units < 0) throw new Error(`model ${ctx.modelId}: billed units must be a whole number, got ${units}`);
  const costMicro = cell.micro * units;
  assertMicro(costMicro);
  return { costMicro, tierKey: cell.key, unit: table.unit, units, unitPriceMicro: cell.micro };
}
