/**
 * The closed JSON Schema subset a run's `outputSchema` may use (SPEC rule 17, AGENT.md "Structured
 * output subset"), checked before anything is charged, and the check of a value against such a
 * schema (the extraction's result). Refusals name the place with a JSON pointer (RFC 6901).
 *
 * Subset: the root is an object; every object lists all its properties in `required` (an optional
 * one is a union with null) and has `additionalProperties: false`; types string, number, integer,
 * boolean, object, array, null, `enum`, `anyOf`; `$ref` only to `#/$defs/…`; keywords pattern,
 * format (date-time, time, date, duration, email, hostname, ipv4, ipv6, uuid), multipleOf, minimum,
 * maximum, exclusiveMinimum, exclusiveMaximum, minItems, maxItems, plus the annotations title and
 * description. Anything else is refused. Limits: depth 10 (arrays count), 5,000 properties, 1,000
 * enum values, 120,000 characters of names and values; followed through `$ref`, no cycle, at most
 * 50,000 nodes and depth 64 (output-schema-bounds.ts); patterns in the linear-time subset
 * (user-pattern.ts). Values are checked by a compiled validator with a step budget
 * (output-validator.ts).
 */
import { requestHash } from '../canonical-json.ts';
import { fromPointerToken, measureExpansion, pointerToken } from './output-schema-bounds.ts';
import { compileOutputSchema, type ValueError } from './output-validator.ts';
import { checkUserPattern, MAX_PATTERN } from './user-pattern.ts';

export { compileOutputSchema, type OutputValidator, type ValueError } from './output-validator.ts';

/** `patternSize`: the schema's distinct patterns together, each its size (user-pattern.ts) and at least 10: compiling them is linear in it. */
export const OUTPUT_SCHEMA_LIMITS = { depth: 10, properties: 5_000, enumValues: 1_000, characters: 120_000, patternSize: 2_000 } as const;
const MIN_PATTERN_COST = 10;
export const OUTPUT_FORMATS = ['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'] as const;

const TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
const KEYWORDS = new Set([
  'type',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'enum',
  'anyOf',
  '$ref',
  '$defs',
  'title',
  'description',
  'pattern',
  'format',
  'multipleOf',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minItems',
  'maxItems',
]);
const NUMERIC = ['multipleOf', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;

export type SchemaCheck = { ok: true } | { ok: false; pointer: string; message: string };

type Json = Record<string, unknown>;

class SchemaRefusal extends Error {
  readonly pointer: string;

  constructor(pointer: string, message: string) {
    super(message);
    this.pointer = pointer;
  }
}

export function checkOutputSchema(schema: unknown): SchemaCheck {
  try {
    new SubsetChecker(schema).check();
    return { ok: true };
  } catch (error) {
    if (error instanceof SchemaRefusal) return { ok: false, pointer: error.pointer, message: error.message };
    throw error;
  }
}

/** SHA-256 of the schema's RFC 8785 canonical JSON. */
export function outputSchemaHash(schema: unknown): string {
  return requestHash(schema);
}

class SubsetChecker {
  readonly #root: unknown;
  #properties = 0;
  #enumValues = 0;
  #characters = 0;
  #patternSize = 0;
  readonly #patterns = new Set<string>();
  #defs: Json = {};

  constructor(root: unknown) {
    this.#root = root;
  }

  check(): void {
    const root = this.#root;
    if (!isPlainObject(root)) throw new SchemaRefusal('', 'the output schema must be a JSON object');
    if (root.type !== 'object') throw new SchemaRefusal('/type', 'the root of the output schema must be of type object');
    if (root.$defs !== undefined) {
      if (!isPlainObject(root.$defs)) throw new SchemaRefusal('/$defs', '$defs must be an object of schemas');
      this.#defs = root.$defs;
      for (const [name, def] of Object.entries(root.$defs)) {
        this.#count(name.length, `/$defs/${pointerToken(name)}`);
        this.#node(def, `/$defs/${pointerToken(name)}`, 1);
      }
    }
    this.#node(root, '', 0, true);
    const expansion = measureExpansion(root);
    if (!expansion.ok) throw new SchemaRefusal(expansion.pointer, expansion.message);
  }

  #count(characters: number, pointer: string): void {
    this.#characters += characters;
    if (this.#characters > OUTPUT_SCHEMA_LIMITS.characters) throw new SchemaRefusal(pointer, `the schema holds more than ${OUTPUT_SCHEMA_LIMITS.characters} characters of names and values`);
  }

  #node(node: unknown, pointer: string, depth: number, isRoot = false): void {
    if (!isPlainObject(node)) throw new SchemaRefusal(pointer, 'a schema must be a JSON object');
    if (depth > OUTPUT_SCHEMA_LIMITS.depth) throw new SchemaRefusal(pointer, `the schema is nested deeper than ${OUTPUT_SCHEMA_LIMITS.depth} levels`);
    for (const key of Object.keys(node)) {
      if (!KEYWORDS.has(key)) throw new SchemaRefusal(`${pointer}/${pointerToken(key)}`, `${key} is not part of the supported schema subset`);
      if (key === '$defs' && !isRoot) throw new SchemaRefusal(`${pointer}/$defs`, '$defs is allowed only at the root');
    }
    for (const key of ['title', 'description'] as const) {
      if (node[key] === undefined) continue;
      if (typeof node[key] !== 'string') throw new SchemaRefusal(`${pointer}/${key}`, `${key} must be a string`);
      this.#count(node[key].length, `${pointer}/${key}`);
    }
    if (node.$ref !== undefined) {
      this.#ref(node, pointer);
      return;
    }
    if (node.anyOf !== undefined) {
      this.#anyOf(node, pointer, depth);
      return;
    }
    if (node.enum !== undefined) this.#enum(node, pointer);
    const types = this.#types(node, pointer);
    this.#keywordsFit(node, pointer, types);
    if (types.has('object')) this.#object(node, pointer, depth);
    if (types.has('array')) this.#array(node, pointer, depth);
  }

  #ref(node: Json, pointer: string): void {
    const others = Object.keys(node).filter((k) => k !== '$ref' && k !== 'title' && k !== 'description');
    if (others.length > 0) throw new SchemaRefusal(`${pointer}/${pointerToken(others[0] ?? '')}`, '$ref takes no other keywords');
    const ref = node.$ref;
    if (typeof ref !== 'string' || !ref.startsWith('#/$defs/')) throw new SchemaRefusal(`${pointer}/$ref`, '$ref must point into #/$defs/ of this schema');
    const raw = ref.slice('#/$defs/'.length);
    const name = fromPointerToken(raw);
    if (raw.includes('/') || !Object.hasOwn(this.#defs, name)) throw new SchemaRefusal(`${pointer}/$ref`, `${ref.slice(0, 200)} names no definition of #/$defs`);
  }

  #anyOf(node: Json, pointer: string, depth: number): void {
    const others = Object.keys(node).filter((k) => k !== 'anyOf' && k !== 'title' && k !== 'description');
    if (others.length > 0) throw new SchemaRefusal(`${pointer}/${pointerToken(others[0] ?? '')}`, 'anyOf takes no other keywords here; put them in its branches');
    const branches = node.anyOf;
    if (!Array.isArray(branches) || branches.length === 0) throw new SchemaRefusal(`${pointer}/anyOf`, 'anyOf must be a non-empty array of schemas');
    branches.forEach((branch, i) => {
      this.#node(branch, `${pointer}/anyOf/${i}`, depth + 1);
    });
  }

  #enum(node: Json, pointer: string): void {
    const values = node.enum;
    if (!Array.isArray(values) || values.length === 0) throw new SchemaRefusal(`${pointer}/enum`, 'enum must be a non-empty array');
    this.#enumValues += values.length;
    if (this.#enumValues > OUTPUT_SCHEMA_LIMITS.enumValues) throw new SchemaRefusal(`${pointer}/enum`, `the schema has more than ${OUTPUT_SCHEMA_LIMITS.enumValues} enum values`);
    values.forEach((value, i) => {
      if (value !== null && typeof value !== 'string' && typeof value !== 'boolean' && !(typeof value === 'number' && Number.isFinite(value))) {
        throw new SchemaRefusal(`${pointer}/enum/${i}`, 'enum values must be strings, numbers, booleans or null');
      }
      this.#count(typeof value === 'string' ? value.length : String(value).length, `${pointer}/enum/${i}`);
    });
  }

  #types(node: Json, pointer: string): Set<string> {
    const type = node.type;
    if (type === undefined) {
      if (node.enum !== undefined) return new Set();
      throw new SchemaRefusal(pointer, 'a schema needs a type, an enum, anyOf or $ref');
    }
    const list = Array.isArray(type) ? type : [type];
    if (list.length === 0) throw new SchemaRefusal(`${pointer}/type`, 'type must name at least one type');
    const set = new Set<string>();
    list.forEach((t, i) => {
      if (typeof t !== 'string' || !TYPES.has(t)) throw new SchemaRefusal(Array.isArray(type) ? `${pointer}/type/${i}` : `${pointer}/type`, `type must be one of ${[...TYPES].join(', ')}`);
      if (set.has(t)) throw new SchemaRefusal(`${pointer}/type/${i}`, `${t} is listed twice`);
      set.add(t);
    });
    const real = [...set].filter((t) => t !== 'null');
    if (real.length > 1) throw new SchemaRefusal(`${pointer}/type`, 'a type list may only add null to one type (use anyOf for other unions)');
    return set;
  }

  #keywordsFit(node: Json, pointer: string, types: Set<string>): void {
    const numeric = types.has('number') || types.has('integer');
    for (const key of NUMERIC) {
      if (node[key] === undefined) continue;
      if (!numeric) throw new SchemaRefusal(`${pointer}/${key}`, `${key} applies to numbers only`);
      const value = node[key];
      if (typeof value !== 'number' || !Number.isFinite(value)) throw new SchemaRefusal(`${pointer}/${key}`, `${key} must be a number`);
      if (key === 'multipleOf' && value <= 0) throw new SchemaRefusal(`${pointer}/${key}`, 'multipleOf must be greater than 0');
    }
    for (const [low, high] of [['minimum', 'maximum'], ['exclusiveMinimum', 'exclusiveMaximum']] as const) {
      const a = node[low];
      const b = node[high];
      if (typeof a === 'number' && typeof b === 'number' && a > b) throw new SchemaRefusal(`${pointer}/${low}`, `${low} is greater than ${high}`);
    }
    if (node.pattern !== undefined || node.format !== undefined) {
      if (!types.has('string')) throw new SchemaRefusal(`${pointer}/${node.pattern !== undefined ? 'pattern' : 'format'}`, 'pattern and format apply to strings only');
    }
    if (node.pattern !== undefined) {
      const pattern = node.pattern;
      if (typeof pattern !== 'string' || pattern.length > MAX_PATTERN) throw new SchemaRefusal(`${pointer}/pattern`, `pattern must be a regular expression of at most ${MAX_PATTERN} characters`);
      this.#count(pattern.length, `${pointer}/pattern`);
      this.#pattern(pattern, `${pointer}/pattern`);
    }
    if (node.format !== undefined && (typeof node.format !== 'string' || !(OUTPUT_FORMATS as readonly string[]).includes(node.format))) {
      throw new SchemaRefusal(`${pointer}/format`, `format must be one of ${OUTPUT_FORMATS.join(', ')}`);
    }
    for (const key of ['minItems', 'maxItems'] as const) {
      if (node[key] === undefined) continue;
      if (!types.has('array')) throw new SchemaRefusal(`${pointer}/${key}`, `${key} applies to arrays only`);
      const value = node[key];
      if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) throw new SchemaRefusal(`${pointer}/${key}`, `${key} must be a whole number, 0 or more`);
    }
    if (typeof node.minItems === 'number' && typeof node.maxItems === 'number' && node.minItems > node.maxItems) throw new SchemaRefusal(`${pointer}/minItems`, 'minItems is greater than maxItems');
    for (const key of ['properties', 'required', 'additionalProperties'] as const) {
      if (node[key] !== undefined && !types.has('object')) throw new SchemaRefusal(`${pointer}/${key}`, `${key} applies to objects only`);
    }
    if (node.items !== undefined && !types.has('array')) throw new SchemaRefusal(`${pointer}/items`, 'items applies to arrays only');
  }

  /** Each distinct pattern is checked (and compiled) once. */
  #pattern(pattern: string, pointer: string): void {
    if (this.#patterns.has(pattern)) return;
    const verdict = checkUserPattern(pattern);
    if (!verdict.ok) throw new SchemaRefusal(pointer, verdict.message);
    this.#patterns.add(pattern);
    this.#patternSize += Math.max(MIN_PATTERN_COST, verdict.size);
    if (this.#patternSize > OUTPUT_SCHEMA_LIMITS.patternSize) {
      throw new SchemaRefusal(pointer, `the schema's patterns are too large together: more than ${OUTPUT_SCHEMA_LIMITS.patternSize} atoms (each pattern counts at least ${MIN_PATTERN_COST})`);
    }
  }

  #object(node: Json, pointer: string, depth: number): void {
    if (node.additionalProperties !== false) throw new SchemaRefusal(`${pointer}/additionalProperties`, 'every object must set additionalProperties: false');
    const properties = node.properties ?? {};
    if (!isPlainObject(properties)) throw new SchemaRefusal(`${pointer}/properties`, 'properties must be an object of schemas');
    const names = Object.keys(properties);
    const required = node.required ?? [];
    if (!Array.isArray(required) || required.some((r) => typeof r !== 'string')) throw new SchemaRefusal(`${pointer}/required`, 'required must be an array of property names');
    const listed = new Set(required as string[]);
    if (listed.size !== required.length) throw new SchemaRefusal(`${pointer}/required`, 'required lists a property twice');
    for (const name of names) {
      if (!listed.has(name)) throw new SchemaRefusal(`${pointer}/required`, `every property must be required (an optional one is a union with null): ${name.slice(0, 100)} is missing`);
    }
    for (const name of listed) if (!Object.hasOwn(properties, name)) throw new SchemaRefusal(`${pointer}/required`, `required names ${name.slice(0, 100)}, which is not a property`);
    this.#properties += names.length;
    if (this.#properties > OUTPUT_SCHEMA_LIMITS.properties) throw new SchemaRefusal(`${pointer}/properties`, `the schema has more than ${OUTPUT_SCHEMA_LIMITS.properties} properties`);
    for (const name of names) {
      const at = `${pointer}/properties/${pointerToken(name)}`;
      this.#count(name.length, at);
      this.#node(properties[name], at, depth + 1);
    }
  }

  #array(node: Json, pointer: string, depth: number): void {
    if (node.items === undefined) throw new SchemaRefusal(`${pointer}/items`, 'an array needs items: the schema of its elements');
    this.#node(node.items, `${pointer}/items`, depth + 1);
  }
}

/** Checks a value against a schema that passed checkOutputSchema; the first errors, with pointers. Compile once (compileOutputSchema) to check several values. */
export function validateOutput(schema: Json, value: unknown): ValueError[] {
  return compileOutputSchema(schema).validate(value);
}

function isPlainObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
