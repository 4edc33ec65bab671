import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { Organization } from '../../api/index.ts';
import { ErrorNotice, Field, Loading, Page, useAsync } from '../../components/common.tsx';
import { formatUsd } from '../../format.ts';
import { Link } from '../../router.tsx';
import { ROLE_HINTS, ROLE_WORDS } from './organization-words.ts';
import { OrganizationKeys } from './OrganizationKeys.tsx';
import { OrganizationLedger } from './OrganizationLedger.tsx';
import { OrganizationMembers } from './OrganizationMembers.tsx';

/** One organization: its balance, members, keys and books, as far as the person's role reaches. */
export function OrganizationPage(props: { id: string; myUserId: string }) {
  const [tick, setTick] = useState(0);
  const organization = useAsync((signal) => requestData<Organization>('GET', `/api/v1/organizations/${encodeURIComponent(props.id)}`, { signal }), [props.id, tick]);
  const changed = () => setTick((t) => t + 1);
  const org = organization.data;
  return (
    <Page title={org ? org.name : 'Organization'} lead={<Link to="/organizations">All your organizations</Link>}>
      <ErrorNotice error={organization.error} what="The organization could not be loaded" />
      {organization.loading && !org ? <Loading /> : null}
      {org ? (
        <>
          <section className="panel" aria-labelledby="org-summary">
            <h2 id="org-summary">Summary</h2>
            <dl className="facts">
              <dt>Balance</dt>
              <dd data-testid="org-balance">{formatUsd(org.balanceMicroUsd)}</dd>
              <dt>Your role</dt>
              <dd>
                {ROLE_WORDS[org.role]} <span className="muted small">({ROLE_HINTS[org.role]})</span>
              </dd>
            </dl>
            {org.role === 'owner' ? <RedeemForm organizationId={org.id} onRedeemed={changed} /> : null}
          </section>
          <OrganizationMembers organization={org} myUserId={props.myUserId} />
          <OrganizationKeys organization={org} />
          <OrganizationLedger organization={org} tick={tick} />
        </>
      ) : null}
    </Page>
  );
}

function RedeemForm(props: { organizationId: string; onRedeemed: () => void }) {
  const [code, setCode] = useState('');
  const [error, setError] = useState<string | undefined>();
  const [done, setDone] = useState<string | undefined>();
  const redeem = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    setDone(undefined);
    try {
      const result = await requestData<{ amountMicroUsd: string }>('POST', `/api/v1/organizations/${encodeURIComponent(props.organizationId)}/redeem`, { body: { code: code.trim() } });
      setDone(`${formatUsd(result.amountMicroUsd)} added to the organization.`);
      setCode('');
      props.onRedeemed();
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <form className="inline-form" onSubmit={redeem}>
      <Field id="org-redeem" label="Redeem a code for the organization" inline>
        <input id="org-redeem" value={code} maxLength={200} onChange={(e) => setCode(e.target.value)} autoComplete="off" />
      </Field>
      <button type="submit" className="button" disabled={!code.trim()}>
        Redeem
      </button>
      {done ? (
        <p className="notice notice-success" role="status">
          {done}
        </p>
      ) : null}
      <ErrorNotice error={error} />
    </form>
  );
}
