import { useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { Organization } from '../../api/index.ts';
import { Page } from '../../components/common.tsx';
import { navigate } from '../../router.tsx';

/** The token of the invitation, from the fragment GET /api/v1/organizations/invitations/open put it in. */
function tokenOfFragment(): string | undefined {
  return new URLSearchParams(window.location.hash.replace(/^#/, '')).get('token') ?? undefined;
}

/**
 * An invitation's link asks before it makes the signed-in person a member: opening a link (from a
 * mail, or from any page) must not by itself change what someone belongs to. The button POSTs it.
 */
export function JoinOrganizationPage(props: { email: string | null }) {
  const [token] = useState(tokenOfFragment);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | undefined>();
  if (window.location.hash !== '') window.history.replaceState(null, '', window.location.pathname);

  const accept = async () => {
    if (!token) return;
    setBusy(true);
    setError(undefined);
    try {
      const joined = await requestData<Organization>('POST', '/api/v1/organizations/invitations/accept', { body: { token } });
      navigate(`/organizations/${encodeURIComponent(joined.id)}`, { replace: true });
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  return (
    <Page title="Join an organization">
      {token ? (
        <section className="panel">
          <p>You opened an invitation to an organization. Accepting it lets its owners see what you spend through its keys.{props.email ? ` You are signed in as ${props.email}: the invitation must be for this address.` : ''}</p>
          {error ? (
            <p className="notice notice-error" role="alert">
              {error}
            </p>
          ) : null}
          <button type="button" className="button button-primary" disabled={busy} onClick={accept}>
            {busy ? 'Please wait…' : 'Accept the invitation'}
          </button>
        </section>
      ) : (
        <p className="notice notice-error" role="alert">
          This page needs the whole link from your invitation. Open the link again.
        </p>
      )}
    </Page>
  );
}
