import { type FormEvent, useRef, useState } from 'react';
import { errorMessage, request } from '../api/client.ts';
import type { ApiKey, Credit, ProviderPage, User, UserLedgerPage, UserPage, UserWithRole } from '../api/index.ts';
import { ErrorNotice, Field, Loading, Page, useAsync } from '../components/common.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { dollarsToCents, formatCents, formatTime, formatUsdFromCents, relativeTime } from '../format.ts';
import { AccountGroupField, GroupsSection } from './admin/GroupsSection.tsx';
import { RedeemCodesSection } from './admin/RedeemCodesSection.tsx';
import { Link } from '../router.tsx';

/** For administrators: users and their credit, ledger and keys; providers and their health. */
export function AdminPage() {
  const [usersTick, setUsersTick] = useState(0);
  const users = useAsync((signal) => request<UserPage>('GET', '/admin/v1/users?limit=500', { signal }), [usersTick]);
  const providers = useAsync((signal) => request<ProviderPage>('GET', '/admin/v1/providers', { signal }), []);
  const [selected, setSelected] = useState<string | undefined>();
  const [newUser, setNewUser] = useState({ email: '', balanceCents: '' });
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const [filter, setFilter] = useState('');

  const createUser = async (event: FormEvent) => {
    event.preventDefault();
    setMessage(undefined);
    try {
      const body: Record<string, unknown> = { email: newUser.email.trim() };
      if (newUser.balanceCents) body.balanceCents = Number(newUser.balanceCents);
      const user = await request<User>('POST', '/admin/v1/users', { body });
      setMessage({ ok: true, text: `User ${user.email ?? user.id} created.` });
      setNewUser({ email: '', balanceCents: '' });
      setUsersTick((t) => t + 1);
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  const list = (users.data?.data ?? []).filter((u) => !filter || (u.email ?? '').includes(filter.toLowerCase()) || u.id.includes(filter));
  const selectedUser = users.data?.data.find((u) => u.id === selected);
  return (
    <Page title="Administration">
      <section className="panel" aria-labelledby="users-title">
        <h2 id="users-title">Users</h2>
        <ErrorNotice error={users.error} what="Users could not be loaded" />
        <div className="toolbar">
          <div className="field field-inline">
            <label htmlFor="user-filter">Find</label>
            <input id="user-filter" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="email or id" />
          </div>
        </div>
        {users.loading && !users.data ? <Loading /> : null}
        {users.data ? (
          <DataTable label="Users" columns={[{ label: 'Email' }, { label: 'Id' }, { label: 'Balance', numeric: true }, { label: 'Role' }, { label: 'Created' }, { label: 'Actions', hidden: true }]}>
            {list.map((u) => (
              <tr key={u.id} aria-selected={u.id === selected}>
                <th scope="row">{u.email ?? '—'}</th>
                <td className="mono">{u.id}</td>
                <td className="num">{formatUsdFromCents(u.balance)}</td>
                <td>{u.isAdmin ? <span className="badge badge-finished">Administrator</span> : 'User'}</td>
                <td>{formatTime(u.createdAt)}</td>
                <td>
                  <button type="button" className="button button-small" onClick={() => setSelected(u.id)} aria-label={`Manage ${u.email ?? u.id}`}>
                    Manage
                  </button>
                </td>
              </tr>
            ))}
          </DataTable>
        ) : null}
        <details>
          <summary>Create a user</summary>
          <form className="inline-form" onSubmit={createUser}>
            <Field id="new-user-email" label="Email" inline>
              <input id="new-user-email" type="email" required value={newUser.email} onChange={(e) => setNewUser({ ...newUser, email: e.target.value })} />
            </Field>
            <Field id="new-user-balance" label="Opening balance (cents)" inline>
              <input id="new-user-balance" type="number" min={0} step={1} value={newUser.balanceCents} onChange={(e) => setNewUser({ ...newUser, balanceCents: e.target.value })} />
            </Field>
            <button type="submit" className="button button-primary">
              Create user
            </button>
          </form>
        </details>
        {message ? (
          <p className={message.ok ? 'notice notice-success' : 'notice notice-error'} role={message.ok ? 'status' : 'alert'}>
            {message.text}
          </p>
        ) : null}
      </section>

      {selectedUser ? <UserPanel key={selectedUser.id} user={selectedUser} onChanged={() => setUsersTick((t) => t + 1)} /> : null}

      <GroupsSection />
      <RedeemCodesSection />

      <section className="panel" aria-labelledby="providers-title">
        <h2 id="providers-title">Providers</h2>
        <p className="muted">
          Health from the calls of the last 15 minutes. <Link to="/admin/upstreams">Manage providers, keys, routes and prices</Link>
        </p>
        <ErrorNotice error={providers.error} what="Providers could not be loaded" />
        {providers.data ? (
          <DataTable label="Providers" columns={[{ label: 'Provider' }, { label: 'Type' }, { label: 'Health' }, { label: 'Calls', numeric: true }, { label: 'Error rate', numeric: true }, { label: 'Last error' }, { label: 'Models' }]}>
            {providers.data.data.map((p) => (
              <tr key={p.name}>
                <th scope="row">{p.name}</th>
                <td>{p.type}</td>
                <td>
                  <span className={`badge badge-health-${p.health.status}`}>{p.health.status}</span>
                </td>
                <td className="num">{p.health.calls}</td>
                <td className="num">{(p.health.errorRate * 100).toFixed(1)} %</td>
                <td>{p.health.lastError ? `${p.health.lastError} (${relativeTime(p.health.lastErrorAt)})` : '—'}</td>
                <td>{p.models.includes('*') ? 'all models without a configured route' : p.models.join(', ') || '—'}</td>
              </tr>
            ))}
          </DataTable>
        ) : null}
      </section>
    </Page>
  );
}

function UserPanel(props: { user: UserWithRole; onChanged: () => void }) {
  const { user } = props;
  const [tick, setTick] = useState(0);
  const ledger = useAsync((signal) => request<UserLedgerPage>('GET', `/admin/v1/users/${encodeURIComponent(user.id)}/ledger?limit=20`, { signal }), [user.id, tick]);
  const keys = useAsync((signal) => request<ApiKey[]>('GET', `/admin/v1/users/${encodeURIComponent(user.id)}/api-keys`, { signal }), [user.id]);
  const [amount, setAmount] = useState('');
  const [note, setNote] = useState('');
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  // One idempotency key per intended credit: a double submit or a retry cannot credit twice.
  const idempotencyKey = useRef(crypto.randomUUID());

  const credit = async (event: FormEvent) => {
    event.preventDefault();
    setMessage(undefined);
    try {
      const entry = await request<Credit>('POST', `/admin/v1/users/${encodeURIComponent(user.id)}/credits`, {
        // Dollars in the form, cents on the wire (the admin API's unit).
        body: { amountCents: dollarsToCents(amount), ...(note.trim() ? { note: note.trim() } : {}) },
        headers: { 'idempotency-key': idempotencyKey.current },
      });
      idempotencyKey.current = crypto.randomUUID();
      setMessage({ ok: true, text: `Credited ${formatCents(entry.amountCents)}. New balance ${formatCents(entry.balanceAfterCents)}.` });
      setAmount('');
      setNote('');
      setTick((t) => t + 1);
      props.onChanged();
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  const setAdmin = async (isAdmin: boolean) => {
    try {
      await request('PUT', `/admin/v1/users/${encodeURIComponent(user.id)}/admin`, { body: { isAdmin } });
      setMessage({ ok: true, text: isAdmin ? 'The user is now an administrator.' : 'The user is no longer an administrator.' });
      props.onChanged();
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  return (
    <section className="panel" aria-labelledby="user-panel-title">
      <h2 id="user-panel-title">{user.email ?? user.id}</h2>
      <p>
        Balance <strong>{formatCents(user.balance)}</strong>
      </p>
      <form className="inline-form" onSubmit={credit}>
        <Field id="credit-amount" label="Credit (USD)" hint="Dollars and cents, e.g. 12.50; negative to correct, never below zero." inline>
          <input id="credit-amount" type="number" step={0.01} required value={amount} onChange={(e) => setAmount(e.target.value)} aria-describedby="credit-amount-hint" />
        </Field>
        <Field id="credit-note" label="Note" inline>
          <input id="credit-note" maxLength={500} value={note} onChange={(e) => setNote(e.target.value)} />
        </Field>
        <button type="submit" className="button button-primary">
          Add credit
        </button>
      </form>
      <AccountGroupField accountId={user.id} />
      <p>
        <button type="button" className="button button-small" onClick={() => setAdmin(true)}>
          Make administrator
        </button>{' '}
        <button type="button" className="button button-small" onClick={() => setAdmin(false)}>
          Remove administrator
        </button>
      </p>
      {message ? (
        <p className={message.ok ? 'notice notice-success' : 'notice notice-error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      ) : null}
      <h3>Recent ledger entries</h3>
      <ErrorNotice error={ledger.error} />
      {ledger.data ? (
        <DataTable label="Ledger" columns={[{ label: 'When' }, { label: 'Kind' }, { label: 'Amount', numeric: true }, { label: 'Balance after', numeric: true }, { label: 'Note' }]}>
          {ledger.data.data.map((e) => (
            <tr key={e.id}>
              <th scope="row">{formatTime(e.createdAt)}</th>
              <td>{e.kind}</td>
              <td className="num">{formatUsdFromCents(e.amountCents)}</td>
              <td className="num">{formatUsdFromCents(e.balanceAfterCents)}</td>
              <td>{e.note ?? ''}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <h3>API keys</h3>
      {keys.data ? (
        <ul className="plain-list">
          {keys.data.length === 0 ? <li className="muted">No keys.</li> : null}
          {keys.data.map((k) => (
            <li key={k.id}>
              <span className="mono">{k.prefix}…</span> {k.name} — {k.revokedAt ? `revoked ${formatTime(k.revokedAt)}` : `last used ${relativeTime(k.lastUsedAt)}`}
            </li>
          ))}
        </ul>
      ) : null}
    </section>
  );
}
