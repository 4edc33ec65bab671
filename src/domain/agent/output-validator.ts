/**
 * The check of a value against an `outputSchema` (the extraction's result), compiled once: every
 * schema node becomes a closure, a `$ref` is the shared closure of its definition (compiled once,
 * never copied), patterns are compiled once for the linear-time engine (user-pattern.ts), and
 * `anyOf` stops a branch at its first error. Every node visited costs a step, and a pattern match
 * costs its text's length times a share of the pattern's: past the budget the check stops with a
 * clear error instead of holding the event loop. A schema that fails the expansion bounds (a stored
 * one from before they existed) compiles to a check that always fails, with the reason.
 *
 * The verdicts are the interpreter's before it: the same errors, pointers and messages, the first
 * MAX_VALUE_ERRORS of them.
 */
import { fromPointerToken, measureExpansion, pointerToken } from './output-schema-bounds.ts';
import { compileUserPattern, type UserPattern } from './user-pattern.ts';

export interface ValueError {
  pointer: string;
  message: string;
}

export interface OutputValidator {
  validate(value: unknown): ValueError[];
}

const MAX_VALUE_ERRORS = 20;
/**
 * About 10 ms of work on this machine when warm, 40 ms cold (bench/output-validator.ts): an ordinary
 * result takes a few hundred steps.
 */
export const VALIDATION_STEP_BUDGET = 400_000;
/**
 * A match costs PATTERN_CALL_STEPS + (text length) × (1 + size / PATTERN_SIZE_DIVISOR) steps: RE2
 * without its DFA steps every state of the program (size) for every character (measured: 2.5 to 5 ns
 * per character and unit of size, against about 25 to 100 ns per step).
 */
const PATTERN_CALL_STEPS = 40;
const PATTERN_SIZE_DIVISOR = 8;

type Json = Record<string, unknown>;

interface Run {
  readonly errors: ValueError[];
  /** Errors found (inside an anyOf branch: in that branch, which keeps none of them). */
  count: number;
  /** Stop descending once this many errors are found (1 inside an anyOf branch: a verdict is all it needs). */
  limit: number;
  /** Inside an anyOf branch: errors are counted, not kept. */
  silent: boolean;
  steps: number;
  readonly budget: number;
}

type Check = (v: unknown, at: string, run: Run) => void;

class BudgetSpent extends Error {}

export function compileOutputSchema(schema: Json, budget = VALIDATION_STEP_BUDGET): OutputValidator {
  const bounds = measureExpansion(schema);
  if (!bounds.ok) {
    const refusal = [{ pointer: '', message: `the output schema cannot be checked: ${bounds.pointer || '/'} ${bounds.message}` }];
    return { validate: () => refusal.map((e) => ({ ...e })) };
  }
  const check = new SchemaCompiler(schema).compile();
  return {
    validate(value) {
      const run: Run = { errors: [], count: 0, limit: MAX_VALUE_ERRORS, silent: false, steps: 0, budget };
      try {
        check(value, '', run);
      } catch (error) {
        if (!(error instanceof BudgetSpent)) throw error;
        return [{ pointer: '', message: `checking the value stopped after ${budget} steps: the value is too large for this schema` }];
      }
      return run.errors;
    },
  };
}

/** Errors past the run's limit are not kept: the first ones are what the caller sees. */
function fail(run: Run, pointer: string, message: string): void {
  if (run.count >= run.limit) return;
  run.count += 1;
  if (!run.silent) run.errors.push({ pointer, message });
}

function step(run: Run, cost = 1): void {
  run.steps += cost;
  if (run.steps > run.budget) throw new BudgetSpent();
}

class SchemaCompiler {
  readonly #defs: Json;
  readonly #compiled = new Map<string, Check>();
  readonly #patterns = new Map<string, UserPattern | string>();

  readonly #root: Json;

  constructor(root: Json) {
    this.#defs = isPlainObject(root.$defs) ? root.$defs : {};
    this.#root = root;
  }

  compile(): Check {
    return this.#node(this.#root);
  }

  #node(node: Json): Check {
    if (typeof node.$ref === 'string') return this.#ref(node.$ref);
    if (Array.isArray(node.anyOf)) return this.#anyOf(node.anyOf.filter(isPlainObject).map((b) => this.#node(b)));
    const enumCheck = Array.isArray(node.enum) ? enumOf(node.enum) : undefined;
    const typeCheck = node.type === undefined ? undefined : this.#typed(node);
    return (v, at, run) => {
      step(run);
      if (run.count >= run.limit) return;
      if (enumCheck && !enumCheck.has(v)) {
        fail(run, at, enumCheck.message);
        return;
      }
      typeCheck?.(v, at, run);
    };
  }

  /** Acyclic by the expansion bounds, so each definition compiles once, before its first user. */
  #ref(ref: string): Check {
    const name = fromPointerToken(ref.slice('#/$defs/'.length));
    const known = this.#compiled.get(name);
    if (known) return known;
    const target = this.#defs[name];
    const check: Check = isPlainObject(target) ? this.#node(target) : () => {};
    this.#compiled.set(name, check);
    return check;
  }

  #anyOf(branches: Check[]): Check {
    return (v, at, run) => {
      step(run);
      if (run.count >= run.limit) return;
      const { count, limit, silent } = run;
      let fits = false;
      run.limit = 1;
      run.silent = true;
      for (const branch of branches) {
        run.count = 0;
        branch(v, '', run);
        if (run.count === 0) {
          fits = true;
          break;
        }
      }
      // A spent budget ends the whole check (BudgetSpent), so nothing needs restoring on a throw.
      run.count = count;
      run.limit = limit;
      run.silent = silent;
      if (!fits) fail(run, at, 'the value matches none of the anyOf branches');
    };
  }

  #typed(node: Json): Check {
    const types = Array.isArray(node.type) ? (node.type as string[]) : [node.type as string];
    const mismatch = `must be ${types.join(' or ')}`;
    const string = types.includes('string') ? this.#string(node) : undefined;
    const number = types.includes('number') || types.includes('integer') ? numberCheck(node) : undefined;
    const array = types.includes('array') ? this.#array(node) : undefined;
    const object = types.includes('object') ? this.#object(node) : undefined;
    return (v, at, run) => {
      const type = types.find((t) => hasType(v, t));
      if (type === undefined) {
        fail(run, at, mismatch);
        return;
      }
      if (type === 'string') string?.(v, at, run);
      else if (type === 'number' || type === 'integer') number?.(v, at, run);
      else if (type === 'array') array?.(v, at, run);
      else if (type === 'object') object?.(v, at, run);
    };
  }

  #string(node: Json): Check | undefined {
    const pattern = typeof node.pattern === 'string' ? this.#pattern(node.pattern) : undefined;
    const patternMessage = typeof node.pattern === 'string' ? `does not match the pattern ${node.pattern.slice(0, 100)}` : '';
    const perCharacter = typeof pattern === 'object' ? 1 + pattern.size / PATTERN_SIZE_DIVISOR : 0;
    const format = typeof node.format === 'string' ? FORMAT_CHECKS[node.format] : undefined;
    const formatMessage = `is not a valid ${String(node.format)}`;
    if (pattern === undefined && format === undefined) return undefined;
    return (v, at, run) => {
      const text = v as string;
      if (pattern !== undefined) {
        if (typeof pattern === 'string') fail(run, at, pattern);
        else {
          step(run, PATTERN_CALL_STEPS + Math.ceil(text.length * perCharacter));
          if (!pattern.test(text)) fail(run, at, patternMessage);
        }
      }
      if (format && !(text.length <= format.maxLength && format.re.test(text))) fail(run, at, formatMessage);
    };
  }

  /** A pattern from before the pattern rule may not compile: its check then always fails, saying why. */
  #pattern(source: string): UserPattern | string {
    let compiled = this.#patterns.get(source);
    if (compiled === undefined) {
      try {
        compiled = compileUserPattern(source);
      } catch (error) {
        compiled = `cannot be checked against the pattern ${source.slice(0, 100)}: ${error instanceof Error ? error.message : String(error)}`;
      }
      this.#patterns.set(source, compiled);
    }
    return compiled;
  }

  #array(node: Json): Check {
    const min = typeof node.minItems === 'number' ? node.minItems : undefined;
    const max = typeof node.maxItems === 'number' ? node.maxItems : undefined;
    const items = isPlainObject(node.items) ? this.#node(node.items) : undefined;
    return (v, at, run) => {
      const list = v as unknown[];
      if (min !== undefined && list.length < min) fail(run, at, `must have at least ${min} items`);
      if (max !== undefined && list.length > max) fail(run, at, `must have at most ${max} items`);
      if (items) for (let i = 0; i < list.length; i++) items(list[i], `${at}/${i}`, run);
    };
  }

  #object(node: Json): Check {
    const properties = isPlainObject(node.properties) ? node.properties : {};
    const known = new Set(Object.keys(properties));
    const fields = Object.entries(properties).map(([key, sub]) => ({ key, token: `/${pointerToken(key)}`, check: isPlainObject(sub) ? this.#node(sub) : undefined }));
    return (v, at, run) => {
      const value = v as Json;
      const keys = Object.keys(value);
      step(run, keys.length);
      for (const key of keys) if (!known.has(key)) fail(run, `${at}/${pointerToken(key)}`, 'is not a property of the schema');
      for (const field of fields) {
        if (!Object.hasOwn(value, field.key)) fail(run, at + field.token, 'is required');
        else field.check?.(value[field.key], at + field.token, run);
      }
    };
  }
}

function enumOf(values: unknown[]): { has(v: unknown): boolean; message: string } {
  const set = new Set(values);
  return { has: (v) => set.has(v), message: `must be one of ${values.map((e) => JSON.stringify(e)).join(', ').slice(0, 300)}` };
}

function numberCheck(node: Json): Check | undefined {
  const { minimum, maximum, exclusiveMinimum, exclusiveMaximum, multipleOf } = node;
  const bounds: Array<[(v: number) => boolean, string]> = [];
  if (typeof minimum === 'number') bounds.push([(v) => v < minimum, `must be at least ${minimum}`]);
  if (typeof maximum === 'number') bounds.push([(v) => v > maximum, `must be at most ${maximum}`]);
  if (typeof exclusiveMinimum === 'number') bounds.push([(v) => v <= exclusiveMinimum, `must be more than ${exclusiveMinimum}`]);
  if (typeof exclusiveMaximum === 'number') bounds.push([(v) => v >= exclusiveMaximum, `must be less than ${exclusiveMaximum}`]);
  if (typeof multipleOf === 'number') bounds.push([(v) => Math.abs(v / multipleOf - Math.round(v / multipleOf)) > 1e-9, `must be a multiple of ${multipleOf}`]);
  if (bounds.length === 0) return undefined;
  return (v, at, run) => {
    for (const [fails, message] of bounds) if (fails(v as number)) fail(run, at, message);
  };
}

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return v === null;
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isPlainObject(v);
    default:
      return false;
  }
}

/**
 * Formats, each with the longest text it can be: two of these expressions (email, ipv6) backtrack
 * quadratically (40 KB took 0.8 s), and no valid value comes near the cap.
 */
const FORMAT_CHECKS: Record<string, { re: RegExp; maxLength: number }> = {
  'date-time': { maxLength: 64, re: /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/ },
  time: { maxLength: 64, re: /^\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/ },
  date: { maxLength: 10, re: /^\d{4}-\d{2}-\d{2}$/ },
  duration: { maxLength: 128, re: /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/ },
  email: { maxLength: 254, re: /^[^\s@]+@[^\s@]+\.[^\s@]+$/ },
  hostname: { maxLength: 253, re: /^(?=.{1,253}$)([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/ },
  ipv4: { maxLength: 15, re: /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/ },
  ipv6: { maxLength: 45, re: /^[0-9a-fA-F:]*:[0-9a-fA-F:.]*$/ },
  uuid: { maxLength: 36, re: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/ },
};

function isPlainObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
