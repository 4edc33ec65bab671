/**
 * The key test of the Gemini API: `GET /{apiVersion}/models?pageSize=1` (models.list), free and
 * read-only, with the key in `x-goog-api-key` as the adapter sends it. Google answers a bad key with
 * 400 INVALID_ARGUMENT and ErrorInfo `API_KEY_INVALID`, which the adapter's reader counts as auth.
 */
import type { KeyCheckTarget, KeyProbe } from '../../key-check/key-check.types.ts';
import { baseUrlOf, noBaseUrl, noSecret, providerErrorVerdict } from '../../key-check/key-check-verdicts.ts';
import { googleError } from './google-errors.ts';

/** As the adapter checks option `apiVersion`: it goes into the URL path. */
const API_VERSION = /^v\d+(?:alpha|beta)?\d*$/u;

export function googleKeyProbe(target: KeyCheckTarget): KeyProbe {
  const option = target.options.apiVersion;
  const apiVersion = typeof option === 'string' && option !== '' ? option : 'v1beta';
  const call = `GET /${apiVersion}/models`;
  if (!API_VERSION.test(apiVersion)) return { kind: 'unusable', call: 'GET /{apiVersion}/models', detail: 'google: options.apiVersion must be an API version such as v1beta', failure: undefined };
  const baseUrl = baseUrlOf(target.baseUrl, 'https://generativelanguage.googleapis.com');
  if (baseUrl === undefined) return noBaseUrl(call, 'google');
  if (!target.secret) return noSecret(call, 'google');
  return {
    kind: 'http',
    call,
    method: 'GET',
    url: `${baseUrl}/${apiVersion}/models?pageSize=1`,
    headers: { 'x-goog-api-key': target.secret },
    read: (response) => (response.status >= 200 && response.status < 300 ? { ok: true } : providerErrorVerdict(googleError(response, 'models'))),
  };
}
