import { errors, type JWTPayload, type JWTVerifyGetKey, jwtVerify } from 'jose';
import { ASYMMETRIC_ALGORITHMS } from './oidc-discovery.ts';
import { SsoRefusal } from './sso-refusal.ts';

export interface IdTokenExpectations {
  issuer: string;
  clientId: string;
  /** The nonce this sign-in sent. */
  nonce: string;
  /** Of ASYMMETRIC_ALGORITHMS, the ones the provider says it signs with. */
  algorithms: readonly string[];
  now?: number;
}

/** Clock skew allowed between us and the provider on exp, iat and nbf. */
const CLOCK_TOLERANCE_S = 60;
/** An id token older than this when it reaches us is refused (they are issued at the token exchange). */
const MAX_AGE_S = 10 * 60;

/**
 * Checks an id token as OpenID Connect Core 1.0 section 3.1.3.7 asks: the signature against the
 * provider's keys with an asymmetric algorithm it announced (never `none`, never HS*), the issuer,
 * our client id in the audience (and as `azp` when there are several audiences), exp, iat and the
 * nonce of this sign-in. Any failure is a refusal; the claims come back otherwise.
 */
export async function verifyIdToken(idToken: string, keys: JWTVerifyGetKey, expected: IdTokenExpectations): Promise<JWTPayload & { sub: string }> {
  const algorithms = expected.algorithms.filter((a) => ASYMMETRIC_ALGORITHMS.includes(a));
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(idToken, keys, {
      issuer: expected.issuer,
      audience: expected.clientId,
      algorithms,
      clockTolerance: CLOCK_TOLERANCE_S,
      maxTokenAge: MAX_AGE_S,
      requiredClaims: ['sub', 'exp', 'iat', 'nonce'],
      ...(expected.now !== undefined ? { currentDate: new Date(expected.now) } : {}),
    }));
  } catch (error) {
    // The provider's keys could not be fetched: the provider is away, the token is not at fault.
    if (error instanceof errors.JWKSTimeout || !(error instanceof errors.JOSEError)) throw new SsoRefusal('provider_unavailable', `the provider's keys could not be read (${(error as Error).name})`);
    throw new SsoRefusal('id_token', `id token refused (${error.code}: ${error.message})`);
  }
  if (typeof payload.sub !== 'string' || payload.sub === '' || payload.sub.length > 255) throw new SsoRefusal('id_token', 'id token has no usable sub');
  if (Array.isArray(payload.aud) && payload.aud.length > 1 && payload.azp !== expected.clientId) throw new SsoRefusal('id_token', 'id token has several audiences and another azp');
  if (payload.azp !== undefined && payload.azp !== expected.clientId) throw new SsoRefusal('id_token', 'id token was issued to another party (azp)');
  if (payload.nonce !== expected.nonce) throw new SsoRefusal('id_token', 'id token carries another nonce');
  return payload as JWTPayload & { sub: string };
}
