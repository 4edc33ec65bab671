/** A signed-in browser (the dashboard). The cookie holds a random token; only its SHA-256 is stored. */
export interface SessionsRow {
  id: string;
  user_id: string;
  /** SHA-256 (hex) of the cookie token. */
  token_hash: string;
  /** Sent back by the dashboard in `x-csrf-token` on unsafe requests. */
  csrf_token: string;
  created_at: number;
  /** When the expiry last slid forward (renewals are written at most every few minutes). */
  last_seen_at: number;
  /** Idle expiry: moves forward with use, never past `absolute_expires_at`. */
  expires_at: number;
  absolute_expires_at: number;
  user_agent: string | null;
  ip: string | null;
}

/** One-time sign-in links (migration 020): the token's SHA-256, used at most once before it expires. */
export interface SignInLinksRow {
  token_hash: string;
  user_id: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}

/** A provider's account linked to a user (migration 041): one user may have several, one per (issuer, subject). */
export interface OidcIdentitiesRow {
  /** The provider's issuer (`https://github.com` for GitHub, which has none). */
  issuer: string;
  subject: string;
  user_id: string;
  /** The verified email the provider gave at the last sign-in. */
  email: string;
  created_at: number;
  last_sign_in_at: number;
}

/** A started single sign-on (migration 041): used once, before it expires, by the browser that started it. */
export interface OidcSignInStatesRow {
  /** SHA-256 (hex) of the `state` sent to the provider. */
  state_hash: string;
  /** The configured provider's name. */
  provider: string;
  /** SHA-256 (hex) of the browser's binding cookie. */
  browser_hash: string;
  /** PKCE verifier (its S256 challenge went to the provider). */
  code_verifier: string;
  nonce: string;
  created_at: number;
  expires_at: number;
  used_at: number | null;
}
