import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createLocalJWKSet, exportJWK, generateKeyPair, type JWTPayload, SignJWT } from 'jose';
import { verifyIdToken } from '../../../src/services/auth/sso/id-token.ts';
import { metadataOf } from '../../../src/services/auth/sso/oidc-discovery.ts';
import { SsoRefusal } from '../../../src/services/auth/sso/sso-refusal.ts';

const ISSUER = 'https://id.example.com';
const CLIENT = 'our-client';
const NONCE = 'the-nonce-of-this-sign-in';
const NOW = Date.UTC(2026, 11, 3, 12, 0, 0);
const s = (ms: number) => Math.floor(ms / 1000);

const rsa = await generateKeyPair('RS256', { extractable: true });
const ec = await generateKeyPair('ES256', { extractable: true });
const keys = createLocalJWKSet({
  keys: [
    { ...(await exportJWK(rsa.publicKey)), kid: 'rsa', alg: 'RS256' },
    { ...(await exportJWK(ec.publicKey)), kid: 'ec', alg: 'ES256' },
  ],
});
const expected = { issuer: ISSUER, clientId: CLIENT, nonce: NONCE, algorithms: ['RS256', 'ES256'], now: NOW };
const good: JWTPayload = { iss: ISSUER, aud: CLIENT, sub: 'user-1', nonce: NONCE, iat: s(NOW) - 5, exp: s(NOW) + 300, email: 'a@example.com', email_verified: true };

function sign(claims: JWTPayload, key: CryptoKey = rsa.privateKey, header: { alg: string; kid: string } = { alg: 'RS256', kid: 'rsa' }): Promise<string> {
  return new SignJWT(claims).setProtectedHeader(header).sign(key);
}

async function refused(token: string | Promise<string>, why: RegExp): Promise<void> {
  await assert.rejects(verifyIdToken(await token, keys, expected), (error: unknown) => error instanceof SsoRefusal && error.reason === 'id_token' && why.test(error.message));
}

test('a token signed by the provider for us, with this nonce, gives its claims (RS256 and ES256)', async () => {
  assert.equal((await verifyIdToken(await sign(good), keys, expected)).sub, 'user-1');
  assert.equal((await verifyIdToken(await sign(good, ec.privateKey, { alg: 'ES256', kid: 'ec' }), keys, expected)).email, 'a@example.com');
});

test('another issuer, audience or nonce is refused', async () => {
  await refused(sign({ ...good, iss: 'https://evil.example.com' }), /iss/);
  await refused(sign({ ...good, aud: 'another-client' }), /aud/);
  await refused(sign({ ...good, nonce: 'another' }), /nonce/);
  await refused(sign({ ...good, nonce: undefined }), /nonce/);
  await refused(sign({ ...good, aud: [CLIENT, 'another-client'] }), /audiences/);
  await refused(sign({ ...good, azp: 'another-client' }), /azp/);
});

test('an expired token, one issued long ago or in the future, and one without iat are refused', async () => {
  await refused(sign({ ...good, exp: s(NOW) - 120 }), /exp/);
  await refused(sign({ ...good, iat: s(NOW) - 3600 }), /iat/);
  await refused(sign({ ...good, iat: s(NOW) + 3600 }), /iat/);
  await refused(sign({ ...good, iat: undefined }), /iat/);
});

test('a token signed with another key, unsigned, or with HMAC keyed by a shared secret is refused', async () => {
  const stranger = await generateKeyPair('RS256');
  await refused(sign(good, stranger.privateKey), /signature/);
  const part = (v: object) => Buffer.from(JSON.stringify(v)).toString('base64url');
  await refused(`${part({ alg: 'none', typ: 'JWT' })}.${part(good)}.`, /ALG_NOT_ALLOWED|alg/i);
  const hmac = await new SignJWT(good).setProtectedHeader({ alg: 'HS256', kid: 'rsa' }).sign(new TextEncoder().encode('the-client-secret-the-client-secret'));
  await refused(hmac, /ALG_NOT_ALLOWED|alg/i);
  // An algorithm the provider did not announce is refused even with a good signature.
  await assert.rejects(verifyIdToken(await sign(good, ec.privateKey, { alg: 'ES256', kid: 'ec' }), keys, { ...expected, algorithms: ['RS256'] }), SsoRefusal);
  // HS* never counts, even when a discovery document lists it.
  await assert.rejects(verifyIdToken(hmac, keys, { ...expected, algorithms: ['HS256'] }), SsoRefusal);
});

test('discovery: the issuer must be the one asked, PKCE S256 offered, and an asymmetric signature', () => {
  const doc = {
    issuer: ISSUER,
    authorization_endpoint: `${ISSUER}/auth`,
    token_endpoint: `${ISSUER}/token`,
    jwks_uri: `${ISSUER}/jwks`,
    userinfo_endpoint: `${ISSUER}/me`,
    code_challenge_methods_supported: ['S256'],
    id_token_signing_alg_values_supported: ['RS256', 'HS256', 'none'],
    token_endpoint_auth_methods_supported: ['client_secret_post'],
  };
  const metadata = metadataOf(ISSUER, doc);
  assert.deepEqual(metadata.idTokenAlgorithms, ['RS256']);
  assert.equal(metadata.tokenAuth, 'client_secret_post');
  assert.equal(metadataOf(ISSUER, { ...doc, token_endpoint_auth_methods_supported: undefined }).tokenAuth, 'client_secret_basic');
  assert.throws(() => metadataOf(ISSUER, { ...doc, issuer: 'https://evil.example.com' }), SsoRefusal);
  assert.throws(() => metadataOf(ISSUER, { ...doc, code_challenge_methods_supported: ['plain'] }), SsoRefusal);
  assert.throws(() => metadataOf(ISSUER, { ...doc, id_token_signing_alg_values_supported: ['HS256', 'none'] }), SsoRefusal);
  assert.throws(() => metadataOf(ISSUER, { ...doc, token_endpoint: 'http://id.example.com/token' }), SsoRefusal);
});
