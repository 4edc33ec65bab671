/**
 * The shapes of a provider key test (issue 32 item 7, `POST /admin/v1/providers/{name}/test`): what is
 * tested, what the test found, and the `KeyProbe` each API style describes for it. A style only says
 * which cheap call proves its key and how to read the answer; `key-probe-runner.ts` makes the call, so
 * time-outs, cancellation, latency and the wording that never holds the secret live once.
 */
import type { HttpMethod, UpstreamHttpClient, UpstreamResponse } from '../../adapters/outbound/upstream-http-client.ts';
import type { UpstreamFailureKind } from '../../ports/upstream-health.port.ts';

/** One key of one configured provider, as the live settings hold it. */
export interface KeyCheckTarget {
  /** The provider's API style (`openai`, `anthropic`, `kie`, …). */
  type: string;
  /** The configured base URL; the vendor's public one when undefined. */
  baseUrl: string | undefined;
  /** The key under test; undefined for a provider that takes none (a vLLM next door, `local`). */
  secret: string | undefined;
  /** The provider's style options (headers, API version, …), read as its adapter reads them. */
  options: Record<string, unknown>;
  /** Deadline of the whole call. */
  timeoutMs: number;
}

export interface KeyCheckResult {
  ok: boolean;
  latencyMs: number;
  /** What was called, e.g. "GET /v1/models". */
  call: string;
  /** In words, never holding the secret. */
  error?: string;
  status?: number;
  /** How the failure counts for health: auth (401/403), quota (402 or credit spent), rate_limited (429), transient (5xx, timeout, connection). */
  kind?: UpstreamFailureKind;
}

/** What the key test needs from the composition root: the upstream client the adapters use. */
export interface KeyCheckDeps {
  http: UpstreamHttpClient;
}

/** What an answer says about the key: good, or why not (no `kind`: it says nothing about the key's health). */
export type ProbeVerdict = { ok: true } | { ok: false; detail: string; kind: UpstreamFailureKind | undefined; status?: number };

/** The one cheap call that proves a key, described without doing it. */
export type KeyProbe =
  /** Nothing to call: the provider has no upstream (local). */
  | { kind: 'none'; call: string }
  /** The call cannot be made as configured (no key where one is required, a base URL that is not a URL). */
  | { kind: 'unusable'; call: string; detail: string; failure: UpstreamFailureKind | undefined }
  | {
      kind: 'http';
      /** `GET /v1/models`: the method and the path as the vendor documents it. */
      call: string;
      method: HttpMethod;
      url: string;
      headers: Record<string, string>;
      /** Reads any answer, 2xx or not (kie says 401 inside an HTTP 200). */
      read(response: UpstreamResponse): ProbeVerdict;
    };

/** A style's probe for one target; pure, no I/O. */
export type KeyProbeFactory = (target: KeyCheckTarget) => KeyProbe;
