/**
 * JSON request bodies, as both the Fastify routes and the chat lane read them: prototype poisoning
 * refused (secure-json-parse), and nesting bounded before anything walks the value, so a body of
 * thousands of nested arrays or objects is a 400 here instead of a stack overflow (a 500) in whatever
 * recursive code meets it later (canonical JSON, token estimates, protocol parsers).
 */
import secureJson from 'secure-json-parse';
import { AppError } from '../domain/errors.ts';

/** Far beyond any real request (a tool's JSON schema is rarely ten levels deep). */
export const MAX_JSON_DEPTH = 128;
const PARSE_OPTIONS = { protoAction: 'error', constructorAction: 'error' } as const;

export function parseJsonBody(text: string): unknown {
  if (text.length === 0) throw new AppError('invalid_input', "Body cannot be empty when content-type is set to 'application/json'");
  if (!withinDepth(text, MAX_JSON_DEPTH)) throw new AppError('invalid_input', `the JSON body is nested deeper than ${MAX_JSON_DEPTH} levels`);
  try {
    return secureJson.parse(text, undefined, PARSE_OPTIONS);
  } catch {
    throw new AppError('invalid_input', "Body is not valid JSON but content-type is set to 'application/json'");
  }
}

/** One pass over the text: brackets outside strings, no parsing. */
export function withinDepth(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) return false;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return true;
}
