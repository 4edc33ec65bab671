/**
 * Field-level validation driven by `FieldDef`s: types, enum values, ranges, lengths, array sizes,
 * required fields, unknown fields, and defaults. Cross-field rules run afterwards (rules.ts).
 *
 * Policy: types are strict. A number field refuses the string "10", a boolean refuses "true", and
 * `null` is refused like any other wrong type (omit a field to leave it unset).
 */
import { invalidInput } from '../../errors.ts';
import type { ArraySpec, DefaultValue, EnumSpec, FieldDef, ItemSpec, NumberSpec, ObjectSpec, StringSpec } from './field.types.ts';

export interface FieldsResult {
  value: Record<string, unknown>;
  /**
   * Names the caller supplied with a value of their own. A field sent with exactly its published
   * default counts as not given: a form built from `params` sends every default, and a default must
   * never make a request invalid (e.g. I8 `dimensions` on a non-blend action).
   */
  given: Set<string>;
}

export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  const json = JSON.stringify(value) ?? String(value);
  return json.length > 60 ? `${json.slice(0, 57)}...` : json;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Validates an object against its fields; `path` is how the object is named in messages. */
export function validateObject(fields: readonly FieldDef[], raw: unknown, path: string, applyDefaults = true): FieldsResult {
  if (!isPlainObject(raw)) throw invalidInput(`${path} must be a JSON object (got ${describeValue(raw)})`, path);
  const known = new Map(fields.map((f) => [f.name, f]));
  for (const key of Object.keys(raw)) {
    if (!known.has(key)) {
      const allowed = fields.map((f) => f.name).join(', ');
      throw invalidInput(`${path}.${key} is not a known field; allowed fields: ${allowed}`, `${path}.${key}`);
    }
  }
  const value: Record<string, unknown> = {};
  const given = new Set<string>();
  for (const field of fields) {
    const fieldPath = `${path}.${field.name}`;
    const v = raw[field.name];
    if (v === undefined) {
      if (field.required) throw invalidInput(`${fieldPath} is required`, fieldPath);
      if (applyDefaults && field.default !== undefined) value[field.name] = copyDefault(field.default);
      continue;
    }
    value[field.name] = validateValue(field, v, fieldPath);
    if (field.default === undefined || JSON.stringify(v) !== JSON.stringify(field.default)) given.add(field.name);
  }
  return { value, given };
}

function copyDefault(d: DefaultValue): unknown {
  return Array.isArray(d) ? [...d] : d;
}

export function validateValue(spec: FieldDef | ItemSpec, v: unknown, path: string): unknown {
  switch (spec.type) {
    case 'string':
      return validateString(spec, v, path, 'required' in spec && spec.required === true);
    case 'number':
      return validateNumber(spec, v, path);
    case 'boolean':
      if (typeof v !== 'boolean') throw invalidInput(`${path} must be true or false (got ${describeValue(v)})`, path);
      return v;
    case 'enum':
      return validateEnum(spec, v, path);
    case 'object':
      return validateObject(spec.fields, v, path).value;
    case 'array':
      return validateArray(spec, v, path);
  }
}

const DATA_URI = /^data:[a-z]+\/[a-z0-9.+-]+(;[a-z0-9=.-]+)*;base64,[A-Za-z0-9+/=\s]+$/i;
const HEX_COLOR = /^#(?:[0-9a-f]{3}|[0-9a-f]{6})$/i;
const ASPECT_RATIO = /^[1-9]\d{0,2}:[1-9]\d{0,2}$/;
const MAX_URL_LENGTH = 4096;

function validateString(spec: StringSpec, v: unknown, path: string, required: boolean): string {
  if (typeof v !== 'string') throw invalidInput(`${path} must be a string (got ${describeValue(v)})`, path);
  const minLength = spec.minLength ?? (required || spec.format !== undefined ? 1 : 0);
  if (v.trim().length < minLength) throw invalidInput(`${path} must not be empty`, path);
  if (spec.maxLength !== undefined && v.length > spec.maxLength) {
    throw invalidInput(`${path} must be at most ${spec.maxLength} characters (got ${v.length})`, path);
  }
  let value = v;
  switch (spec.format) {
    case 'url':
      if (!isHttpUrl(v)) throw invalidInput(`${path} must be an http or https URL`, path);
      value = parsedUrl(v, path);
      break;
    case 'url-or-data-uri':
      if (isHttpUrl(v)) value = parsedUrl(v, path);
      else if (!DATA_URI.test(v)) throw invalidInput(`${path} must be an http or https URL or a base64 data: URI`, path);
      break;
    case 'hex-color':
      if (!HEX_COLOR.test(v)) throw invalidInput(`${path} must be a hex colour such as #1a2b3c (got ${describeValue(v)})`, path);
      break;
    case 'aspect-ratio':
      if (!ASPECT_RATIO.test(v)) throw invalidInput(`${path} must be an aspect ratio w:h such as 16:9 (got ${describeValue(v)})`, path);
      break;
    case undefined:
      break;
  }
  if (spec.pattern && !spec.pattern.regex.test(v)) throw invalidInput(`${path} must be ${spec.pattern.says} (got ${describeValue(v)})`, path);
  return value;
}

/**
 * A URL field holds what the URL parser makes of the text, and that is what an upstream is sent: the
 * address policy checks the parsed host (input-urls.ts), and an upstream's parser must not get the
 * chance to repair ` http:\\10.0.0.5\` into an address nobody checked.
 */
function parsedUrl(v: string, path: string): string {
  const href = new URL(v).href;
  if (href.length > MAX_URL_LENGTH) throw invalidInput(`${path} must be a URL of at most ${MAX_URL_LENGTH} characters once written out in full`, path);
  return href;
}

export function isHttpUrl(v: string): boolean {
  if (v.length > MAX_URL_LENGTH) return false;
  try {
    const url = new URL(v);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '';
  } catch {
    return false;
  }
}

function validateNumber(spec: NumberSpec, v: unknown, path: string): number {
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw invalidInput(`${path} must be a number${rangeText(spec)} (got ${describeValue(v)})`, path);
  }
  if (spec.integer && !Number.isInteger(v)) throw invalidInput(`${path} must be a whole number${rangeText(spec)} (got ${v})`, path);
  if ((spec.minimum !== undefined && v < spec.minimum) || (spec.maximum !== undefined && v > spec.maximum)) {
    throw invalidInput(`${path} must be${rangeText(spec)} (got ${v})`, path);
  }
  return v;
}

function rangeText(spec: NumberSpec): string {
  if (spec.minimum !== undefined && spec.maximum !== undefined) return ` from ${spec.minimum} to ${spec.maximum}`;
  if (spec.minimum !== undefined) return ` of at least ${spec.minimum}`;
  if (spec.maximum !== undefined) return ` of at most ${spec.maximum}`;
  return '';
}

export function optionList(spec: EnumSpec): string {
  return spec.options.map((o) => (typeof o.value === 'number' ? String(o.value) : JSON.stringify(o.value))).join(', ');
}

function validateEnum(spec: EnumSpec, v: unknown, path: string): string | number {
  if (typeof v === 'string' && spec.unavailable && Object.hasOwn(spec.unavailable, v)) {
    throw invalidInput(`${path}: the value ${JSON.stringify(v)} ${spec.unavailable[v]}; allowed: ${optionList(spec)}`, path);
  }
  if ((typeof v === 'string' || typeof v === 'number') && spec.options.some((o) => o.value === v)) return v;
  const numeric = spec.options.every((o) => typeof o.value === 'number');
  const hint = numeric && typeof v === 'string' ? '; send a JSON number, not a string' : '';
  throw invalidInput(`${path} must be one of ${optionList(spec)} (got ${describeValue(v)})${hint}`, path);
}

function validateArray(spec: ArraySpec, v: unknown, path: string): unknown[] {
  if (!Array.isArray(v)) throw invalidInput(`${path} must be an array (got ${describeValue(v)})`, path);
  if (spec.minItems !== undefined && v.length < spec.minItems) {
    throw invalidInput(`${path} must have at least ${spec.minItems} item${spec.minItems === 1 ? '' : 's'} (got ${v.length})`, path);
  }
  if (spec.maxItems !== undefined && v.length > spec.maxItems) {
    throw invalidInput(`${path} must have at most ${spec.maxItems} item${spec.maxItems === 1 ? '' : 's'} (got ${v.length})`, path);
  }
  return v.map((item, i) => validateItem(spec.items, item, `${path}[${i}]`));
}

function validateItem(spec: ItemSpec, v: unknown, path: string): unknown {
  if (spec.type === 'string') return validateString(spec, v, path, true);
  if (spec.type === 'object') return validateObject((spec as ObjectSpec).fields, v, path).value;
  return validateValue(spec, v, path);
}
