/**
 * Fields that are required only in some modes or actions (Suno's `continueAt` for extend, `tags` in
 * custom mode), declared once as data. The service's validation refuses a request that misses one,
 * the catalog publishes the same rules on each param (`requiredWhen`), and the dashboard marks and
 * checks them with this same function. No imports: the dashboard bundles this file.
 */

/** The values of other fields under which a field is required; every entry must hold (defaults count). */
export type RequiredCondition = Readonly<Record<string, readonly (string | boolean)[]>>;

/** One requirement as a param publishes it. */
export interface PublishedRequirement {
  readonly when: RequiredCondition;
  /** Other fields that satisfy the need as well (a source track: sourceTaskId or audioUrl). */
  readonly orFields?: readonly string[];
  /** Why, in words following "is required": "for action extend", "in custom mode (custom: true)". */
  readonly reason: string;
}

export interface RequiredRule extends PublishedRequirement {
  readonly field: string;
}

/** Present and not empty (an empty string, array or object counts as absent). */
export function isFilled(value: unknown): boolean {
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim() !== '';
  if (Array.isArray(value)) return value.length > 0;
  if (typeof value === 'object') return Object.keys(value).length > 0;
  return true;
}

export function conditionHolds(when: RequiredCondition, input: Readonly<Record<string, unknown>>): boolean {
  return Object.entries(when).every(([name, values]) => {
    const value = input[name];
    return (typeof value === 'string' || typeof value === 'boolean') && values.includes(value);
  });
}

/** The rules that apply to this input (with its defaults) and that it does not meet, in declaration order. */
export function unmetRequirements(rules: readonly RequiredRule[], input: Readonly<Record<string, unknown>>): RequiredRule[] {
  return rules.filter((rule) => conditionHolds(rule.when, input) && ![rule.field, ...(rule.orFields ?? [])].some((name) => isFilled(input[name])));
}

/** The names of the fields a rule makes required for this input (met or not): the form marks them. */
export function requiredFieldNames(rules: readonly RequiredRule[], input: Readonly<Record<string, unknown>>): Set<string> {
  const out = new Set<string>();
  for (const rule of rules) if (conditionHolds(rule.when, input)) for (const name of [rule.field, ...(rule.orFields ?? [])]) out.add(name);
  return out;
}

/** The rules published on params, back as one list (params in order, each param's rules in order). */
export function rulesOfParams(params: readonly { name: string; requiredWhen?: readonly PublishedRequirement[] | undefined }[]): RequiredRule[] {
  return params.flatMap((p) => (p.requiredWhen ?? []).map((r) => ({ field: p.name, ...r })));
}
