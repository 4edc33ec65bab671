import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { Organization, OrganizationInvitation, OrganizationMember, SentInvitation } from '../../api/index.ts';
import { CopyButton, ErrorNotice, Field, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { formatTime } from '../../format.ts';
import { navigate } from '../../router.tsx';
import { MemberCapCell } from './MemberCapCell.tsx';
import { ROLE_HINTS, ROLE_WORDS } from './organization-words.ts';

const ROLES = ['member', 'admin', 'owner'] as const;

/** Members and their roles; an owner invites, changes roles and removes; anyone may leave. */
export function OrganizationMembers(props: { organization: Organization; myUserId: string }) {
  const { organization } = props;
  const base = `/api/v1/organizations/${encodeURIComponent(organization.id)}`;
  const isOwner = organization.role === 'owner';
  const [tick, setTick] = useState(0);
  const members = useAsync((signal) => requestData<OrganizationMember[]>('GET', `${base}/members`, { signal }), [base, tick]);
  const invitations = useAsync((signal) => (isOwner ? requestData<OrganizationInvitation[]>('GET', `${base}/invitations`, { signal }) : Promise.resolve([])), [base, isOwner, tick]);
  const [email, setEmail] = useState('');
  const [role, setRole] = useState<(typeof ROLES)[number]>('member');
  const [sent, setSent] = useState<SentInvitation | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [confirming, setConfirming] = useState<string | undefined>();
  const reload = () => setTick((t) => t + 1);

  const act = async (work: () => Promise<unknown>) => {
    setError(undefined);
    try {
      await work();
      reload();
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  const invite = (event: FormEvent) => {
    event.preventDefault();
    void act(async () => {
      setSent(await requestData<SentInvitation>('POST', `${base}/invitations`, { body: { email: email.trim(), role } }));
      setEmail('');
    });
  };
  const remove = (member: OrganizationMember) =>
    act(async () => {
      await requestData('DELETE', `${base}/members/${encodeURIComponent(member.userId)}`);
      setConfirming(undefined);
      if (member.userId === props.myUserId) navigate('/organizations');
    });

  return (
    <section className="panel" aria-labelledby="org-members">
      <h2 id="org-members">Members</h2>
      <ErrorNotice error={members.error} what="The members could not be loaded" />
      <ErrorNotice error={error} />
      {members.data ? (
        <DataTable label="Members" className="stack-on-phone" testId="members-table" columns={[{ label: 'Person' }, { label: 'Role' }, { label: 'Monthly cap' }, { label: 'Joined' }, { label: 'Actions', hidden: true }]}>
          {members.data.map((m) => {
            const me = m.userId === props.myUserId;
            return (
              <tr key={m.userId}>
                <th scope="row" className="wrap-anywhere">
                  {m.email ?? 'A person without an address'}
                  {me ? <span className="muted small"> (you)</span> : null}
                </th>
                <td>
                  {isOwner ? (
                    <>
                      <label htmlFor={`role-${m.userId}`} className="visually-hidden">
                        Role of {m.email}
                      </label>
                      <select id={`role-${m.userId}`} className="fit-width" value={m.role} onChange={(e) => act(() => requestData('PATCH', `${base}/members/${encodeURIComponent(m.userId)}`, { body: { role: e.target.value } }))}>
                        {ROLES.map((r) => (
                          <option key={r} value={r}>
                            {ROLE_WORDS[r]}
                          </option>
                        ))}
                      </select>
                    </>
                  ) : (
                    ROLE_WORDS[m.role]
                  )}
                </td>
                <td>
                  <MemberCapCell member={m} path={`${base}/members/${encodeURIComponent(m.userId)}`} canChange={organization.role !== 'member'} onChanged={reload} />
                </td>
                <td>{formatTime(m.joinedAt)}</td>
                <td className="actions">
                  {isOwner || me ? (
                    confirming === m.userId ? (
                      <>
                        <button type="button" className="button button-danger button-small" onClick={() => remove(m)}>
                          {me ? 'Confirm leaving' : 'Confirm removal'}
                        </button>
                        <button type="button" className="button button-small" onClick={() => setConfirming(undefined)}>
                          Cancel
                        </button>
                      </>
                    ) : (
                      <button type="button" className="button button-small" onClick={() => setConfirming(m.userId)} aria-label={me ? 'Leave the organization' : `Remove ${m.email}`}>
                        {me ? 'Leave' : 'Remove'}
                      </button>
                    )
                  ) : null}
                </td>
              </tr>
            );
          })}
        </DataTable>
      ) : null}
      {isOwner ? (
        <>
          <h3>Invite someone</h3>
          <form className="inline-form" onSubmit={invite}>
            <Field id="invite-email" label="Email address" hint="They accept with a link we email them, signed in with this address." inline>
              <input id="invite-email" type="email" value={email} maxLength={320} onChange={(e) => setEmail(e.target.value)} aria-describedby="invite-email-hint" />
            </Field>
            <Field id="invite-role" label="Role" hint={ROLE_HINTS[role]} inline>
              <select id="invite-role" value={role} onChange={(e) => setRole(e.target.value as (typeof ROLES)[number])} aria-describedby="invite-role-hint">
                {ROLES.map((r) => (
                  <option key={r} value={r}>
                    {ROLE_WORDS[r]}
                  </option>
                ))}
              </select>
            </Field>
            <button type="submit" className="button button-primary" disabled={!email.trim()}>
              Send invitation
            </button>
          </form>
          {sent ? (
            <div className="notice notice-success" role="status">
              <p>
                Invitation sent to {sent.email}. You can also pass the link on yourself; it works once, for 7 days:
              </p>
              <div className="copy-row">
                <label htmlFor="invite-link" className="visually-hidden">
                  Invitation link
                </label>
                <input id="invite-link" className="mono" readOnly value={sent.url} onFocus={(e) => e.currentTarget.select()} />
                <CopyButton text={sent.url} targetId="invite-link" label="Copy link" />
              </div>
            </div>
          ) : null}
          {invitations.data && invitations.data.length > 0 ? (
            <>
              <h3>Waiting for an answer</h3>
              <ul className="plain-list" data-testid="pending-invitations">
                {invitations.data.map((i) => (
                  <li key={i.id}>
                    <span className="wrap-anywhere">{i.email}</span> as {ROLE_WORDS[i.role]}, until {formatTime(i.expiresAt)}{' '}
                    <button type="button" className="button button-small" onClick={() => act(() => requestData('DELETE', `${base}/invitations/${encodeURIComponent(i.id)}`))} aria-label={`Withdraw the invitation to ${i.email}`}>
                      Withdraw
                    </button>
                  </li>
                ))}
              </ul>
            </>
          ) : null}
        </>
      ) : null}
    </section>
  );
}
