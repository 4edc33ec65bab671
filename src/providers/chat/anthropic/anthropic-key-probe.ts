/**
 * The key test of the `anthropic` style: `GET /v1/models?limit=1` (Anthropic's "List Models",
 * `client.models.list()`), free and read-only, with the headers the Messages adapter sends: the key
 * as `x-api-key`, `anthropic-version` (option `version`, default 2023-06-01), `anthropic-beta` when
 * set, and the operator's extra headers.
 */
import type { KeyCheckTarget, KeyProbe } from '../../key-check/key-check.types.ts';
import { baseUrlOf, chatVerdict, noBaseUrl } from '../../key-check/key-check-verdicts.ts';
import { readStringRecord } from '../provider-options.ts';

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

export function anthropicKeyProbe(target: KeyCheckTarget): KeyProbe {
  const call = 'GET /v1/models';
  const baseUrl = baseUrlOf(target.baseUrl, DEFAULT_BASE_URL);
  if (baseUrl === undefined) return noBaseUrl(call, 'anthropic');
  const o = target.options;
  const headers = readStringRecord(o.headers);
  headers['anthropic-version'] = typeof o.version === 'string' ? o.version : '2023-06-01';
  if (typeof o.beta === 'string') headers['anthropic-beta'] = o.beta;
  if (target.secret) headers['x-api-key'] = target.secret;
  return { kind: 'http', call, method: 'GET', url: `${baseUrl}/v1/models?limit=1`, headers, read: (response) => chatVerdict('anthropic', response) };
}
