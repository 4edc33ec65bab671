import { type FormEvent, useEffect, useRef, useState } from 'react';
import { errorMessage, requestData } from '../api/client.ts';
import type { ApiKey, NewApiKey } from '../api/index.ts';
import { CopyButton, describedBy, ErrorNotice, Field, Loading, Page, useAsync } from '../components/common.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { formatTime, relativeTime } from '../format.ts';
import { KeyLimits } from './keys/KeyLimits.tsx';

/**
 * Create (the key is shown once, optionally as a management key), name, revoke, and see when each
 * key was last used. Only this page's session (or a management key) may manage keys (issue 29).
 */
export function KeysPage() {
  const keys = useAsync((signal) => requestData<ApiKey[]>('GET', '/api/v1/keys', { signal }), []);
  const [name, setName] = useState('');
  const [manageKeys, setManageKeys] = useState(false);
  const [nameError, setNameError] = useState<string | undefined>();
  const [created, setCreated] = useState<(ApiKey & { key: string }) | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState<string | undefined>();
  const [renaming, setRenaming] = useState<{ id: string; name: string } | undefined>();
  const [announcement, setAnnouncement] = useState('');
  const createdRef = useRef<HTMLElement>(null);

  useEffect(() => {
    if (created) createdRef.current?.focus();
  }, [created]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    // A key without a name would be called "default": every key says what it is for instead.
    if (!name.trim()) {
      setNameError('Give the key a name, e.g. “production server”.');
      document.getElementById('key-name')?.focus();
      return;
    }
    setNameError(undefined);
    setBusy(true);
    try {
      const key = await requestData<NewApiKey>('POST', '/api/v1/keys', { body: { name: name.trim(), manageKeys } });
      setCreated(key);
      setName('');
      setManageKeys(false);
      keys.reload();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  const revoke = async (key: ApiKey) => {
    setError(undefined);
    try {
      await requestData('DELETE', `/api/v1/keys/${encodeURIComponent(key.id)}`);
      setConfirming(undefined);
      setAnnouncement(`Key ${key.name} (${key.prefix}…) revoked.`);
      if (created?.id === key.id) setCreated(undefined);
      keys.reload();
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  // Migration 030 left every existing key without management: a script that manages keys gets it back here.
  const setManagement = async (key: ApiKey, manageKeys: boolean) => {
    setError(undefined);
    try {
      await requestData('PATCH', `/api/v1/keys/${encodeURIComponent(key.id)}`, { body: { manageKeys } });
      setAnnouncement(manageKeys ? `Key ${key.name} may now manage keys.` : `Key ${key.name} may no longer manage keys.`);
      keys.reload();
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  const rename = async (event: FormEvent) => {
    event.preventDefault();
    if (!renaming) return;
    setError(undefined);
    try {
      await requestData('PATCH', `/api/v1/keys/${encodeURIComponent(renaming.id)}`, { body: { name: renaming.name } });
      setAnnouncement(`Key renamed to ${renaming.name}.`);
      setRenaming(undefined);
      keys.reload();
    } catch (e) {
      setError(errorMessage(e));
    }
  };

  const list = keys.data ?? [];
  const active = list.filter((k) => !k.revokedAt);
  const revoked = list.filter((k) => k.revokedAt);
  return (
    <Page title="API keys" lead="Keys let programs use this account: send one as Authorization: Bearer <key>. A key is shown once, when it is created.">
      <section className="panel" aria-labelledby="new-key">
        <h2 id="new-key">Create a key</h2>
        <form className="inline-form" onSubmit={create}>
          <Field id="key-name" label="Name" hint="What the key is for, e.g. “production server”." error={nameError} inline>
            <input
              id="key-name"
              value={name}
              maxLength={100}
              onChange={(e) => setName(e.target.value)}
              aria-invalid={nameError ? true : undefined}
              aria-describedby={describedBy('key-name', 'hint', nameError)}
            />
          </Field>
          <div className="field-checkbox key-manage-option">
            <input id="key-manage" type="checkbox" checked={manageKeys} onChange={(e) => setManageKeys(e.target.checked)} aria-describedby="key-manage-hint" />
            <label htmlFor="key-manage">Management key</label>
            <span id="key-manage-hint" className="hint">
              It may create, change and revoke keys no wider than its own limits, e.g. for a script that hands out keys. Other keys cannot manage keys.
            </span>
          </div>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Creating…' : 'Create key'}
          </button>
        </form>
        {created ? (
          <section className="notice notice-success created-key" ref={createdRef} tabIndex={-1} aria-labelledby="created-key-title">
            <h3 id="created-key-title">Your new key “{created.name}”</h3>
            <p>Copy it now: it will not be shown again.</p>
            {created.manageKeys ? <p>It is a management key: it can make keys for this account, so keep it where only you can reach it.</p> : null}
            <div className="copy-row">
              <label htmlFor="created-key" className="visually-hidden">
                New API key
              </label>
              <input id="created-key" className="mono" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} data-testid="created-key" />
              <CopyButton text={created.key} targetId="created-key" label="Copy key" />
            </div>
            <button type="button" className="button button-small" onClick={() => setCreated(undefined)}>
              I have saved it
            </button>
          </section>
        ) : null}
      </section>

      <ErrorNotice error={error} />
      <ErrorNotice error={keys.error} what="Keys could not be loaded" />
      <p className="visually-hidden" role="status" aria-live="polite">
        {announcement}
      </p>
      {keys.loading && !keys.data ? <Loading /> : null}
      {keys.data ? (
        <section className="panel" aria-labelledby="active-keys">
          <h2 id="active-keys">Active keys ({active.length})</h2>
          {active.length === 0 ? (
            <p className="muted">No active keys. Create one above.</p>
          ) : (
            <DataTable label="Active keys" className="keys-table stack-on-phone" columns={[{ label: 'Name' }, { label: 'Key' }, { label: 'Created' }, { label: 'Last used' }, { label: 'Actions', hidden: true }]}>
              {active.map((key) => (
                <tr key={key.id} data-key-id={key.id}>
                  <th scope="row" className="key-name">
                    {renaming?.id === key.id ? (
                      <form className="inline-form" onSubmit={rename}>
                        <label htmlFor={`rename-${key.id}`} className="visually-hidden">
                          New name for {key.name}
                        </label>
                        <input id={`rename-${key.id}`} value={renaming.name} maxLength={100} onChange={(e) => setRenaming({ id: key.id, name: e.target.value })} />
                        <button type="submit" className="button button-small">
                          Save
                        </button>
                        <button type="button" className="button button-small" onClick={() => setRenaming(undefined)}>
                          Cancel
                        </button>
                      </form>
                    ) : (
                      <>
                        {key.name}
                        {key.manageKeys ? (
                          <>
                            {' '}
                            <span className="badge" title="May create, change and revoke keys no wider than its own limits">
                              Management key
                            </span>
                          </>
                        ) : null}
                      </>
                    )}
                  </th>
                  <td className="mono">{key.prefix}…</td>
                  <td>{formatTime(key.createdAt)}</td>
                  <td title={key.lastUsedAt ? formatTime(key.lastUsedAt) : undefined}>{relativeTime(key.lastUsedAt)}</td>
                  <td className="actions">
                    {confirming === key.id ? (
                      <>
                        <button type="button" className="button button-danger button-small" onClick={() => revoke(key)}>
                          Confirm revoke
                        </button>
                        <button type="button" className="button button-small" onClick={() => setConfirming(undefined)}>
                          Cancel
                        </button>
                      </>
                    ) : (
                      <>
                        <button type="button" className="button button-small" onClick={() => setRenaming({ id: key.id, name: key.name })} aria-label={`Rename ${key.name}`}>
                          Rename
                        </button>
                        <button
                          type="button"
                          className="button button-small"
                          onClick={() => setManagement(key, !key.manageKeys)}
                          aria-label={key.manageKeys ? `Withdraw key management from ${key.name}` : `Grant key management to ${key.name}`}
                        >
                          {key.manageKeys ? 'Withdraw management' : 'Grant management'}
                        </button>
                        <button type="button" className="button button-small" onClick={() => setConfirming(key.id)} aria-label={`Revoke ${key.name} (${key.prefix}…)`}>
                          Revoke
                        </button>
                      </>
                    )}
                  </td>
                </tr>
              ))}
            </DataTable>
          )}
          {revoked.length > 0 ? (
            <details>
              <summary>Revoked keys ({revoked.length})</summary>
              <ul className="plain-list">
                {revoked.map((key) => (
                  <li key={key.id}>
                    <span className="mono">{key.prefix}…</span> {key.name}: revoked {formatTime(key.revokedAt)}
                  </li>
                ))}
              </ul>
            </details>
          ) : null}
        </section>
      ) : null}
      {keys.data ? <KeyLimits keys={active} onChanged={keys.reload} /> : null}
    </Page>
  );
}
