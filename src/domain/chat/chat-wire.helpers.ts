/**
 * Helpers shared by the two wire protocols: merging passthrough fields into a rendered upstream
 * body, and the error code a stream failure stands for.
 */
import { type ErrorCode, invalidInput } from '../errors.ts';
import type { ChatProtocol, ChatRequest } from './chat-request.types.ts';
import { isObject, type JsonObject } from './json-input.ts';

/**
 * Adds the request's passthrough fields to `body` when the upstream speaks the protocol they came
 * from. Modelled fields win (the gateway may have capped or rewritten them); where both hold an
 * object (`metadata`, `output_config`), the two are merged one level deep so that the parts we do not
 * model survive. Toward the other protocol the fields are left out, unless leaving one out would
 * change the answer or the price the client asked for (`keepAcross`): then this upstream cannot serve
 * the request, and the refusal names the field (the route fails over; the client gets the 400 when
 * no route speaks its protocol).
 */
export function mergePassthrough(body: JsonObject, request: ChatRequest, protocol: ChatProtocol): JsonObject {
  const passthrough = request.passthrough;
  if (!passthrough) return body;
  if (passthrough.protocol !== protocol) {
    const kept = passthrough.keepAcross[0];
    if (kept !== undefined) {
      const vendor = protocol === 'anthropic' ? 'an Anthropic' : 'an OpenAI-compatible';
      throw invalidInput(`${kept} cannot be honoured by ${vendor} upstream, and leaving it out would change what was asked for; no route of this model could serve it.`, kept);
    }
    return body;
  }
  for (const [key, value] of Object.entries(passthrough.fields)) {
    const current = body[key];
    if (current === undefined) body[key] = value;
    else if (isObject(current) && isObject(value)) body[key] = { ...value, ...current };
  }
  return body;
}

/** The closed error code a failed stream reports, from the HTTP status it stands for. */
export function chatErrorCodeForStatus(status: number): ErrorCode {
  if (status === 400 || status === 422) return 'invalid_input';
  if (status === 401) return 'unauthorized';
  if (status === 402) return 'insufficient_balance';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 413) return 'payload_too_large';
  if (status === 429) return 'rate_limited';
  if (status === 503 || status === 529) return 'service_unavailable';
  if (status === 504 || status === 408) return 'upstream_timeout';
  if (status >= 500) return 'upstream_error';
  return 'upstream_error';
}

/** A data URI `data:<media type>;base64,<data>` split into its parts, or undefined. */
export function parseDataUri(uri: string): { mediaType: string; data: string } | undefined {
  // Only the head is matched: a pattern over the data too ran through all of a 16 MB picture (10 ms on the loop).
  const match = /^data:([^;,]+);base64,/.exec(uri);
  if (!match) return undefined;
  return { mediaType: match[1]!, data: uri.slice(match[0].length) };
}
