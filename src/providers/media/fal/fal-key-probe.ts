/**
 * The key test of fal: `GET /v1/models/pricing?endpoint_id=fal-ai/flux/dev` on fal's Platform API
 * (https://api.fal.ai/v1, "Pricing": authentication required, accepted with an API-scope key, the
 * scope inference keys have; the billing endpoint needs an admin key and would refuse a good one). It
 * is free and read-only, with the adapter's `Authorization: Key …`. The adapter's base URL is the
 * queue (`https://queue.fal.run`); another base URL (a proxy, a fake) serves the Platform API on its
 * own origin, and option `platformUrl` names it outright.
 *
 * fal locks an account whose balance is spent and then answers 403 "User is locked. Reason: Exhausted
 * balance": that is quota, not a bad key.
 */
import type { UpstreamResponse } from '../../../adapters/outbound/upstream-http-client.ts';
import type { KeyCheckTarget, KeyProbe, ProbeVerdict } from '../../key-check/key-check.types.ts';
import { baseUrlOf, noBaseUrl, noSecret, providerErrorVerdict, spentVerdict } from '../../key-check/key-check-verdicts.ts';
import { falError } from './fal.provider.ts';

const PLATFORM_URL = 'https://api.fal.ai/v1';
const FAL_HOSTS = new Set(['queue.fal.run', 'fal.run']);
/** An endpoint every account can price: fal's own example. */
const PRICED_ENDPOINT = 'fal-ai/flux/dev';
const CALL = 'GET /v1/models/pricing';

function platformUrlOf(target: KeyCheckTarget): string | undefined {
  const option = target.options.platformUrl;
  if (typeof option === 'string' && option !== '') return baseUrlOf(option, undefined);
  const queue = baseUrlOf(target.baseUrl, 'https://queue.fal.run');
  if (queue === undefined) return undefined;
  const parsed = new URL(queue);
  return FAL_HOSTS.has(parsed.hostname) ? PLATFORM_URL : `${parsed.origin}/v1`;
}

function readPricing(response: UpstreamResponse): ProbeVerdict {
  if (response.status >= 200 && response.status < 300) return { ok: true };
  const error = falError(response, 'pricing');
  if (response.status === 403 && /exhausted balance/iu.test(error.message)) return spentVerdict(error.message, 403);
  return providerErrorVerdict(error);
}

export function falKeyProbe(target: KeyCheckTarget): KeyProbe {
  const platform = platformUrlOf(target);
  if (platform === undefined) return noBaseUrl(CALL, 'fal');
  if (!target.secret) return noSecret(CALL, 'fal');
  return {
    kind: 'http',
    call: CALL,
    method: 'GET',
    url: `${platform}/models/pricing?endpoint_id=${encodeURIComponent(PRICED_ENDPOINT)}`,
    headers: { authorization: `Key ${target.secret}` },
    read: readPricing,
  };
}
