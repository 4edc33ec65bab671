/**
 * Makes a style's probe call: through the adapters' upstream client (its address policy, pooled
 * connections, bounded body), within the target's deadline and the caller's signal, timed from the
 * first byte sent to the last byte read. Never throws for upstream trouble: every outcome is a result.
 */
import { performance } from 'node:perf_hooks';
import { isOutboundUrlError } from '../../adapters/outbound/outbound-url-error.ts';
import type { KeyCheckDeps, KeyCheckResult, KeyCheckTarget, KeyProbe } from './key-check.types.ts';
import { failureWords } from './key-check-words.ts';

/** A model list is the largest answer probed (OpenAI's is about 100 KB); more is not a key's fault. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export async function runKeyProbe(probe: KeyProbe, target: KeyCheckTarget, deps: KeyCheckDeps, signal?: AbortSignal): Promise<KeyCheckResult> {
  if (probe.kind === 'none') return { ok: true, latencyMs: 0, call: probe.call };
  if (probe.kind === 'unusable') {
    return { ok: false, latencyMs: 0, call: probe.call, error: failureWords(probe.failure, probe.detail, target.secret), ...(probe.failure ? { kind: probe.failure } : {}) };
  }
  try {
    deps.http.checkUrl(probe.url);
  } catch (error) {
    // The operator's address policy refuses the base URL: a configuration matter, not the key's health.
    const detail = isOutboundUrlError(error) ? error.message : 'the base URL is refused by the upstream address policy';
    return { ok: false, latencyMs: 0, call: probe.call, error: failureWords(undefined, detail, target.secret) };
  }
  const started = performance.now();
  const exchange = await deps.http.send({ method: probe.method, url: probe.url, headers: probe.headers, timeoutMs: target.timeoutMs, maxBytes: MAX_ANSWER_BYTES, ...(signal ? { signal } : {}) });
  const latencyMs = Math.round(performance.now() - started);
  if (exchange.kind === 'no-response') {
    // Our caller giving up says nothing about the upstream; no answer in time or no connection is transient.
    const cancelled = signal?.aborted === true;
    const kind = cancelled ? undefined : 'transient';
    return { ok: false, latencyMs, call: probe.call, error: failureWords(kind, exchange.error.message, target.secret), ...(kind ? { kind } : {}) };
  }
  const { response } = exchange;
  const verdict = probe.read(response);
  if (verdict.ok) return { ok: true, latencyMs, call: probe.call, status: response.status };
  return {
    ok: false,
    latencyMs,
    call: probe.call,
    error: failureWords(verdict.kind, verdict.detail, target.secret),
    status: verdict.status ?? response.status,
    ...(verdict.kind ? { kind: verdict.kind } : {}),
  };
}
