/**
 * Why a single sign-on was refused, as the sign-in page words it (web/src/pages/SignInPage.tsx maps
 * each reason to a sentence): the redirect carries only the reason, never a message of ours or the
 * provider's, so nobody can make our page say what they like.
 */
export type SsoRefusalReason =
  | 'unknown_provider'
  | 'provider_unavailable'
  | 'denied'
  | 'state'
  | 'code'
  | 'id_token'
  | 'email_unverified'
  | 'too_many'
  | 'failed';

export class SsoRefusal extends Error {
  readonly reason: SsoRefusalReason;

  /** `detail` is for the log: it never holds a token, a code or a secret. */
  constructor(reason: SsoRefusalReason, detail: string) {
    super(detail);
    this.name = 'SsoRefusal';
    this.reason = reason;
  }
}
