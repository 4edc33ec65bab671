import { type FormEvent, useState } from 'react';
import { errorMessage, request } from '../../api/client.ts';
import type { ProviderInfo, ProviderPage, ProviderTest } from '../../api/index.ts';
import { ErrorNotice, Field, Loading, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { keyStateWords, STATE_TEXT, stateBadgeClass } from './upstream-words.ts';

type Notice = { ok: boolean; text: string } | undefined;

/** Providers and their key pools, changed live: add a provider or a key, switch keys on and off, test. */
export function ProvidersSection() {
  const [tick, setTick] = useState(0);
  const providers = useAsync((signal) => request<ProviderPage>('GET', '/admin/v1/providers', { signal }), [tick]);
  const [notice, setNotice] = useState<Notice>();
  const [form, setForm] = useState({ name: '', type: 'openai', baseUrl: '', secret: '' });
  const refresh = () => setTick((t) => t + 1);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(undefined);
    try {
      const body: Record<string, unknown> = { type: form.type.trim(), expectedVersion: 0 };
      if (form.baseUrl.trim()) body.baseUrl = form.baseUrl.trim();
      if (form.secret) body.keys = [{ secret: form.secret }];
      await request('PUT', `/admin/v1/providers/${encodeURIComponent(form.name.trim())}`, { body });
      setNotice({ ok: true, text: `Provider ${form.name.trim()} added; every process uses it within seconds.` });
      setForm({ name: '', type: form.type, baseUrl: '', secret: '' });
      refresh();
    } catch (e) {
      setNotice({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  return (
    <section className="panel" aria-labelledby="upstream-providers-title">
      <h2 id="upstream-providers-title">Providers and keys</h2>
      <p className="muted">Keys are write-only: only their first and last characters are shown. To rotate a key, add the new one, then switch the old one off.</p>
      {notice ? (
        <p className={notice.ok ? 'notice notice-success' : 'notice notice-error'} role={notice.ok ? 'status' : 'alert'}>
          {notice.text}
        </p>
      ) : null}
      <ErrorNotice error={providers.error} what="Providers could not be loaded" />
      {providers.loading && !providers.data ? <Loading /> : null}
      {providers.data?.data.map((p) => (
        <ProviderCard key={p.name} provider={p} onChanged={refresh} onNotice={setNotice} />
      ))}
      <details>
        <summary>Add a provider</summary>
        <form className="inline-form" onSubmit={create}>
          <Field id="new-provider-name" label="Name" inline>
            <input id="new-provider-name" required pattern="[a-z0-9][a-z0-9_\-]{0,62}" value={form.name} onChange={(e) => setForm({ ...form, name: e.target.value })} />
          </Field>
          <Field id="new-provider-type" label="API style" inline>
            <input id="new-provider-type" required list="provider-types" value={form.type} onChange={(e) => setForm({ ...form, type: e.target.value })} />
          </Field>
          <datalist id="provider-types">
            {['openai', 'anthropic', 'kie', 'fal', 'replicate', 'google', 'switchboard', 'local'].map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
          <Field id="new-provider-url" label="Base URL" inline>
            <input id="new-provider-url" type="url" value={form.baseUrl} onChange={(e) => setForm({ ...form, baseUrl: e.target.value })} placeholder="https://api.openai.com/v1" />
          </Field>
          <Field id="new-provider-secret" label="First key" inline>
            <input id="new-provider-secret" type="password" autoComplete="off" value={form.secret} onChange={(e) => setForm({ ...form, secret: e.target.value })} />
          </Field>
          <button type="submit" className="button button-primary">
            Add provider
          </button>
        </form>
      </details>
    </section>
  );
}

function ProviderCard(props: { provider: ProviderInfo; onChanged: () => void; onNotice: (n: Notice) => void }) {
  const { provider, onChanged, onNotice } = props;
  const [secret, setSecret] = useState('');
  const [label, setLabel] = useState('');
  const [tests, setTests] = useState<ProviderTest | undefined>();
  const [testing, setTesting] = useState(false);
  const base = `/admin/v1/providers/${encodeURIComponent(provider.name)}`;
  const act = async (what: () => Promise<unknown>, done: string) => {
    onNotice(undefined);
    try {
      await what();
      onNotice({ ok: true, text: done });
      onChanged();
    } catch (e) {
      onNotice({ ok: false, text: errorMessage(e, 'admin') });
      onChanged();
    }
  };
  const addKey = (event: FormEvent) => {
    event.preventDefault();
    const body: Record<string, unknown> = { secret };
    if (label.trim()) body.label = label.trim();
    void act(() => request('POST', `${base}/keys`, { body }), `Key added to ${provider.name}.`).then(() => {
      setSecret('');
      setLabel('');
    });
  };
  const test = async () => {
    setTesting(true);
    try {
      setTests(await request<ProviderTest>('POST', `${base}/test`));
      onChanged();
    } catch (e) {
      onNotice({ ok: false, text: errorMessage(e, 'admin') });
    } finally {
      setTesting(false);
    }
  };
  const keys = provider.keys ?? [];
  return (
    <article className="panel panel-inner" aria-labelledby={`provider-${provider.name}`}>
      <h3 id={`provider-${provider.name}`}>
        {provider.name} <span className="muted">({provider.type}{provider.source === 'file' ? ', from the config file' : ''})</span>
      </h3>
      <p className="muted">
        {provider.baseUrl ?? 'No base URL'} · {provider.enabled ? 'On' : 'Switched off: every route skips it'}
      </p>
      <div className="toolbar">
        <button type="button" className="button button-small" onClick={() => void act(() => request('PATCH', base, { body: { enabled: !provider.enabled } }), `${provider.name} switched ${provider.enabled ? 'off' : 'on'}.`)}>
          {provider.enabled ? 'Switch provider off' : 'Switch provider on'}
        </button>
        <button type="button" className="button button-small" onClick={() => void test()} disabled={testing} aria-label={`Test the keys of ${provider.name}`}>
          {testing ? 'Testing…' : 'Test keys'}
        </button>
      </div>
      {keys.length > 0 ? (
        <DataTable label={`Keys of ${provider.name}`} columns={[{ label: 'Key' }, { label: 'Label' }, { label: 'Weight', numeric: true }, { label: 'State' }, { label: 'Calls, last hour', numeric: true }, { label: 'Actions', hidden: true }]}>
          {keys.map((k) => (
            <tr key={k.id}>
              <th scope="row" className="mono">
                {k.hint}
              </th>
              <td>{k.label ?? '—'}</td>
              <td className="num">{k.weight}</td>
              <td>
                <span className={stateBadgeClass(k.enabled ? k.state : 'disabled')}>{k.enabled ? STATE_TEXT[k.state] : 'Switched off'}</span> <span className="muted">{keyStateWords(k)}</span>
              </td>
              <td className="num">{k.callsLastHour}</td>
              <td>
                <button
                  type="button"
                  className="button button-small"
                  aria-label={`${k.enabled ? 'Switch off' : 'Switch on'} key ${k.hint} of ${provider.name}`}
                  onClick={() => void act(() => request('PATCH', `${base}/keys/${encodeURIComponent(k.id)}`, { body: { enabled: !k.enabled } }), `Key ${k.hint} switched ${k.enabled ? 'off' : 'on'}.`)}
                >
                  {k.enabled ? 'Switch off' : 'Switch on'}
                </button>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : (
        <p className="muted">No key: this provider takes none, or none was added yet.</p>
      )}
      {tests ? (
        <ul className="plain-list" aria-label={`Test results of ${provider.name}`}>
          {tests.data.map((t) => (
            <li key={t.keyId}>
              <span className="mono">{t.hint || t.keyId}</span>: {t.ok ? `works (${t.call}, ${t.latencyMs} ms)` : `failed: ${t.error ?? 'no answer'}`}
            </li>
          ))}
        </ul>
      ) : null}
      <form className="inline-form" onSubmit={addKey} aria-label={`Add a key to ${provider.name}`}>
        <Field id={`add-key-${provider.name}`} label="New key" inline>
          <input id={`add-key-${provider.name}`} type="password" autoComplete="off" required value={secret} onChange={(e) => setSecret(e.target.value)} />
        </Field>
        <Field id={`add-key-label-${provider.name}`} label="Label (optional)" inline>
          <input id={`add-key-label-${provider.name}`} maxLength={100} value={label} onChange={(e) => setLabel(e.target.value)} />
        </Field>
        <button type="submit" className="button">
          Add key
        </button>
      </form>
    </article>
  );
}
