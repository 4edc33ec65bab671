/**
 * A value that satisfies a JSON Schema, for the local model's tool calls and structured answers.
 * Strings take the user's text (cut to maxLength) so that a tool called with it does something
 * related to the request. Supported: type (and type lists), const, enum, default, anyOf/oneOf (first
 * option), allOf (first), properties/required, items/minItems, minimum/maximum/exclusive bounds,
 * minLength/maxLength, and the common string formats. `pattern` is not solved.
 */
import { isObject, type JsonObject } from '../../../domain/chat/json-input.ts';

const FORMATS: Record<string, string> = {
  uri: 'https://example.com/local',
  url: 'https://example.com/local',
  email: 'local@example.com',
  'date-time': '2026-01-01T00:00:00Z',
  date: '2026-01-01',
  time: '00:00:00Z',
  uuid: '00000000-0000-4000-8000-000000000000',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  duration: 'PT1M',
};

export function sampleFromSchema(schema: unknown, text: string, depth = 0): unknown {
  if (!isObject(schema) || depth > 8) return null;
  if (schema.const !== undefined) return schema.const;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0];
  if (schema.default !== undefined) return schema.default;
  for (const key of ['anyOf', 'oneOf', 'allOf']) {
    const options = schema[key];
    if (Array.isArray(options) && options.length > 0) {
      const usable = options.find((o) => !(isObject(o) && o.type === 'null')) ?? options[0];
      return sampleFromSchema(usable, text, depth + 1);
    }
  }
  let type = schema.type;
  if (Array.isArray(type)) type = type.find((t) => t !== 'null') ?? 'null';
  if (type === undefined && isObject(schema.properties)) type = 'object';
  switch (type) {
    case 'object':
      return sampleObject(schema, text, depth);
    case 'array': {
      const count = typeof schema.minItems === 'number' ? schema.minItems : 0;
      return Array.from({ length: count }, () => sampleFromSchema(schema.items, text, depth + 1));
    }
    case 'string':
      return sampleString(schema, text);
    case 'integer':
    case 'number':
      return sampleNumber(schema, type === 'integer');
    case 'boolean':
      return false;
    case 'null':
      return null;
    default:
      return text;
  }
}

function sampleObject(schema: JsonObject, text: string, depth: number): JsonObject {
  const properties = isObject(schema.properties) ? schema.properties : {};
  // Only the required properties (all of them when the schema lists none): optional ones are safer absent.
  const names = Array.isArray(schema.required)
    ? schema.required.filter((n): n is string => typeof n === 'string')
    : Object.keys(properties);
  const out: JsonObject = {};
  for (const name of names) out[name] = sampleFromSchema(properties[name] ?? {}, text, depth + 1);
  return out;
}

function sampleString(schema: JsonObject, text: string): string {
  const format = typeof schema.format === 'string' ? FORMATS[schema.format] : undefined;
  let value = format ?? (text.trim() === '' ? 'local' : text.trim());
  if (typeof schema.maxLength === 'number') value = [...value].slice(0, schema.maxLength).join('');
  if (typeof schema.minLength === 'number' && value.length < schema.minLength) value = value.padEnd(schema.minLength, '.');
  return value;
}

function sampleNumber(schema: JsonObject, integer: boolean): number {
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const step = integer ? 1 : 0.5;
  let low = num(schema.minimum) ?? (num(schema.exclusiveMinimum) !== undefined ? num(schema.exclusiveMinimum)! + step : undefined);
  const high = num(schema.maximum) ?? (num(schema.exclusiveMaximum) !== undefined ? num(schema.exclusiveMaximum)! - step : undefined);
  if (low === undefined) low = high !== undefined && high < 1 ? high : 1;
  return integer ? Math.ceil(low) : low;
}
