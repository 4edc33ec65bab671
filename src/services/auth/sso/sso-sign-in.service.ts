import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../../domain/errors.ts';
import type { SsoProviderConfig } from '../../../config/oidc-config.ts';
import type { AccountStore, UserRow } from '../../../ports/account-store.port.ts';
import type { OidcStore } from '../../../ports/oidc-store.port.ts';
import type { RateLimit, RateLimiter } from '../../../ports/rate-limiter.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { createUser } from '../../accounts/accounts.service.ts';
import { addressGroup } from '../address-group.ts';
import type { AuthService, ClientInfo, IssuedSession } from '../auth.service.ts';
import { fetchGithubIdentity, githubAuthorizeUrl } from './github-sign-in.ts';
import { verifyIdToken } from './id-token.ts';
import { OidcDiscovery } from './oidc-discovery.ts';
import { fetchProviderJson, type SsoFetch } from './sso-http.ts';
import { SsoRefusal } from './sso-refusal.ts';
import { emailOf, type VerifiedIdentity } from './verified-identity.ts';

/** A started sign-in may take this long at the provider (typing a password, a second factor). */
export const SSO_STATE_TTL_MS = 10 * 60_000;
/** Sign-ins started per client address (an IPv6 /64 counts as one): each writes a row. */
const STARTS_PER_ADDRESS: RateLimit = { max: 30, windowMs: 60_000 };

export interface SsoSignInDeps {
  providers: readonly SsoProviderConfig[];
  accounts: AccountStore;
  oidc: OidcStore;
  uow: UnitOfWork;
  sessions: AuthService;
  limiter: RateLimiter;
  publicBaseUrl: () => string;
  fetch?: SsoFetch;
}

export interface StartedSignIn {
  /** The provider's authorization URL, with state, nonce and the PKCE challenge. */
  location: string;
  /** Goes to the browser in a short-lived cookie; the callback must bring it back (login CSRF). */
  browserToken: string;
}

export interface CallbackParams {
  code?: string | undefined;
  state?: string | undefined;
  error?: string | undefined;
  /** RFC 9207: the issuer of the answer, when the provider says (a defence against mix-ups between providers). */
  iss?: string | undefined;
}

/**
 * Single sign-on (issue 33, item 5): authorization code with PKCE (S256) at any OpenID Connect
 * provider found by discovery, or at GitHub (OAuth 2, its API for the verified primary email).
 * A started sign-in is a row used once, within ten minutes, by the browser that holds its binding
 * cookie. A person comes back as (issuer, subject) with a verified email: a linked identity signs
 * its user in; else the account with that email is linked, or a new account is opened (balance 0,
 * no password, as sign-up opens one). docs/decisions.md, "Single sign-on".
 */
export class SsoSignIn {
  readonly #deps: SsoSignInDeps;
  readonly #byName: Map<string, SsoProviderConfig>;
  readonly #fetch: SsoFetch;
  readonly #discovery: OidcDiscovery;
  #lastSweep = 0;

  constructor(deps: SsoSignInDeps) {
    this.#deps = deps;
    this.#byName = new Map(deps.providers.map((p) => [p.name, p]));
    this.#fetch = deps.fetch ?? fetch;
    this.#discovery = new OidcDiscovery(this.#fetch);
  }

  /** For the sign-in page's buttons. */
  list(): { name: string; label: string }[] {
    return this.#deps.providers.map((p) => ({ name: p.name, label: p.label }));
  }

  redirectUri(name: string): string {
    return `${this.#deps.publicBaseUrl()}/api/v1/auth/oidc/${name}/callback`;
  }

  async start(name: string, client: ClientInfo, now: number = Date.now()): Promise<StartedSignIn> {
    const provider = this.#provider(name);
    const verdict = await this.#deps.limiter.hit(`sso-start:${addressGroup(client.ip)}`, STARTS_PER_ADDRESS);
    if (!verdict.allowed) throw new SsoRefusal('too_many', 'too many sign-ins started from this address');
    const state = randomBytes(32).toString('base64url');
    const nonce = randomBytes(32).toString('base64url');
    const codeVerifier = randomBytes(32).toString('base64url');
    const browserToken = randomBytes(32).toString('base64url');
    const params = new URLSearchParams({
      response_type: 'code',
      client_id: provider.clientId,
      redirect_uri: this.redirectUri(name),
      scope: provider.scopes.join(' '),
      state,
      code_challenge: createHash('sha256').update(codeVerifier).digest('base64url'),
      code_challenge_method: 'S256',
    });
    let endpoint: string;
    if (provider.type === 'github') endpoint = githubAuthorizeUrl(provider);
    else {
      endpoint = (await this.#discovery.metadata(provider.issuer, now)).authorizationEndpoint;
      params.set('nonce', nonce);
    }
    await this.#sweep(now);
    await this.#deps.oidc.addSignInState(this.#deps.uow.direct, {
      state_hash: sha256(state),
      provider: name,
      browser_hash: sha256(browserToken),
      code_verifier: codeVerifier,
      nonce,
      created_at: now,
      expires_at: now + SSO_STATE_TTL_MS,
    });
    const location = new URL(endpoint);
    for (const [key, value] of params) location.searchParams.set(key, value);
    return { location: location.toString(), browserToken };
  }

  /** The provider sent the browser back: checks everything, then signs the browser in. */
  async finish(name: string, params: CallbackParams, browserToken: string | undefined, client: ClientInfo, now: number = Date.now()): Promise<IssuedSession> {
    const provider = this.#provider(name);
    const { state, code } = params;
    if (typeof state !== 'string' || state === '' || state.length > 200) throw new SsoRefusal('state', 'the callback has no state');
    if (typeof browserToken !== 'string' || browserToken === '' || browserToken.length > 200) throw new SsoRefusal('state', 'the browser brought no binding cookie');
    // Used up by this call whatever follows, so a second try with it is refused; only the browser
    // that started it can use it, so a callback URL seen elsewhere cannot spend it.
    const started = await this.#deps.oidc.consumeSignInState(this.#deps.uow.direct, { stateHash: sha256(state), browserHash: sha256(browserToken), provider: name }, now);
    if (!started) throw new SsoRefusal('state', 'unknown, used or expired state, or started by another browser or for another provider');
    if (params.iss !== undefined && params.iss !== provider.issuer) throw new SsoRefusal('code', 'the answer names another issuer (iss)');
    if (params.error !== undefined) throw new SsoRefusal('denied', `the provider answered ${params.error.slice(0, 60)}`);
    if (typeof code !== 'string' || code === '' || code.length > 2048) throw new SsoRefusal('code', 'the callback has no code');
    const identity =
      provider.type === 'github'
        ? await fetchGithubIdentity(this.#fetch, provider, { code, codeVerifier: started.codeVerifier, redirectUri: this.redirectUri(name) })
        : await this.#oidcIdentity(provider, code, started.codeVerifier, started.nonce, now);
    const user = await this.#userFor(identity, now);
    return this.#deps.sessions.signInVerified(user, client, now);
  }

  async #oidcIdentity(provider: SsoProviderConfig, code: string, codeVerifier: string, nonce: string, now: number): Promise<VerifiedIdentity> {
    const metadata = await this.#discovery.metadata(provider.issuer, now);
    const form = new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: this.redirectUri(provider.name), code_verifier: codeVerifier });
    const headers: Record<string, string> = { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' };
    if (provider.clientSecret === undefined) form.set('client_id', provider.clientId);
    else if (metadata.tokenAuth === 'client_secret_basic') {
      // RFC 6749, 2.3.1: each part form-encoded before the base64.
      headers.authorization = `Basic ${Buffer.from(`${formEncode(provider.clientId)}:${formEncode(provider.clientSecret)}`).toString('base64')}`;
    } else {
      form.set('client_id', provider.clientId);
      form.set('client_secret', provider.clientSecret);
    }
    const { body } = await fetchProviderJson(this.#fetch, metadata.tokenEndpoint, { method: 'POST', headers, body: form.toString() }, 'code');
    const tokens = body as { id_token?: unknown; access_token?: unknown };
    if (typeof tokens.id_token !== 'string') throw new SsoRefusal('id_token', 'the token endpoint gave no id token');
    const claims = await verifyIdToken(tokens.id_token, await this.#discovery.keys(provider.issuer), { issuer: metadata.issuer, clientId: provider.clientId, nonce, algorithms: metadata.idTokenAlgorithms, now });
    let email: unknown = claims.email;
    let verified: unknown = claims.email_verified;
    // Providers may keep the email claims out of the id token (OIDC Core 5.4): the user info has
    // them then, for the same subject (OIDC Core 5.3.2).
    if (email === undefined && metadata.userinfoEndpoint && typeof tokens.access_token === 'string') {
      const info = (await fetchProviderJson(this.#fetch, metadata.userinfoEndpoint, { headers: { accept: 'application/json', authorization: `Bearer ${tokens.access_token}` } }, 'code')).body as Record<string, unknown>;
      if (info?.sub !== claims.sub) throw new SsoRefusal('id_token', 'the user info names another subject');
      email = info.email;
      verified = info.email_verified;
    }
    if (typeof email !== 'string' || email === '') throw new SsoRefusal('email_unverified', 'the provider gave no email');
    if (verified !== true) throw new SsoRefusal('email_unverified', 'the provider has not verified the email');
    return { issuer: metadata.issuer, subject: claims.sub, email: emailOf(email) };
  }

  /** The linked user; else the account with this email, linked now; else a new account, linked. */
  async #userFor(identity: VerifiedIdentity, now: number): Promise<UserRow> {
    const db = this.#deps.uow.direct;
    const { accounts, oidc } = this.#deps;
    const linked = await oidc.findIdentity(db, identity.issuer, identity.subject);
    if (linked) {
      const user = await accounts.findUser(db, linked.user_id);
      if (!user) throw new SsoRefusal('failed', 'the linked account is gone');
      await oidc.touchIdentity(db, identity.issuer, identity.subject, identity.email, now);
      return user;
    }
    let user = await accounts.findUserByEmail(db, identity.email);
    if (!user) {
      try {
        user = await createUser({ accounts, uow: this.#deps.uow }, { email: identity.email }, now);
      } catch (error) {
        // The same email signed up meanwhile (another tab, another provider): link to that account.
        if (!(error instanceof AppError && error.code === 'conflict')) throw error;
        user = await accounts.findUserByEmail(db, identity.email);
        if (!user) throw error;
      }
    }
    const added = await oidc.addIdentity(db, { issuer: identity.issuer, subject: identity.subject, user_id: user.id, email: identity.email, created_at: now, last_sign_in_at: now });
    if (!added) {
      // A concurrent first sign-in of the same person linked it first: its link stands.
      const first = await oidc.findIdentity(db, identity.issuer, identity.subject);
      const firstUser = first ? await accounts.findUser(db, first.user_id) : undefined;
      if (!firstUser) throw new SsoRefusal('failed', 'the identity was linked meanwhile to an account that is gone');
      return firstUser;
    }
    return user;
  }

  #provider(name: string): SsoProviderConfig {
    const provider = this.#byName.get(name);
    if (!provider) throw new SsoRefusal('unknown_provider', `no sign-in provider named ${name.slice(0, 40)}`);
    return provider;
  }

  /** Started sign-ins that ran out are deleted now and then (at most every ten minutes per process). */
  async #sweep(now: number): Promise<void> {
    if (now - this.#lastSweep < SSO_STATE_TTL_MS) return;
    this.#lastSweep = now;
    await this.#deps.oidc.deleteExpiredSignInStates(this.#deps.uow.direct, now);
  }
}

function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

function formEncode(value: string): string {
  return new URLSearchParams({ v: value }).toString().slice(2);
}
