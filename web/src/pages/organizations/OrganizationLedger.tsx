import { useState } from 'react';
import { requestData } from '../../api/client.ts';
import type { Organization, OrganizationLedgerPage, OrganizationMember } from '../../api/index.ts';
import { ErrorNotice, Loading, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { formatMicroUsd, formatTime, formatUsd } from '../../format.ts';
import { KIND_LABELS } from '../BillingPage.tsx';

/** The organization's ledger with the member behind each entry; an owner or admin picks a member. */
export function OrganizationLedger(props: { organization: Organization; tick: number }) {
  const { organization } = props;
  const base = `/api/v1/organizations/${encodeURIComponent(organization.id)}`;
  const wholeBooks = organization.role !== 'member';
  const [member, setMember] = useState('');
  const members = useAsync((signal) => requestData<OrganizationMember[]>('GET', `${base}/members`, { signal }), [base]);
  const page = useAsync((signal) => requestData<OrganizationLedgerPage>('GET', `${base}/ledger?limit=50${member ? `&member=${encodeURIComponent(member)}` : ''}`, { signal }), [base, member, props.tick]);
  const emailOf = (id: string | null) => (id === null ? '—' : (members.data?.find((m) => m.userId === id)?.email ?? 'a former member'));
  return (
    <section className="panel" aria-labelledby="org-ledger">
      <h2 id="org-ledger">{wholeBooks ? 'Ledger' : 'Your part of the ledger'}</h2>
      {wholeBooks ? (
        <div className="toolbar">
          <div className="field field-inline fit-width">
            <label htmlFor="org-ledger-member">Member</label>
            <select id="org-ledger-member" className="fit-width" value={member} onChange={(e) => setMember(e.target.value)}>
              <option value="">Everyone</option>
              {(members.data ?? []).map((m) => (
                <option key={m.userId} value={m.userId}>
                  {m.email}
                </option>
              ))}
            </select>
          </div>
        </div>
      ) : null}
      <ErrorNotice error={page.error} what="The ledger could not be loaded" />
      {!page.data && page.loading ? <Loading /> : null}
      {page.data && page.data.items.length === 0 ? <p className="muted">No entries yet.</p> : null}
      {page.data && page.data.items.length > 0 ? (
        <DataTable label="Ledger of the organization" className="stack-on-phone" testId="org-ledger-table" columns={[{ label: 'When' }, { label: 'What' }, { label: 'Member' }, { label: 'Amount', numeric: true }, { label: 'Balance after', numeric: true }]}>
          {page.data.items.map((e) => (
            <tr key={e.id}>
              <th scope="row">{formatTime(e.createdAt)}</th>
              <td>{KIND_LABELS[e.kind] ?? e.kind}</td>
              <td className="wrap-anywhere">{emailOf(e.memberId)}</td>
              <td className="num" title={formatMicroUsd(e.amountMicroUsd)}>
                {Number(e.amountMicroUsd) > 0 ? '+' : ''}
                {formatUsd(e.amountMicroUsd)}
              </td>
              <td className="num">{formatUsd(e.balanceAfterMicroUsd)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
}
