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
  /**
   * Either/or between sets of fields ("one of these"): the need is met when every field of one set is
   * filled (a voice: a recording, its verification and phrase; or a track's id, clip, start and end).
   * The set in use is the first with a field filled; until one is, only each set's first field is
   * required, as alternatives. The rule's `field` is the first field of the first set.
   */
  readonly alternatives?: readonly (readonly string[])[];
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

/** The set of an either/or rule this input is using: the first with a field filled; none yet, undefined. */
function setInUse(sets: readonly (readonly string[])[], input: Readonly<Record<string, unknown>>): readonly string[] | undefined {
  return sets.find((set) => set.some((name) => isFilled(input[name])));
}

function isMet(rule: RequiredRule, input: Readonly<Record<string, unknown>>): boolean {
  if (rule.alternatives) return rule.alternatives.some((set) => set.every((name) => isFilled(input[name])));
  return [rule.field, ...(rule.orFields ?? [])].some((name) => isFilled(input[name]));
}

/** The rules that apply to this input (with its defaults) and that it does not meet, in declaration order. */
export function unmetRequirements(rules: readonly RequiredRule[], input: Readonly<Record<string, unknown>>): RequiredRule[] {
  return rules.filter((rule) => conditionHolds(rule.when, input) && !isMet(rule, input));
}

/**
 * What an unmet rule still needs, each entry one need given by the fields that would meet it
 * ([["sourceTaskId", "audioUrl"]]; for a voice begun from a track, [["startS"], ["endS"]]).
 */
export function missingOf(rule: RequiredRule, input: Readonly<Record<string, unknown>>): string[][] {
  if (!rule.alternatives) return [[rule.field, ...(rule.orFields ?? [])]];
  const set = setInUse(rule.alternatives, input);
  if (!set) return [rule.alternatives.map((s) => s[0] as string)];
  return set.filter((name) => !isFilled(input[name])).map((name) => [name]);
}

/** The service's refusal of an unmet rule: on the first field it needs, naming what else would do. */
export function unmetMessage(rule: RequiredRule, input: Readonly<Record<string, unknown>>): { field: string; message: string } {
  const [need = [rule.field]] = missingOf(rule, input);
  const [field = rule.field, ...others] = need;
  const sets = rule.alternatives ? ` (one of: ${rule.alternatives.map((set) => set.join(', ')).join('; or ')})` : '';
  return { field, message: `${others.map((f) => `or input.${f} `).join('')}is required ${rule.reason}${sets}` };
}

/**
 * The fields the rules make required for this input (met or not), each with the fields that would do
 * instead: the form marks them ("required", "required: this or Audio URL").
 */
export function requiredMarks(rules: readonly RequiredRule[], input: Readonly<Record<string, unknown>>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  const mark = (group: readonly string[]) => {
    for (const name of group) if (!out.has(name)) out.set(name, group.filter((n) => n !== name));
  };
  for (const rule of rules) {
    if (!conditionHolds(rule.when, input)) continue;
    if (!rule.alternatives) mark([rule.field, ...(rule.orFields ?? [])]);
    else {
      const set = setInUse(rule.alternatives, input);
      if (set) for (const name of set) mark([name]);
      else mark(rule.alternatives.map((s) => s[0] as string));
    }
  }
  return out;
}

/** The names of the fields a rule makes required for this input (met or not). */
export function requiredFieldNames(rules: readonly RequiredRule[], input: Readonly<Record<string, unknown>>): Set<string> {
  return new Set(requiredMarks(rules, input).keys());
}

/** The rules published on params, back as one list (params in order, each param's rules in order). */
export function rulesOfParams(params: readonly { name: string; requiredWhen?: readonly PublishedRequirement[] | undefined }[]): RequiredRule[] {
  return params.flatMap((p) => (p.requiredWhen ?? []).map((r) => ({ field: p.name, ...r })));
}
