import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { NewOrganizationKey, Organization, OrganizationKey, OrganizationMember } from '../../api/index.ts';
import { CopyButton, ErrorNotice, Field, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { formatTime, formatUsd, relativeTime } from '../../format.ts';

/**
 * The organization's keys: a member makes their own (they spend the organization's balance and name
 * them in its ledger); an owner or admin sees and revokes everyone's.
 */
export function OrganizationKeys(props: { organization: Organization }) {
  const { organization } = props;
  const base = `/api/v1/organizations/${encodeURIComponent(organization.id)}`;
  const [tick, setTick] = useState(0);
  const keys = useAsync((signal) => requestData<OrganizationKey[]>('GET', `${base}/keys`, { signal }), [base, tick]);
  const members = useAsync((signal) => requestData<OrganizationMember[]>('GET', `${base}/members`, { signal }), [base]);
  const [name, setName] = useState('');
  const [created, setCreated] = useState<NewOrganizationKey | undefined>();
  const [error, setError] = useState<string | undefined>();
  const emailOf = (id: string | null) => members.data?.find((m) => m.userId === id)?.email ?? 'a former member';

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      setCreated(await requestData<NewOrganizationKey>('POST', `${base}/keys`, { body: { name: name.trim() || undefined } }));
      setName('');
      setTick((t) => t + 1);
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  const revoke = async (key: OrganizationKey) => {
    setError(undefined);
    try {
      await requestData('DELETE', `${base}/keys/${encodeURIComponent(key.id)}`);
      if (created?.id === key.id) setCreated(undefined);
      setTick((t) => t + 1);
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  const active = (keys.data ?? []).filter((k) => !k.revokedAt);
  return (
    <section className="panel" aria-labelledby="org-keys">
      <h2 id="org-keys">API keys of the organization</h2>
      <form className="inline-form" onSubmit={create}>
        <Field id="org-key-name" label="Name" hint="A key of yours that spends the organization's balance." inline>
          <input id="org-key-name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} aria-describedby="org-key-name-hint" />
        </Field>
        <button type="submit" className="button button-primary">
          Create key
        </button>
      </form>
      {created ? (
        <div className="notice notice-success created-key" role="status">
          <p>Your new key “{created.name}”: copy it now, it will not be shown again.</p>
          <div className="copy-row">
            <label htmlFor="org-created-key" className="visually-hidden">
              New API key
            </label>
            <input id="org-created-key" className="mono" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} data-testid="org-created-key" />
            <CopyButton text={created.key} targetId="org-created-key" label="Copy key" />
          </div>
        </div>
      ) : null}
      <ErrorNotice error={error} />
      <ErrorNotice error={keys.error} what="The keys could not be loaded" />
      {keys.data && active.length === 0 ? <p className="muted">No active keys.</p> : null}
      {active.length > 0 ? (
        <DataTable label="Keys of the organization" className="stack-on-phone" testId="org-keys-table" columns={[{ label: 'Name' }, { label: 'Key' }, { label: 'Member' }, { label: 'This month', numeric: true }, { label: 'Last used' }, { label: 'Actions', hidden: true }]}>
          {active.map((k) => (
            <tr key={k.id}>
              <th scope="row">{k.name}</th>
              <td className="mono">{k.prefix}…</td>
              <td className="wrap-anywhere">{emailOf(k.memberId)}</td>
              <td className="num">{formatUsd(k.spendThisMonthMicroUsd ?? 0)}</td>
              <td title={k.lastUsedAt ? formatTime(k.lastUsedAt) : undefined}>{relativeTime(k.lastUsedAt)}</td>
              <td className="actions">
                <button type="button" className="button button-small" onClick={() => revoke(k)} aria-label={`Revoke ${k.name} (${k.prefix}…)`}>
                  Revoke
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
}
