import { normalizeEmail } from '../../accounts/accounts.service.ts';
import { SsoRefusal } from './sso-refusal.ts';

/** A person as the provider vouches for them: a verified email, always. */
export interface VerifiedIdentity {
  issuer: string;
  subject: string;
  email: string;
}

/** A provider's email in our normal form; one we cannot use is a refusal, never a 400 at a redirect. */
export function emailOf(email: string): string {
  try {
    return normalizeEmail(email);
  } catch {
    throw new SsoRefusal('email_unverified', 'the provider gave an email we cannot use');
  }
}
