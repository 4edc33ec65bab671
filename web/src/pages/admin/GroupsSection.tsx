import { type FormEvent, useState } from 'react';
import { errorMessage, request } from '../../api/client.ts';
import type { AccountGroup, CustomerGroup, CustomerGroupList } from '../../api/index.ts';
import { ErrorNotice, Field, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';

/** `model=1.1, other=0.9` → `{model: "1.1", other: "0.9"}`; the API validates the ids and numbers. */
function parseModels(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of text.split(',')) {
    const [model, multiplier] = part.split('=').map((s) => s.trim());
    if (model && multiplier) out[model] = multiplier;
  }
  return out;
}

function modelsText(models: Record<string, string>): string {
  return Object.entries(models)
    .map(([model, multiplier]) => `${model}=${multiplier}`)
    .join(', ');
}

/** For administrators: customer groups with a price multiplier (and per-model ones); accounts are put in a group from their user panel. */
export function GroupsSection(props: { onChanged?: () => void }) {
  const [tick, setTick] = useState(0);
  const groups = useAsync((signal) => request<CustomerGroupList>('GET', '/admin/v1/groups', { signal }), [tick]);
  const [form, setForm] = useState({ name: '', multiplier: '', models: '' });
  const [editing, setEditing] = useState<{ name: string; multiplier: string; models: string; version: number } | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();

  const changed = (text: string) => {
    setMessage({ ok: true, text });
    setTick((t) => t + 1);
    props.onChanged?.();
  };

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setMessage(undefined);
    try {
      const group = await request<CustomerGroup>('POST', '/admin/v1/groups', { body: { name: form.name.trim(), multiplier: form.multiplier.trim(), models: parseModels(form.models) } });
      setForm({ name: '', multiplier: '', models: '' });
      changed(`Group ${group.name} created at ${group.multiplier}× the list price.`);
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!editing) return;
    setMessage(undefined);
    try {
      const group = await request<CustomerGroup>('PATCH', `/admin/v1/groups/${encodeURIComponent(editing.name)}`, { body: { multiplier: editing.multiplier.trim(), models: parseModels(editing.models), expectedVersion: editing.version } });
      setEditing(undefined);
      changed(`Group ${group.name} now at ${group.multiplier}×.`);
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  const remove = async (group: CustomerGroup) => {
    setMessage(undefined);
    try {
      await request('DELETE', `/admin/v1/groups/${encodeURIComponent(group.name)}?expectedVersion=${group.version}`);
      changed(`Group ${group.name} deleted.`);
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  return (
    <section className="panel" aria-labelledby="groups-title">
      <h2 id="groups-title">Customer groups</h2>
      <p className="muted">
        A group pays the list prices times its multiplier (1.25 is 25% more, 0.8 is 20% less), or a model's own multiplier where it has one. Accounts in no group pay the list price. Estimates, debits, chat charges and every price list follow the change within seconds;
        requests already under way keep their price.
      </p>
      <form className="inline-form" onSubmit={create}>
        <Field id="group-name" label="Name" inline>
          <input id="group-name" required maxLength={40} pattern="[a-z0-9][a-z0-9_\-]*" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
        </Field>
        <Field id="group-multiplier" label="Multiplier" inline>
          <input id="group-multiplier" required inputMode="decimal" value={form.multiplier} onChange={(e) => setForm({ ...form, multiplier: e.target.value })} />
        </Field>
        <Field id="group-models" label="Per model (optional: model=1.1, …)" inline>
          <input id="group-models" value={form.models} onChange={(e) => setForm({ ...form, models: e.target.value })} />
        </Field>
        <button type="submit" className="button button-primary">
          Create group
        </button>
      </form>
      {message ? (
        <p className={message.ok ? 'notice notice-success' : 'notice notice-error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      ) : null}
      <ErrorNotice error={groups.error} what="Customer groups could not be loaded" />
      {groups.data && groups.data.groups.length > 0 ? (
        <DataTable label="Customer groups" columns={[{ label: 'Group' }, { label: 'Multiplier', numeric: true }, { label: 'Per model' }, { label: 'Accounts', numeric: true }, { label: 'Actions', hidden: true }]}>
          {groups.data.groups.map((g) => (
            <tr key={g.name}>
              <th scope="row">{g.name}</th>
              <td className="num">{g.multiplier}×</td>
              <td className="mono">{modelsText(g.models) || '—'}</td>
              <td className="num">{g.members}</td>
              <td>
                <button type="button" className="button button-small" onClick={() => setEditing({ name: g.name, multiplier: g.multiplier, models: modelsText(g.models), version: g.version })} aria-label={`Edit group ${g.name}`}>
                  Edit
                </button>{' '}
                <button type="button" className="button button-small" disabled={g.members > 0} onClick={() => remove(g)} aria-label={`Delete group ${g.name}`}>
                  Delete
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {editing ? (
        <form className="inline-form" onSubmit={save} aria-label={`Edit group ${editing.name}`}>
          <Field id="edit-group-multiplier" label={`Multiplier of ${editing.name}`} inline>
            <input id="edit-group-multiplier" required inputMode="decimal" value={editing.multiplier} onChange={(e) => setEditing({ ...editing, multiplier: e.target.value })} />
          </Field>
          <Field id="edit-group-models" label="Per model" inline>
            <input id="edit-group-models" value={editing.models} onChange={(e) => setEditing({ ...editing, models: e.target.value })} />
          </Field>
          <button type="submit" className="button button-primary">
            Save group
          </button>{' '}
          <button type="button" className="button" onClick={() => setEditing(undefined)}>
            Cancel
          </button>
        </form>
      ) : null}
    </section>
  );
}

/** The price group of one account, with a choice of the groups there are. */
export function AccountGroupField(props: { accountId: string }) {
  const [tick, setTick] = useState(0);
  const current = useAsync((signal) => request<AccountGroup>('GET', `/admin/v1/users/${encodeURIComponent(props.accountId)}/group`, { signal }), [props.accountId, tick]);
  const groups = useAsync((signal) => request<CustomerGroupList>('GET', '/admin/v1/groups', { signal }), []);
  const [choice, setChoice] = useState<string | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();
  const selected = choice ?? current.data?.group ?? 'default';

  const assign = async (event: FormEvent) => {
    event.preventDefault();
    setMessage(undefined);
    try {
      const now = await request<AccountGroup>('PUT', `/admin/v1/users/${encodeURIComponent(props.accountId)}/group`, { body: { group: selected } });
      setMessage({ ok: true, text: `Price group: ${now.group} (${now.multiplier}×).` });
      setChoice(undefined);
      setTick((t) => t + 1);
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  return (
    <form className="inline-form" onSubmit={assign}>
      <Field id="account-group" label="Price group" inline>
        <select id="account-group" value={selected} onChange={(e) => setChoice(e.target.value)}>
          <option value="default">default (list price)</option>
          {(groups.data?.groups ?? []).map((g) => (
            <option key={g.name} value={g.name}>
              {g.name} ({g.multiplier}×)
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" className="button">
        Set group
      </button>
      {message ? (
        <span className={message.ok ? 'notice notice-success' : 'notice notice-error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </span>
      ) : null}
    </form>
  );
}
