/** Small helpers shared by the HTTP chat adapters. */
import type { AppError } from '../../domain/errors.ts';
import { isObject } from '../../domain/chat/json-input.ts';
import type { ChatUpstreamResult } from './chat-provider.ts';

/** `options.headers` of a provider: string values only, anything else ignored. */
export function readStringRecord(value: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!isObject(value)) return out;
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key.toLowerCase()] = v;
  return out;
}

/**
 * A request this upstream's protocol cannot express (a block only the other vendor knows). It is
 * retryable: the next route may speak the client's protocol and take it as it is.
 */
export function translationFailure(error: AppError): ChatUpstreamResult {
  return { ok: false, error: { status: 400, retryable: true, message: error.message, ...(error.param === undefined ? {} : { param: error.param }) } };
}
