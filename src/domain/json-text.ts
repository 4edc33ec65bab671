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

export type JsonTextResult = { ok: true; value: unknown } | { ok: false; message: string };

const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

export function parseJsonText(text: string, limits: JsonTextLimits): JsonTextResult {
  if (text.length === 0) return { ok: false, message: "Body cannot be empty when content-type is set to 'application/json'" };
  const shape = measureJson(text, limits);
  if (shape === 'too_deep') return { ok: false, message: `the JSON body is nested deeper than ${limits.maxDepth} levels` };
  if (shape === 'too_many') return { ok: false, message: `the JSON body holds more than ${limits.maxValues} values` };
  try {
    return { ok: true, value: secureJson.parse(text, undefined, PARSE_OPTIONS) };
  } catch {
    return { ok: false, message: "Body is not valid JSON but content-type is set to 'application/json'" };
  }
}

/** One pass over the text: brackets and commas outside strings, no parsing. */
export function measureJson(text: string, limits: JsonTextLimits): 'ok' | 'too_deep' | 'too_many' {
  let depth = 0;
  let values = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limits.maxDepth) return 'too_deep';
      if (++values > limits.maxValues) return 'too_many';
    } else if (c === 0x5d || c === 0x7d) depth--;
    else if (c === 0x2c && ++values > limits.maxValues) return 'too_many';
  }
  return 'ok';
}
