/**
 * Small readers for untrusted JSON request bodies. Each failure is an `invalid_input` AppError that
 * names the offending field as a path (`messages[2].content[0].image_url.url`), which both wire
 * protocols report as `param`.
 */
import { invalidInput } from '../errors.ts';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function expectObject(value: unknown, field: string): JsonObject {
  if (!isObject(value)) throw invalidInput(`${field} must be an object.`, field);
  return value;
}

export function expectArray(value: unknown, field: string): unknown[] {
  if (!Array.isArray(value)) throw invalidInput(`${field} must be an array.`, field);
  return value;
}

export function expectString(value: unknown, field: string): string {
  if (typeof value !== 'string') throw invalidInput(`${field} must be a string.`, field);
  return value;
}

export function requiredString(obj: JsonObject, key: string, field: string): string {
  const value = obj[key];
  if (value === undefined || value === null) throw invalidInput(`${field} is required.`, field);
  return expectString(value, field);
}

/** A string or nothing; JSON null counts as absent, as both vendors treat it. */
export function optionalString(obj: JsonObject, key: string, field: string): string | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  return expectString(value, field);
}

export function optionalBoolean(obj: JsonObject, key: string, field: string): boolean | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'boolean') throw invalidInput(`${field} must be a boolean.`, field);
  return value;
}

export interface NumberBounds {
  min?: number;
  max?: number;
  integer?: boolean;
}

export function optionalNumber(obj: JsonObject, key: string, field: string, bounds: NumberBounds = {}): number | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value)) throw invalidInput(`${field} must be a number.`, field);
  if (bounds.integer && !Number.isInteger(value)) throw invalidInput(`${field} must be an integer.`, field);
  if (bounds.min !== undefined && value < bounds.min) throw invalidInput(`${field} must be at least ${bounds.min}.`, field);
  if (bounds.max !== undefined && value > bounds.max) throw invalidInput(`${field} must be at most ${bounds.max}.`, field);
  return value;
}

/** A positive integer token limit, refused when it is 0, negative, fractional or not a number. */
export function optionalPositiveInteger(obj: JsonObject, key: string, field: string): number | undefined {
  const value = obj[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw invalidInput(`${field} must be a positive integer.`, field);
  }
  return value;
}

/** The fields of `obj` whose names are not in `known`, kept verbatim. */
export function restFields(obj: JsonObject, known: ReadonlySet<string>): JsonObject {
  const rest: JsonObject = {};
  for (const [key, value] of Object.entries(obj)) if (!known.has(key)) rest[key] = value;
  return rest;
}

/** Parses a JSON text that should hold an object; anything else gives `fallback`. */
export function parseJsonObject(text: string, fallback: JsonObject = {}): JsonObject {
  try {
    const value: unknown = JSON.parse(text);
    return isObject(value) ? value : fallback;
  } catch {
    return fallback;
  }
}
