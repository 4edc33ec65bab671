/**
 * Input mapping as data: our `input` (camelCase, validated by the catalog) to a vendor's parameter
 * names. A style declares, per family, a table of rules; fields the table does not name follow the
 * table's default (snake_case them, or drop them).
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';

export type FieldRule =
  /** Rename, value unchanged. */
  | string
  /** Leave the field out. */
  | false
  /** Rename and convert; a conversion that returns undefined leaves the field out. */
  | { to: string; value: (value: unknown, input: ValidatedInput) => unknown };

export interface FieldTable {
  rules: Readonly<Record<string, FieldRule>>;
  /** Fields without a rule: snake_case their names (the default), or drop them. */
  others?: 'snake' | 'drop';
}

export function snakeCase(name: string): string {
  return name.replace(/([a-z0-9])([A-Z])/gu, '$1_$2').replace(/([A-Z])([A-Z][a-z])/gu, '$1_$2').toLowerCase();
}

function snakeDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(snakeDeep);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [snakeCase(k), snakeDeep(v)]));
  }
  return value;
}

export function mapFields(input: ValidatedInput, table: FieldTable): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(input)) {
    if (value === undefined) continue;
    const rule = table.rules[name];
    if (rule === false) continue;
    if (rule === undefined) {
      if ((table.others ?? 'snake') === 'snake') out[snakeCase(name)] = snakeDeep(value);
      continue;
    }
    if (typeof rule === 'string') {
      out[rule] = value;
      continue;
    }
    const converted = rule.value(value, input);
    if (converted !== undefined) out[rule.to] = converted;
  }
  return out;
}

/** A rule that renames and turns the value into a string (vendors that take "10" for 10). */
export function asString(to: string): FieldRule {
  return { to, value: (v) => String(v) };
}

/** A rule that renames and looks the value up in a table (values not listed are dropped). */
export function lookup(to: string, table: Readonly<Record<string, unknown>>): FieldRule {
  return { to, value: (v) => table[String(v)] };
}

/** A rule that renames and keeps only the first item of a list. */
export function firstItem(to: string): FieldRule {
  return { to, value: (v) => (Array.isArray(v) ? v[0] : v) };
}

export function stringList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
}

export function has(input: ValidatedInput, name: string): boolean {
  const v = input[name];
  return v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0) && v !== '';
}

/** `{url, role}` items of imageWithRoles. */
export function roleItems(input: ValidatedInput): Array<{ url: string; role: string }> {
  const items = input.imageWithRoles;
  if (!Array.isArray(items)) return [];
  const out: Array<{ url: string; role: string }> = [];
  for (const item of items) {
    if (item !== null && typeof item === 'object' && 'url' in item && 'role' in item && typeof item.url === 'string' && typeof item.role === 'string') {
      out.push({ url: item.url, role: item.role });
    }
  }
  return out;
}
