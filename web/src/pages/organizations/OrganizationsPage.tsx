import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { Organization } from '../../api/index.ts';
import { describedBy, ErrorNotice, Field, Loading, Page, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { formatUsd } from '../../format.ts';
import { Link, navigate } from '../../router.tsx';
import { ROLE_WORDS } from './organization-words.ts';

/**
 * The organizations the person belongs to (the switcher: each opens its own page, where its keys,
 * members and books are), and a form to create one.
 */
export function OrganizationsPage() {
  const organizations = useAsync((signal) => requestData<Organization[]>('GET', '/api/v1/organizations', { signal }), []);
  const [name, setName] = useState('');
  const [nameError, setNameError] = useState<string | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (!name.trim()) {
      setNameError('Give the organization a name, e.g. your company’s.');
      document.getElementById('org-name')?.focus();
      return;
    }
    setNameError(undefined);
    setError(undefined);
    setBusy(true);
    try {
      const created = await requestData<Organization>('POST', '/api/v1/organizations', { body: { name: name.trim() } });
      navigate(`/organizations/${encodeURIComponent(created.id)}`);
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const list = organizations.data ?? [];
  return (
    <Page title="Teams" lead="An organization has its own balance and keys, shared by its members. Your personal account stays as it is.">
      <ErrorNotice error={organizations.error} what="Your organizations could not be loaded" />
      {organizations.loading && !organizations.data ? <Loading /> : null}
      {organizations.data ? (
        <section className="panel" aria-labelledby="orgs-title">
          <h2 id="orgs-title">Your organizations ({list.length})</h2>
          {list.length === 0 ? (
            <p className="muted">You belong to no organization yet. Create one below, or open an invitation someone sent you.</p>
          ) : (
            <DataTable label="Your organizations" className="stack-on-phone" testId="organizations-table" columns={[{ label: 'Organization' }, { label: 'Your role' }, { label: 'Balance', numeric: true }]}>
              {list.map((o) => (
                <tr key={o.id}>
                  <th scope="row">
                    <Link to={`/organizations/${encodeURIComponent(o.id)}`}>{o.name}</Link>
                  </th>
                  <td>{ROLE_WORDS[o.role]}</td>
                  <td className="num">{formatUsd(o.balanceMicroUsd)}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </section>
      ) : null}
      <section className="panel" aria-labelledby="new-org">
        <h2 id="new-org">Create an organization</h2>
        <form className="inline-form" onSubmit={create}>
          <Field id="org-name" label="Name" hint="You become its owner: you add money, invite people and choose their roles." error={nameError} inline>
            <input id="org-name" value={name} maxLength={100} onChange={(e) => setName(e.target.value)} aria-invalid={nameError ? true : undefined} aria-describedby={describedBy('org-name', 'hint', nameError)} />
          </Field>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create organization'}
          </button>
        </form>
        <ErrorNotice error={error} />
      </section>
    </Page>
  );
}
