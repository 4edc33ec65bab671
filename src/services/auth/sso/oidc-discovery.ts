import { createRemoteJWKSet, type JWTVerifyGetKey } from 'jose';
import { fetchProviderJson, isProviderUrl, SSO_FETCH_TIMEOUT_MS, type SsoFetch } from './sso-http.ts';
import { SsoRefusal } from './sso-refusal.ts';

/** What we use of a provider's `/.well-known/openid-configuration`. */
export interface OidcMetadata {
  issuer: string;
  authorizationEndpoint: string;
  tokenEndpoint: string;
  userinfoEndpoint: string | undefined;
  jwksUri: string;
  /** The asymmetric algorithms both sides accept for id tokens. */
  idTokenAlgorithms: string[];
  /** How the client secret goes to the token endpoint. */
  tokenAuth: 'client_secret_basic' | 'client_secret_post';
}

/**
 * Signatures we accept on an id token: asymmetric only, checked against the provider's published
 * keys. `none` and the HMAC family (HS*, keyed by the client secret) are never accepted.
 */
export const ASYMMETRIC_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Discovery is read again after this; a provider that is down is asked again after a minute. */
const METADATA_TTL_MS = 60 * 60_000;
const FAILURE_TTL_MS = 60_000;

interface Entry {
  at: number;
  metadata: Promise<OidcMetadata>;
  keys?: JWTVerifyGetKey;
  failed?: boolean;
}

/**
 * Discovery documents and key sets of the configured providers, cached: one entry per configured
 * issuer (the cache is bounded by the configuration), refreshed hourly. jose's remote key set
 * fetches with a timeout, caches the keys and fetches again when a token names an unknown key id
 * (at most every 30 s), so a provider's key rotation is picked up without a restart.
 */
export class OidcDiscovery {
  readonly #fetch: SsoFetch;
  readonly #entries = new Map<string, Entry>();

  constructor(doFetch: SsoFetch = fetch) {
    this.#fetch = doFetch;
  }

  async metadata(issuer: string, now: number = Date.now()): Promise<OidcMetadata> {
    const cached = this.#entries.get(issuer);
    if (cached && now - cached.at < (cached.failed ? FAILURE_TTL_MS : METADATA_TTL_MS)) return cached.metadata;
    const entry: Entry = { at: now, metadata: this.#read(issuer) };
    this.#entries.set(issuer, entry);
    entry.metadata.catch(() => {
      entry.failed = true;
    });
    return entry.metadata;
  }

  /** The provider's keys, for jose's jwtVerify. */
  async keys(issuer: string): Promise<JWTVerifyGetKey> {
    const metadata = await this.metadata(issuer);
    const entry = this.#entries.get(issuer);
    if (!entry) throw new SsoRefusal('provider_unavailable', `no discovery for ${issuer}`);
    entry.keys ??= createRemoteJWKSet(new URL(metadata.jwksUri), { timeoutDuration: SSO_FETCH_TIMEOUT_MS, cooldownDuration: 30_000, cacheMaxAge: METADATA_TTL_MS });
    return entry.keys;
  }

  async #read(issuer: string): Promise<OidcMetadata> {
    const url = `${issuer}/.well-known/openid-configuration`;
    const { body } = await fetchProviderJson(this.#fetch, url, { headers: { accept: 'application/json' } }, 'provider_unavailable');
    return metadataOf(issuer, body);
  }
}

/** Checks a discovery document (OpenID Connect Discovery 1.0, section 4.3: the issuer must be the one asked). */
export function metadataOf(issuer: string, body: unknown): OidcMetadata {
  const bad = (what: string) => new SsoRefusal('provider_unavailable', `the discovery document of ${issuer} ${what}`);
  if (body === null || typeof body !== 'object') throw bad('is not an object');
  const doc = body as Record<string, unknown>;
  if (doc.issuer !== issuer) throw bad(`names another issuer (${JSON.stringify(doc.issuer)})`);
  for (const field of ['authorization_endpoint', 'token_endpoint', 'jwks_uri']) {
    if (!isProviderUrl(doc[field])) throw bad(`has no usable ${field}`);
  }
  const methods = Array.isArray(doc.code_challenge_methods_supported) ? doc.code_challenge_methods_supported : undefined;
  if (methods && !methods.includes('S256')) throw bad('does not offer PKCE with S256');
  const offered = Array.isArray(doc.id_token_signing_alg_values_supported) ? doc.id_token_signing_alg_values_supported.filter((a): a is string => typeof a === 'string') : ['RS256'];
  const idTokenAlgorithms = offered.filter((a) => ASYMMETRIC_ALGORITHMS.includes(a));
  if (idTokenAlgorithms.length === 0) throw bad('offers no asymmetric id-token signature');
  // RFC 8414: without the field, client_secret_basic is the default.
  const auth = Array.isArray(doc.token_endpoint_auth_methods_supported) ? doc.token_endpoint_auth_methods_supported : ['client_secret_basic'];
  return {
    issuer,
    authorizationEndpoint: doc.authorization_endpoint as string,
    tokenEndpoint: doc.token_endpoint as string,
    userinfoEndpoint: isProviderUrl(doc.userinfo_endpoint) ? doc.userinfo_endpoint : undefined,
    jwksUri: doc.jwks_uri as string,
    idTokenAlgorithms,
    tokenAuth: auth.includes('client_secret_basic') || !auth.includes('client_secret_post') ? 'client_secret_basic' : 'client_secret_post',
  };
}
