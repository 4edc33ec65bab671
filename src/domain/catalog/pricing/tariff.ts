/**
 * A model's tariff: which of its family's billing dimensions it uses, and the USD price of each cell.
 * Cell keys: `default` for a flat tariff, the dimension value for one dimension (`720p`), and the
 * values joined by `:` for a matrix (`480p:refInput`, `imagine:fast`), which also carries
 * `dimensions`.
 */
export type Cell = Readonly<Record<string, string>>;

export interface TariffDef {
  readonly dims: readonly string[];
  readonly price: (cell: Cell) => string | undefined;
}

export function flat(price: string): TariffDef {
  return { dims: [], price: () => price };
}

/** One dimension: value → price. */
export function by(dim: string, prices: Readonly<Record<string, string>>): TariffDef {
  return { dims: [dim], price: (cell) => prices[cell[dim] ?? ''] };
}

/** Several dimensions: a price per cell key, or a function of the cell. */
export function matrix(dims: readonly string[], prices: Readonly<Record<string, string>> | ((cell: Cell) => string | undefined)): TariffDef {
  return { dims, price: typeof prices === 'function' ? prices : (cell) => prices[cellKey(dims, cell)] };
}

export function cellKey(dims: readonly string[], cell: Cell): string {
  return dims.length === 0 ? 'default' : dims.map((d) => cell[d] ?? '').join(':');
}
