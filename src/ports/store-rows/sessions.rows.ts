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
