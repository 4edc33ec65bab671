import { type FormEvent, useState } from 'react';
import { ApiError, errorMessage, requestData } from '../api/client.ts';
import type { PasswordChange, SessionData } from '../api/index.ts';
import { describedBy, Field, Page } from '../components/common.tsx';
import { formatCents, formatTime } from '../format.ts';
import { BudgetAlertsSection } from '../components/BudgetAlerts.tsx';

/** Who is signed in, the password change, and sign-out. */
export function AccountPage(props: { session: SessionData; onSignOut: () => void }) {
  const { user } = props.session;
  const [current, setCurrent] = useState('');
  const [next, setNext] = useState('');
  const [confirm, setConfirm] = useState('');
  const [result, setResult] = useState<{ ok: boolean; message: string; field?: string | undefined } | undefined>();
  const [busy, setBusy] = useState(false);
  // An account that signed in only by link has no password: it sets a first one, without a current one.
  const [hasPassword, setHasPassword] = useState(user.hasPassword);

  const change = async (event: FormEvent) => {
    event.preventDefault();
    if (next !== confirm) {
      setResult({ ok: false, message: 'The new passwords do not match.', field: 'confirm' });
      return;
    }
    setBusy(true);
    setResult(undefined);
    try {
      const r = await requestData<PasswordChange>('POST', '/api/v1/auth/password', {
        body: hasPassword ? { currentPassword: current, newPassword: next } : { newPassword: next },
      });
      setCurrent('');
      setNext('');
      setConfirm('');
      const verb = hasPassword ? 'changed' : 'set: you can now sign in with your email and this password';
      setHasPassword(true);
      setResult({ ok: true, message: `Password ${verb}. ${r.otherSessionsEnded} other ${r.otherSessionsEnded === 1 ? 'session was' : 'sessions were'} signed out.` });
    } catch (e) {
      setResult({ ok: false, message: errorMessage(e), field: e instanceof ApiError ? e.param : undefined });
    } finally {
      setBusy(false);
    }
  };

  const errorFor = (field: string) => (result && !result.ok && result.field === field ? result.message : undefined);
  const newHint = 'At least 8 characters.';
  return (
    <Page title="Account">
      <section className="panel" aria-labelledby="who">
        <h2 id="who">You</h2>
        <dl className="facts">
          <dt>Email</dt>
          <dd>{user.email}</dd>
          <dt>User id</dt>
          <dd className="mono">{user.id}</dd>
          <dt>Balance</dt>
          <dd>{formatCents(user.balance)}</dd>
          <dt>Member since</dt>
          <dd>{formatTime(user.createdAt)}</dd>
          <dt>Role</dt>
          <dd>{user.isAdmin ? 'Administrator' : 'User'}</dd>
        </dl>
        <button type="button" className="button" onClick={props.onSignOut}>
          Sign out
        </button>
      </section>
      <BudgetAlertsSection path="/api/v1/budget-alerts" canChange />
      <section className="panel" aria-labelledby="password-title">
        <h2 id="password-title">{hasPassword ? 'Change password' : 'Set a password'}</h2>
        <p className="muted">
          {hasPassword
            ? 'Changing the password signs out every other browser signed in to this account.'
            : 'You signed in with a link and have no password yet. Set one to sign in with your email and password; every other browser signed in to this account is signed out.'}
        </p>
        <form onSubmit={change} className="narrow-form">
          {hasPassword ? (
            <Field id="current-password" label="Current password" error={errorFor('currentPassword')}>
              <input
                id="current-password"
                type="password"
                autoComplete="current-password"
                required
                value={current}
                onChange={(e) => setCurrent(e.target.value)}
                aria-describedby={describedBy('current-password', undefined, errorFor('currentPassword'))}
              />
            </Field>
          ) : null}
          <Field id="new-password" label="New password" hint={newHint} error={errorFor('newPassword')}>
            <input
              id="new-password"
              type="password"
              autoComplete="new-password"
              required
              minLength={8}
              value={next}
              onChange={(e) => setNext(e.target.value)}
              aria-describedby={describedBy('new-password', newHint, errorFor('newPassword'))}
            />
          </Field>
          <Field id="confirm-password" label="New password again" error={errorFor('confirm')}>
            <input
              id="confirm-password"
              type="password"
              autoComplete="new-password"
              required
              value={confirm}
              onChange={(e) => setConfirm(e.target.value)}
              aria-describedby={describedBy('confirm-password', undefined, errorFor('confirm'))}
            />
          </Field>
          {result && (result.ok || !result.field) ? (
            <p className={result.ok ? 'notice notice-success' : 'notice notice-error'} role={result.ok ? 'status' : 'alert'}>
              {result.message}
            </p>
          ) : null}
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Saving…' : hasPassword ? 'Change password' : 'Set password'}
          </button>
        </form>
      </section>
      {user.isAdmin ? null : <ClaimAdmin />}
    </Page>
  );
}

/** The operator's way in: a signed-in user with the gateway's ADMIN_TOKEN becomes its first administrator. */
function ClaimAdmin() {
  const [token, setToken] = useState('');
  const [error, setError] = useState<string | undefined>();
  const claim = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      await requestData('POST', '/api/v1/auth/claim-admin', { body: { adminToken: token } });
      // The navigation and the admin pages follow the session: load it again.
      window.location.assign('/admin');
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <section className="panel" aria-labelledby="claim-admin-title">
      <h2 id="claim-admin-title">Administrator access</h2>
      <p className="hint">Operators of this gateway: enter its ADMIN_TOKEN to make this account an administrator.</p>
      <form className="narrow-form" onSubmit={claim}>
        <Field id="admin-token" label="ADMIN_TOKEN">
          <input id="admin-token" type="password" autoComplete="off" required value={token} onChange={(e) => setToken(e.target.value)} />
        </Field>
        <button type="submit" className="button">
          Become administrator
        </button>
      </form>
      {error ? (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}
