import { useState } from 'react';
import { ApiError, errorMessage, requestData } from '../api/client.ts';
import type { SessionData } from '../api/index.ts';
import { navigate, usePageTitle } from '../router.tsx';

/** The token of the link, from the fragment the gateway's GET /api/v1/auth/link put it in. */
function tokenOfFragment(): string | undefined {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).get('token') ?? undefined;
}

/**
 * A sign-in link asks before it signs this browser in: opening a link (from a mail, or from any page
 * on the web) must not by itself put the browser into whatever account the link belongs to. The
 * button POSTs the token, a request only this origin can make.
 */
export function SignInLinkPage(props: { signedInAs?: string | undefined; onSignedIn: (session: SessionData) => void }) {
  usePageTitle('Sign in with a link');
  // Read once: the fragment is cleared at the first render so the token does not stay in history.
  const [token] = useState(tokenOfFragment);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  if (window.location.hash !== '') window.history.replaceState(null, '', window.location.pathname);

  const confirm = async () => {
    if (!token) return;
    setBusy(true);
    setError(undefined);
    try {
      const session = await requestData<SessionData>('POST', '/api/v1/auth/link', { body: { token }, quiet401: true });
      props.onSignedIn(session);
      navigate('/', { replace: true });
    } catch (e) {
      if (e instanceof ApiError && e.status === 401) navigate('/login?link=expired', { replace: true });
      else setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <main id="main" className="auth-page">
      <div className="auth-card">
        <p className="brand brand-large" aria-hidden="true">
          Switchboard
        </p>
        <h1 id="page-title" tabIndex={-1}>
          Sign in with a link
        </h1>
        {token ? (
          <>
            <p>
              You opened a one-time sign-in link. Continue only if you asked for it: a link someone else sent you signs you into their account.
              {props.signedInAs ? ` You are signed in as ${props.signedInAs} now; continuing switches to the link's account.` : ''}
            </p>
            {error ? (
              <p className="notice notice-error" role="alert">
                {error}
              </p>
            ) : null}
            <button type="button" className="button button-primary button-block" disabled={busy} onClick={confirm}>
              {busy ? 'Please wait…' : 'Sign in'}
            </button>
          </>
        ) : (
          <p className="notice notice-error" role="alert">
            This page needs the whole link from your message. Open the link again, or sign in with a password.
          </p>
        )}
        <p>
          <a href="/login">Back to sign in</a>
        </p>
      </div>
    </main>
  );
}
