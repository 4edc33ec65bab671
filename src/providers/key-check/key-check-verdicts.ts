/**
 * Reading a key test's answer with the rules the adapters already follow, so that a test and a real
 * call count a failure the same way for health: chat styles by `classifyUpstreamFailure` over the
 * error body chat reads (`failureFromText`), media styles by their adapter's `ProviderError` code.
 */
import type { UpstreamResponse } from '../../adapters/outbound/upstream-http-client.ts';
import { classifyUpstreamFailure } from '../../domain/upstreams/failure-kind.ts';
import type { UpstreamFailureKind } from '../../ports/upstream-health.port.ts';
import { failureFromText } from '../chat/upstream-call.ts';
import type { ProviderError } from '../media/media-provider.ts';
import type { KeyProbe, ProbeVerdict } from './key-check.types.ts';

/** A chat upstream's error answer (OpenAI's, Anthropic's or a bare `{message}`), as chat health counts it. */
export function chatVerdict(vendor: string, response: UpstreamResponse): ProbeVerdict {
  if (response.status >= 200 && response.status < 300) return { ok: true };
  const error = failureFromText(response.status, response.headers, response.body.toString('utf8'));
  const failure = classifyUpstreamFailure({ status: response.status, message: error.message, ...(error.type === undefined ? {} : { code: error.type }) });
  return { ok: false, detail: `${vendor}: ${response.status} ${error.message}`, kind: failure?.kind };
}

/**
 * The health kind of a media adapter's error, by its closed list of reasons, else by its status; the
 * same table as services/upstreams/upstream-failure.ts `mediaFailureOf` (which providers cannot import).
 */
export function kindOfProviderError(error: ProviderError): UpstreamFailureKind | undefined {
  switch (error.code) {
    case 'auth':
      return 'auth';
    case 'credits':
      return 'quota';
    case 'rate_limited':
      return 'rate_limited';
    case 'network':
    case 'timeout':
    case 'unavailable':
    case 'protocol':
      return 'transient';
    case undefined:
      return error.status === undefined ? undefined : classifyUpstreamFailure({ status: error.status, message: error.message })?.kind;
    default:
      return undefined;
  }
}

export function providerErrorVerdict(error: ProviderError): ProbeVerdict {
  return { ok: false, detail: error.message, kind: kindOfProviderError(error), ...(error.status === undefined ? {} : { status: error.status }) };
}

/** A 2xx answer whose balance is spent: the key works, but every paid call would be refused. */
export function spentVerdict(detail: string, status?: number): ProbeVerdict {
  return { ok: false, detail, kind: 'quota', ...(status === undefined ? {} : { status }) };
}

/** The configured base URL (or the vendor's), without trailing slashes; undefined when it is not an http(s) URL. */
export function baseUrlOf(configured: string | undefined, fallback: string | undefined): string | undefined {
  const url = configured ?? fallback;
  if (url === undefined) return undefined;
  try {
    const parsed = new URL(url);
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') return undefined;
  } catch {
    return undefined;
  }
  return url.replace(/\/+$/u, '');
}

/** A probe that cannot run: no base URL to call. */
export function noBaseUrl(call: string, vendor: string): KeyProbe {
  return { kind: 'unusable', call, detail: `${vendor}: the base URL is missing or is not an http(s) URL`, failure: undefined };
}

/** A probe that cannot run: the style needs a key and none is set. The upstream would refuse it as a bad key. */
export function noSecret(call: string, vendor: string): KeyProbe {
  return { kind: 'unusable', call, detail: `${vendor}: no API key is set, and ${vendor} requires one`, failure: 'auth' };
}
