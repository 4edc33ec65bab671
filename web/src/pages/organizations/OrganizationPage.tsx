import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { Organization, OrganizationMember } from '../../api/index.ts';
import { BudgetAlertsSection } from '../../components/BudgetAlerts.tsx';
import { UsageExport } from '../../components/UsageExport.tsx';
import { ErrorNotice, Field, Loading, Page, useAsync } from '../../components/common.tsx';
import { formatCount, formatUsd } from '../../format.ts';
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
  // Names for the alerts' list (an owner's or admin's view: a member does not see the alerts).
  const members = useAsync(
    (signal) => (org && org.role !== 'member' ? requestData<OrganizationMember[]>('GET', `/api/v1/organizations/${encodeURIComponent(props.id)}/members`, { signal }) : Promise.resolve([])),
    [props.id, org?.role],
  );
  const memberName = (userId: string) => members.data?.find((m) => m.userId === userId)?.email ?? 'A member';
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
              <dt>Tokens per minute</dt>
              <dd>{org.tokensPerMinute === null ? 'No limit' : `${formatCount(org.tokensPerMinute)} over all its keys`}</dd>
              <dt>Your role</dt>
              <dd>
                {ROLE_WORDS[org.role]} <span className="muted small">({ROLE_HINTS[org.role]})</span>
              </dd>
            </dl>
            {org.role === 'owner' ? <RedeemForm organizationId={org.id} onRedeemed={changed} /> : null}
            {org.role !== 'member' ? <TokensPerMinuteForm organization={org} onChanged={changed} /> : null}
          </section>
          <OrganizationMembers organization={org} myUserId={props.myUserId} />
          <OrganizationKeys organization={org} />
          <OrganizationLedger organization={org} tick={tick} />
          {org.role !== 'member' ? <UsageExport path={`/api/v1/organizations/${encodeURIComponent(org.id)}/usage/export`} whose="The organization's" /> : null}
          {org.role !== 'member' ? <BudgetAlertsSection path={`/api/v1/organizations/${encodeURIComponent(org.id)}/budget-alerts`} canChange={org.role === 'owner'} organization memberName={memberName} /> : null}
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

/** An owner or admin limits the tokens per minute of all the organization's keys together (empty: none). */
function TokensPerMinuteForm(props: { organization: Organization; onChanged: () => void }) {
  const [text, setText] = useState(props.organization.tokensPerMinute === null ? '' : String(props.organization.tokensPerMinute));
  const [error, setError] = useState<string | undefined>();
  const save = async (event: FormEvent) => {
    event.preventDefault();
    const trimmed = text.trim();
    if (trimmed !== '' && !/^[1-9][0-9]{0,11}$/.test(trimmed)) {
      setError('A whole number of tokens above 0, or empty for no limit.');
      return;
    }
    setError(undefined);
    try {
      await requestData('PATCH', `/api/v1/organizations/${encodeURIComponent(props.organization.id)}`, { body: { tokensPerMinute: trimmed === '' ? null : Number(trimmed) } });
      props.onChanged();
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  return (
    <form className="inline-form" onSubmit={save}>
      <Field id="org-tpm" label="Tokens per minute, all keys together" hint="Input plus output tokens of text requests; empty for no limit." inline>
        <input id="org-tpm" inputMode="numeric" value={text} onChange={(e) => setText(e.target.value)} aria-describedby="org-tpm-hint" placeholder="No limit" />
      </Field>
      <button type="submit" className="button">
        Save limit
      </button>
      <ErrorNotice error={error} />
    </form>
  );
}
