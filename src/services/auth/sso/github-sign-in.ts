import type { SsoProviderConfig } from '../../../config/oidc-config.ts';
import { fetchProviderJson, type SsoFetch } from './sso-http.ts';
import { SsoRefusal } from './sso-refusal.ts';
import { emailOf, type VerifiedIdentity } from './verified-identity.ts';

/**
 * GitHub signs in with OAuth 2, not OpenID Connect: no discovery and no id token. The code (with the
 * PKCE verifier) buys an access token, and GitHub's API says who it is (`GET /user`, its numeric id
 * is the subject) and which emails it has verified (`GET /user/emails`): only the primary email, and
 * only when verified, links or opens an account.
 */
export function githubAuthorizeUrl(provider: SsoProviderConfig): string {
  return github(provider).authorizeUrl;
}

export async function fetchGithubIdentity(doFetch: SsoFetch, provider: SsoProviderConfig, exchange: { code: string; codeVerifier: string; redirectUri: string }): Promise<VerifiedIdentity> {
  const endpoints = github(provider);
  const form = new URLSearchParams({
    client_id: provider.clientId,
    client_secret: provider.clientSecret ?? '',
    code: exchange.code,
    redirect_uri: exchange.redirectUri,
    code_verifier: exchange.codeVerifier,
  });
  const { body } = await fetchProviderJson(doFetch, endpoints.tokenUrl, { method: 'POST', headers: { accept: 'application/json', 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() }, 'code');
  // GitHub answers a refused code with 200 and an `error` field.
  const tokens = body as { access_token?: unknown; error?: unknown };
  if (typeof tokens.access_token !== 'string') throw new SsoRefusal('code', `GitHub refused the code (${typeof tokens.error === 'string' ? tokens.error.slice(0, 60) : 'no access token'})`);
  const headers = { accept: 'application/vnd.github+json', authorization: `Bearer ${tokens.access_token}`, 'user-agent': 'switchboard-sign-in', 'x-github-api-version': '2022-11-28' };
  const user = (await fetchProviderJson(doFetch, `${endpoints.apiBaseUrl}/user`, { headers }, 'code')).body as { id?: unknown };
  if (typeof user?.id !== 'number' && typeof user?.id !== 'string') throw new SsoRefusal('failed', 'GitHub gave no user id');
  const emails = (await fetchProviderJson(doFetch, `${endpoints.apiBaseUrl}/user/emails`, { headers }, 'code')).body;
  const primary = Array.isArray(emails) ? (emails as { email?: unknown; primary?: unknown; verified?: unknown }[]).find((e) => e?.primary === true) : undefined;
  if (typeof primary?.email !== 'string' || primary.verified !== true) throw new SsoRefusal('email_unverified', 'the GitHub account has no verified primary email');
  return { issuer: provider.issuer, subject: String(user.id), email: emailOf(primary.email) };
}

function github(provider: SsoProviderConfig): NonNullable<SsoProviderConfig['github']> {
  if (!provider.github) throw new SsoRefusal('failed', `${provider.name} is not a GitHub provider`);
  return provider.github;
}
