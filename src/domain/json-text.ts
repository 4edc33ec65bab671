/**
 * A JSON request body read with bounds, the same on the event loop (small bodies) and in the CPU pool
 * (large ones): prototype poisoning refused (secure-json-parse), nesting bounded before anything walks
 * the value, and the number of values bounded. The last bound is what keeps a large body cheap
 * everywhere after the parse: 16 MB of `[],` is five million arrays, which cost a second to parse
 * and as much again to copy or walk, while a real 32 MiB body is a few pictures in base64, a handful
 * of long strings.
 */
import secureJson from 'secure-json-parse';

export interface JsonTextLimits {
  maxDepth: number;
  /** Values counted as containers plus separators (`[`, `{`, `,`): about one per value. */
  maxValues: number;
}

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; message: string; param?: string };

const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

export function parseJsonText(text: string, limits: JsonTextLimits): JsonTextResult {
  if (text.length === 0) return { ok: false, message: "Body cannot be empty when content-type is set to 'application/json'" };
  const shape = measureJson(text, limits);
  if (shape === 'too_deep') return { ok: false, message: `the JSON body is nested deeper than ${limits.maxDepth} levels` };
  if (shape === 'too_many') return { ok: false, message: `the JSON body holds more than ${limits.maxValues} values` };
  let value: unknown;
  try {
    value = secureJson.parse(text, undefined, PARSE_OPTIONS);
  } catch {
    return { ok: false, message: "Body is not valid JSON but content-type is set to 'application/json'" };
  }
  // Only a body whose text holds the escape is walked: the common case costs nothing more.
  const where = shape === 'nul' ? nulPath(value, '') : undefined;
  if (where !== undefined) return { ok: false, message: `${where} holds a NUL character (\\u0000), which no text or id may contain`, param: where };
  return { ok: true, value };
}

/**
 * Where the first NUL character is: PostgreSQL text cannot hold one (a 500 there, stored as-is on
 * SQLite), and no id, name, prompt or message of ours means anything with one, so every body is
 * refused for it at the edge, the same on both engines. Depth is bounded by the measure before this.
 */
function nulPath(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path || 'body' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = nulPath(value[i], `${path}[${i}]`);
      if (found !== undefined) return found;
    }
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\0')) return path === '' ? 'a field name' : `a field name in ${path}`;
    const found = nulPath(item, path === '' ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * One pass over the text: brackets and commas outside strings, no parsing; `nul` when a string holds
 * the escape `\u0000` (JSON has no other way to write a NUL) and the bounds hold.
 */
export function measureJson(text: string, limits: JsonTextLimits): 'ok' | 'nul' | 'too_deep' | 'too_many' {
  let depth = 0;
  let values = 0;
  let inString = false;
  let nul = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) {
        if (!nul && text.startsWith('u0000', i + 1)) nul = true;
        i++;
      }
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limits.maxDepth) return 'too_deep';
      if (++values > limits.maxValues) return 'too_many';
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && ++values > limits.maxValues) return 'too_many';
  }
  return nul ? 'nul' : 'ok';
}
