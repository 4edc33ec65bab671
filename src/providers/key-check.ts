/**
 * Testing one key of a configured provider (issue 32 item 7): the cheapest real call its API style
 * offers (a model list, an account or credit read), its latency, and what went wrong in words that
 * never hold the secret, with the health kind a real call failing so would count as. The admin API's
 * `POST /admin/v1/providers/{name}/test` calls this once per key; nothing here touches the board.
 *
 *   const http = createKeyCheckClient();
 *   const result = await checkProviderKey({ type, baseUrl, secret, options, timeoutMs: 10_000 }, { http }, signal);
 */
import { UpstreamHttpClient } from '../adapters/outbound/upstream-http-client.ts';
import type { KeyCheckDeps, KeyCheckResult, KeyCheckTarget } from './key-check/key-check.types.ts';
import { runKeyProbe } from './key-check/key-probe-runner.ts';
import { keyProbeFor, keyProbeTypes } from './registries/key-checks.registry.ts';

export type { KeyCheckDeps, KeyCheckResult, KeyCheckTarget } from './key-check/key-check.types.ts';

/**
 * The upstream client of key tests: the adapters' client (the operator's address policy, under which
 * a base URL on a private network is the operator's to use), with short-lived idle sockets since
 * tests are rare. Close it at shutdown.
 */
export function createKeyCheckClient(): UpstreamHttpClient {
  return new UpstreamHttpClient({ timeoutMs: 30_000, keepAliveMs: 1_000, connectTimeoutMs: 10_000, userAgent: 'Switchboard/0.1 (+key-check)' });
}

/** Never throws for upstream trouble; an unknown type is a failed result without a health kind. */
export async function checkProviderKey(target: KeyCheckTarget, deps: KeyCheckDeps, signal?: AbortSignal): Promise<KeyCheckResult> {
  const probe = keyProbeFor(target);
  if (!probe) {
    return { ok: false, latencyMs: 0, call: 'none', error: `no key test for provider type ${JSON.stringify(target.type)} (known: ${keyProbeTypes().join(', ')})` };
  }
  return runKeyProbe(probe, target, deps, signal);
}
