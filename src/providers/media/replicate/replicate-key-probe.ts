/**
 * The key test of Replicate: `GET /v1/account` (Replicate's "Get the authenticated account",
 * `replicate.accounts.current()`), free and read-only, with the adapter's Bearer token; its errors
 * read as the adapter reads them (problem details: `detail`, `title`).
 */
import type { KeyCheckTarget, KeyProbe } from '../../key-check/key-check.types.ts';
import { baseUrlOf, noBaseUrl, noSecret, providerErrorVerdict } from '../../key-check/key-check-verdicts.ts';
import { replicateError } from './replicate.provider.ts';

export function replicateKeyProbe(target: KeyCheckTarget): KeyProbe {
  const call = 'GET /v1/account';
  const baseUrl = baseUrlOf(target.baseUrl, 'https://api.replicate.com/v1');
  if (baseUrl === undefined) return noBaseUrl(call, 'replicate');
  if (!target.secret) return noSecret(call, 'replicate');
  return {
    kind: 'http',
    call,
    method: 'GET',
    url: `${baseUrl}/account`,
    headers: { authorization: `Bearer ${target.secret}` },
    read: (response) => (response.status >= 200 && response.status < 300 ? { ok: true } : providerErrorVerdict(replicateError(response, 'account'))),
  };
}
