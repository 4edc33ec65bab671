/**
 * kie answers `{code, msg, data}`, often with HTTP 200 and the real status in `code`; a failed task
 * carries `failCode`/`errorCode`. One table classifies both (docs/media-providers.md "kie").
 */
import type { ProviderError, ProviderErrorCode } from '../media-provider.ts';
import { statusClass } from '../shared/provider-errors.ts';
import { isRecord, numberAt, stringAt } from '../shared/json-values.ts';

interface KieCodeClass {
  retryable: boolean;
  code: ProviderErrorCode;
}

/** kie's own codes (Market, Veo and Suno APIs), where they differ from plain HTTP. */
const KIE_CODES: Readonly<Record<number, KieCodeClass>> = {
  400: { retryable: false, code: 'invalid_request' },
  413: { retryable: false, code: 'invalid_request' },
  422: { retryable: false, code: 'invalid_request' },
  /** Suno: the media could not be fetched or is not allowed. */
  451: { retryable: false, code: 'invalid_request' },
  /** Suno: call frequency too high. */
  430: { retryable: true, code: 'rate_limited' },
  /** Service under maintenance. */
  455: { retryable: true, code: 'unavailable' },
  /** Generation failed. */
  501: { retryable: true, code: 'generation_failed' },
  /** Feature disabled for this account. */
  505: { retryable: true, code: 'unsupported' },
  /** Suno: generation failed, credits refunded. */
  531: { retryable: true, code: 'generation_failed' },
};

export function kieCodeClass(code: number, api: 'market' | 'suno'): KieCodeClass {
  // The Suno API uses 429 for "insufficient credits".
  if (api === 'suno' && code === 429) return { retryable: true, code: 'credits' };
  return KIE_CODES[code] ?? statusClass(code);
}

export interface KieEnvelope {
  /** kie's code when the body has one, else the HTTP status. */
  code: number;
  msg: string;
  data: Record<string, unknown> | undefined;
}

export function readEnvelope(httpStatus: number, json: unknown): KieEnvelope {
  const code = numberAt(json, 'code') ?? httpStatus;
  const msg = stringAt(json, 'msg') ?? stringAt(json, 'message') ?? '';
  const data = isRecord(json) && isRecord(json.data) ? json.data : undefined;
  // An HTTP error status wins over a body that claims success.
  return { code: httpStatus >= 400 ? httpStatus : code, msg, data };
}

export function envelopeError(envelope: KieEnvelope, api: 'market' | 'suno', what: string): ProviderError {
  const cls = kieCodeClass(envelope.code, api);
  return { message: `kie ${what}: ${envelope.code}${envelope.msg ? ` ${envelope.msg}` : ''}`, retryable: cls.retryable, status: envelope.code, code: cls.code };
}

/** A task that kie reports as failed: its fail code decides, and failures are retryable unless the code says the input is at fault. */
export function taskFailure(failCode: string | undefined, failMsg: string | undefined, api: 'market' | 'suno', status?: string): ProviderError {
  const message = `kie task failed${failCode ? ` (${failCode})` : ''}${failMsg ? `: ${failMsg}` : status ? `: ${status}` : ''}`;
  if (status === 'SENSITIVE_WORD_ERROR') return { message, retryable: false, code: 'content_policy' };
  const numeric = failCode !== undefined && /^\d{3}$/u.test(failCode) ? Number(failCode) : undefined;
  if (numeric === undefined) return { message, retryable: true, code: 'generation_failed' };
  const cls = kieCodeClass(numeric, api);
  // A 5xx or unknown code on a task that ran is a generation failure; 4xx content codes are not retryable.
  return { message, retryable: cls.retryable, code: cls.retryable ? 'generation_failed' : cls.code === 'invalid_request' ? 'content_policy' : cls.code };
}
