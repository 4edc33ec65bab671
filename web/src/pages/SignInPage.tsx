import { type FormEvent, useEffect, useState } from 'react';
import { ApiError, errorMessage, requestData } from '../api/client.ts';
import type { SessionData, SsoProvider } from '../api/index.ts';
import { describedBy, Field } from '../components/common.tsx';
import { Link, useLocation, usePageTitle } from '../router.tsx';

/** Sign in, or create an account (`mode`); on success the app receives the session. */
export function SignInPage(props: { mode: 'login' | 'signup'; onSignedIn: (session: SessionData) => void }) {
  const { search } = useLocation();
  const signup = props.mode === 'signup';
  const title = signup ? 'Create your account' : 'Sign in to Switchboard';
  usePageTitle(title);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<{ message: string; field?: string | undefined } | undefined>();

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const session = await requestData<SessionData>('POST', `/api/v1/auth/${signup ? 'signup' : 'login'}`, { body: { email, password }, quiet401: true });
      props.onSignedIn(session);
    } catch (e) {
      setError({ message: errorMessage(e), field: e instanceof ApiError ? e.param : undefined });
    } finally {
      setBusy(false);
    }
  };

  const emailError = error?.field === 'email' ? error.message : undefined;
  const passwordError = error?.field === 'password' ? error.message : undefined;
  const passwordHint = signup ? 'At least 8 characters. A long passphrase is best.' : undefined;
  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <p className="brand brand-large" aria-hidden="true">
          Switchboard
        </p>
        <h1 id="page-title" tabIndex={-1}>
          {title}
        </h1>
        {search.get('link') === 'expired' ? (
          <p className="notice notice-error" role="alert">
            That sign-in link was used already or has expired. Sign in with a password, or ask for a new link below.
          </p>
        ) : null}
        <SsoButtons error={search.get('sso_error')} />
        <form onSubmit={submit} noValidate>
          <Field id="email" label="Email" error={emailError}>
            <input
              id="email"
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              aria-invalid={emailError ? true : undefined}
              aria-describedby={describedBy('email', undefined, emailError)}
            />
          </Field>
          <Field id="password" label="Password" hint={passwordHint} error={passwordError}>
            <input
              id="password"
              type="password"
              autoComplete={signup ? 'new-password' : 'current-password'}
              required
              minLength={signup ? 8 : undefined}
              value={password}
              onChange={(e) => setPassword(e.target.value)}
              aria-invalid={passwordError ? true : undefined}
              aria-describedby={describedBy('password', passwordHint, passwordError)}
            />
          </Field>
          {error && !emailError && !passwordError ? (
            <div className="notice notice-error" role="alert">
              {error.message}
            </div>
          ) : null}
          <button type="submit" className="button button-primary button-block" disabled={busy}>
            {busy ? 'Please wait…' : signup ? 'Create account' : 'Sign in'}
          </button>
        </form>
        {signup ? (
          <p>
            New accounts start with a balance of $0.00: the operator of this gateway adds credit. Already have an account? <Link to="/login">Sign in</Link>
          </p>
        ) : (
          <>
            <p>
              No account yet? <Link to="/signup">Create one</Link>
            </p>
            <EmailLinkForm email={email} />
          </>
        )}
      </div>
    </main>
  );
}

/** What the sign-in page says when single sign-on was refused (`sso_error`, src/services/auth/sso/sso-refusal.ts). */
const SSO_REFUSALS: Record<string, string> = {
  unknown_provider: 'That sign-in provider is not configured here.',
  provider_unavailable: 'The sign-in provider could not be reached. Try again in a moment.',
  denied: 'The sign-in was cancelled at the provider.',
  state: 'That sign-in expired or was started in another browser. Start it again here.',
  code: 'The provider did not confirm the sign-in. Start it again.',
  id_token: 'The provider’s answer could not be verified, so you were not signed in.',
  email_unverified: 'The provider has no verified email for that account. Verify your email there, then try again.',
  too_many: 'Too many sign-ins were started from this address. Try again in a minute.',
  failed: 'Signing in with that provider failed. Try again, or sign in with your password.',
};

/** "Continue with …" for each single sign-on provider the operator configured; each is a plain link (a top-level navigation). */
function SsoButtons(props: { error: string | null }) {
  const [providers, setProviders] = useState<SsoProvider[]>([]);
  useEffect(() => {
    requestData<SsoProvider[]>('GET', '/api/v1/auth/oidc/providers', { quiet401: true }).then(setProviders, () => setProviders([]));
  }, []);
  const refusal = props.error === null ? undefined : (SSO_REFUSALS[props.error] ?? SSO_REFUSALS.failed);
  if (providers.length === 0 && !refusal) return null;
  return (
    <div className="sso-buttons">
      {refusal ? (
        <p className="notice notice-error" role="alert">
          {refusal}
        </p>
      ) : null}
      {providers.map((provider) => (
        <a key={provider.name} className="button button-block" href={provider.startUrl}>
          Continue with {provider.label}
        </a>
      ))}
      {providers.length > 0 ? <p className="sso-or">or with your email</p> : null}
    </div>
  );
}

/**
 * The way back in without a password (an account that only ever signed in by link, or a forgotten
 * password): a one-time link by email. The answer is the same for every address.
 */
function EmailLinkForm(props: { email: string }) {
  const [open, setOpen] = useState(false);
  const [email, setEmail] = useState(props.email);
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<{ ok: boolean; message: string } | undefined>();

  const send = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setOutcome(undefined);
    try {
      await requestData('POST', '/api/v1/auth/sign-in-link', { body: { email }, quiet401: true });
      setOutcome({ ok: true, message: `If ${email} has an account here, a sign-in link is on its way. It works once, within 15 minutes.` });
    } catch (e) {
      setOutcome({ ok: false, message: errorMessage(e) });
    } finally {
      setBusy(false);
    }
  };

  if (!open) {
    return (
      <p>
        No password, or forgot it?{' '}
        <button
          type="button"
          className="button button-small"
          onClick={() => {
            // The address typed above the password, if any, is the one the link is for.
            setEmail(props.email);
            setOpen(true);
          }}
        >
          Email me a sign-in link
        </button>
      </p>
    );
  }
  return (
    <form onSubmit={send} noValidate aria-labelledby="email-link-title">
      <h2 id="email-link-title">Email me a sign-in link</h2>
      <Field id="link-email" label="Email">
        <input id="link-email" type="email" autoComplete="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      {outcome ? (
        <p className={outcome.ok ? 'notice notice-success' : 'notice notice-error'} role={outcome.ok ? 'status' : 'alert'}>
          {outcome.message}
        </p>
      ) : null}
      <button type="submit" className="button button-block" disabled={busy || email.trim() === ''}>
        {busy ? 'Sending…' : 'Send the link'}
      </button>
    </form>
  );
}
