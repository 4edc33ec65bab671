/**
 * The strict fakes' check of a request body against a vendor's published request type (issue 18): a
 * JSON Schema generated from the vendor SDK's TypeScript declarations, kept under
 * test/fixtures/upstreams/ with its source and the date it was read. Interfaces are closed (an
 * unknown or misspelt field is an error at any depth), enums and required fields are checked, as the
 * real services check them. The schema is compiled once per file, on first use.
 */
import { readFileSync } from 'node:fs';

const FIXTURES = new URL('../fixtures/upstreams/', import.meta.url);

export interface UpstreamFixture {
  source: string;
  retrieved: string;
  schema: Schema;
}

/** One finding, as a vendor would name it: the JSON path of the field and what is wrong with it. */
export interface SchemaViolation {
  /** Path segments from the body's root (`['messages', 0, 'content']`); empty for the body itself. */
  path: Array<string | number>;
  kind: 'unknown_field' | 'missing_field' | 'invalid_value' | 'invalid_type';
  /** The unknown or missing field's name, for those kinds. */
  field?: string;
  /** The values the schema allows, for an enum or a constant. */
  allowed?: unknown[];
  /** The value that was sent, for an invalid value or type. */
  value?: unknown;
  /** The JSON types expected, for an invalid type. */
  expected?: string;
}

/** The subset of JSON Schema the generator emits. */
interface Schema {
  $ref?: string;
  definitions?: Record<string, Schema>;
  anyOf?: Schema[];
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: boolean | Schema;
  items?: Schema;
}

const loaded = new Map<string, UpstreamFixture>();

export function loadFixture(file: string): UpstreamFixture {
  let fixture = loaded.get(file);
  if (!fixture) {
    fixture = JSON.parse(readFileSync(new URL(file, FIXTURES), 'utf8')) as UpstreamFixture;
    loaded.set(file, fixture);
  }
  return fixture;
}

/** The violation of `body` against the fixture's schema that a vendor would report, or undefined. */
export function checkAgainstFixture(file: string, body: unknown): SchemaViolation | undefined {
  const root = loadFixture(file).schema;
  return new Checker(root).check(root, body, []);
}

/** For tests of the fakes' own answers: conforms, or the violation as text. */
export function conforms(file: string, value: unknown): { ok: true } | { ok: false; errors: string } {
  const violation = checkAgainstFixture(file, value);
  return violation ? { ok: false, errors: JSON.stringify(violation) } : { ok: true };
}

/** The keys by which the vendors' unions tell their members apart (content block `type`, message `role`). */
const DISCRIMINATORS = ['type', 'role'];

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

class Checker {
  readonly #definitions: Record<string, Schema>;

  constructor(root: Schema) {
    this.#definitions = root.definitions ?? {};
  }

  #resolve(schema: Schema): Schema {
    let at = schema;
    for (let hops = 0; at.$ref !== undefined && hops < 50; hops++) {
      const name = decodeURIComponent(at.$ref.replace(/^#\/definitions\//, ''));
      const target = this.#definitions[name];
      if (!target) throw new Error(`schema reference ${at.$ref} not found`);
      at = target;
    }
    return at;
  }

  /** The members of a union, nested unions flattened. */
  #members(schema: Schema): Schema[] {
    const resolved = this.#resolve(schema);
    return resolved.anyOf ? resolved.anyOf.flatMap((m) => this.#members(m)) : [resolved];
  }

  #typeAllows(schema: Schema, value: unknown): boolean {
    if (schema.type === undefined) return true;
    const types = Array.isArray(schema.type) ? schema.type : [schema.type];
    const actual = jsonType(value);
    return types.some((t) => t === actual || (t === 'integer' && Number.isInteger(value)));
  }

  /** Whether a member's discriminating constants admit this object (`type: 'text'` for a text block). */
  #discriminatorAdmits(member: Schema, value: Record<string, unknown>): boolean {
    for (const key of DISCRIMINATORS) {
      const property = member.properties?.[key];
      if (!property) continue;
      const p = this.#resolve(property);
      const allowed = p.const !== undefined ? [p.const] : p.enum;
      if (!allowed) continue;
      if (!(key in value)) return !(member.required ?? []).includes(key);
      if (!allowed.includes(value[key])) return false;
    }
    return true;
  }

  check(schema: Schema, value: unknown, path: Array<string | number>): SchemaViolation | undefined {
    const s = this.#resolve(schema);
    if (s.anyOf) return this.#checkUnion(s, value, path);
    if (!this.#typeAllows(s, value)) return { path, kind: 'invalid_type', expected: ([] as string[]).concat(s.type ?? []).join(' or '), value };
    if (s.const !== undefined && value !== s.const) return { path, kind: 'invalid_value', allowed: [s.const], value };
    if (s.enum && !s.enum.includes(value)) return { path, kind: 'invalid_value', allowed: s.enum, value };
    if (isRecord(value) && (s.properties || s.additionalProperties !== undefined || s.required)) {
      for (const key of Object.keys(value)) {
        if (s.properties?.[key] === undefined && s.additionalProperties === false) return { path, kind: 'unknown_field', field: key };
      }
      for (const key of s.required ?? []) if (!(key in value)) return { path, kind: 'missing_field', field: key };
      for (const [key, item] of Object.entries(value)) {
        const inner = s.properties?.[key] ?? (typeof s.additionalProperties === 'object' ? s.additionalProperties : undefined);
        if (!inner) continue;
        const found = this.check(inner, item, [...path, key]);
        if (found) return found;
      }
    }
    if (Array.isArray(value) && s.items) {
      for (const [i, item] of value.entries()) {
        const found = this.check(s.items, item, [...path, i]);
        if (found) return found;
      }
    }
    return undefined;
  }

  /**
   * A union passes when one member does. Otherwise the member the client meant answers: the one
   * whose discriminating constant (`type`, `role`) matches; failing that, the member whose finding
   * lies deepest (it got furthest).
   */
  #checkUnion(schema: Schema, value: unknown, path: Array<string | number>): SchemaViolation | undefined {
    const members = this.#members(schema).filter((m) => this.#typeAllows(m, value) || m.anyOf);
    if (members.length === 0) {
      const expected = [...new Set(this.#members(schema).flatMap((m) => ([] as string[]).concat(m.type ?? [])))].join(' or ');
      return { path, kind: 'invalid_type', expected, value };
    }
    const meant = isRecord(value) ? members.filter((m) => this.#discriminatorAdmits(m, value)) : members;
    const findings: SchemaViolation[] = [];
    for (const member of meant.length > 0 ? meant : members) {
      const found = this.check(member, value, path);
      if (!found) return undefined;
      findings.push(found);
    }
    if (meant.length === 0 && isRecord(value)) {
      // No member has this discriminator value: say which ones exist.
      for (const key of DISCRIMINATORS) {
        if (!(key in value)) continue;
        const allowed = members.flatMap((m) => {
          const p = m.properties?.[key] ? this.#resolve(m.properties[key]) : undefined;
          return p?.const !== undefined ? [p.const] : (p?.enum ?? []);
        });
        if (allowed.length > 0) return { path: [...path, key], kind: 'invalid_value', allowed: [...new Set(allowed)], value: value[key] };
      }
    }
    return findings.sort((a, b) => b.path.length - a.path.length)[0];
  }
}
