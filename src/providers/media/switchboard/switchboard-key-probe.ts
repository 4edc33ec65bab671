/**
 * The key test of another Switchboard gateway: `GET /api/v1/user/me` (shared/SPEC.md "Account": the
 * calling user and balance, Bearer auth, 401 for a missing or invalid key), free and read-only. A
 * balance of zero or less fails as quota: every generation the peer is sent would be refused with 402.
 */
import type { UpstreamResponse } from '../../../adapters/outbound/upstream-http-client.ts';
import type { KeyCheckTarget, KeyProbe, ProbeVerdict } from '../../key-check/key-check.types.ts';
import { baseUrlOf, noBaseUrl, noSecret, providerErrorVerdict, spentVerdict } from '../../key-check/key-check-verdicts.ts';
import { numberAt, parseJson, recordAt } from '../shared/json-values.ts';
import { switchboardError } from './switchboard.provider.ts';

const CALL = 'GET /api/v1/user/me';

function readUser(response: UpstreamResponse): ProbeVerdict {
  if (response.status < 200 || response.status >= 300) return providerErrorVerdict(switchboardError(response, 'user'));
  const balance = numberAt(recordAt(parseJson(response.body), 'data'), 'balance');
  if (balance !== undefined && balance <= 0) return spentVerdict(`switchboard user: the balance is ${balance} cents`);
  return { ok: true };
}

export function switchboardKeyProbe(target: KeyCheckTarget): KeyProbe {
  // The peer's address is taken with or without its API prefix, as the adapter takes it.
  const baseUrl = baseUrlOf(target.baseUrl, undefined)?.replace(/\/api\/v1$/u, '');
  if (baseUrl === undefined) return noBaseUrl(CALL, 'switchboard');
  if (!target.secret) return noSecret(CALL, 'switchboard');
  return { kind: 'http', call: CALL, method: 'GET', url: `${baseUrl}/api/v1/user/me`, headers: { authorization: `Bearer ${target.secret}` }, read: readUser };
}
