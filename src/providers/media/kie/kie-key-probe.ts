/**
 * The key test of kie.ai: `GET /api/v1/chat/credit` (kie's "Get Remaining Credits", Bearer auth),
 * free and read-only. kie answers `{code, msg, data}` with its own status in `code` (often inside an
 * HTTP 200), read by the adapter's table; a key whose account has no credits left fails as quota,
 * since every generation it sent would be refused.
 */
import type { KeyCheckTarget, KeyProbe, ProbeVerdict } from '../../key-check/key-check.types.ts';
import { baseUrlOf, noBaseUrl, noSecret, providerErrorVerdict, spentVerdict } from '../../key-check/key-check-verdicts.ts';
import type { UpstreamResponse } from '../../../adapters/outbound/upstream-http-client.ts';
import { isRecord, parseJson } from '../shared/json-values.ts';
import { envelopeError, readEnvelope } from './kie-codes.ts';

const CREDIT_PATH = '/api/v1/chat/credit';
const CALL = `GET ${CREDIT_PATH}`;

function readCredit(response: UpstreamResponse): ProbeVerdict {
  const json = parseJson(response.body);
  const envelope = readEnvelope(response.status, json);
  if (envelope.code !== 200) return providerErrorVerdict(envelopeError(envelope, 'market', 'credit'));
  // `data` is the balance itself (a number), not an object: readEnvelope keeps only objects.
  const credits = isRecord(json) ? json.data : undefined;
  if (typeof credits === 'number' && credits <= 0) return spentVerdict(`kie credit: the account has ${credits} credits`);
  return { ok: true };
}

export function kieKeyProbe(target: KeyCheckTarget): KeyProbe {
  const baseUrl = baseUrlOf(target.baseUrl, 'https://api.kie.ai');
  if (baseUrl === undefined) return noBaseUrl(CALL, 'kie');
  if (!target.secret) return noSecret(CALL, 'kie');
  return { kind: 'http', call: CALL, method: 'GET', url: `${baseUrl}${CREDIT_PATH}`, headers: { authorization: `Bearer ${target.secret}` }, read: readCredit };
}
