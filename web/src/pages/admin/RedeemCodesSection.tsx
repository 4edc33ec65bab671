import { type FormEvent, useState } from 'react';
import { errorMessage, request } from '../../api/client.ts';
import type { RedeemCode, RedeemCodePage } from '../../api/index.ts';
import { CopyButton, ErrorNotice, Field, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { dollarsToCents, formatCents, formatTime, formatUsdFromCents } from '../../format.ts';

const STATUS_TEXT: Record<RedeemCode['status'], string> = { active: 'Active', used_up: 'Used up', expired: 'Expired', disabled: 'Withdrawn' };

/** For administrators: create redeem codes (the code is shown once), list them, withdraw one. */
export function RedeemCodesSection() {
  const [tick, setTick] = useState(0);
  const codes = useAsync((signal) => request<RedeemCodePage>('GET', '/admin/v1/redeem-codes?limit=200', { signal }), [tick]);
  const [form, setForm] = useState({ dollars: '', maxRedemptions: '1', expires: '', code: '', note: '' });
  const [created, setCreated] = useState<RedeemCode | undefined>();
  const [message, setMessage] = useState<{ ok: boolean; text: string } | undefined>();

  const create = async (event: FormEvent) => {
    event.preventDefault();
    setMessage(undefined);
    setCreated(undefined);
    try {
      const body: Record<string, unknown> = { amountCents: dollarsToCents(form.dollars), maxRedemptions: Number(form.maxRedemptions) };
      if (form.expires) body.expiresAt = new Date(`${form.expires}T23:59:59Z`).toISOString();
      if (form.code.trim()) body.code = form.code.trim();
      if (form.note.trim()) body.note = form.note.trim();
      const code = await request<RedeemCode>('POST', '/admin/v1/redeem-codes', { body });
      setCreated(code);
      setForm({ dollars: '', maxRedemptions: '1', expires: '', code: '', note: '' });
      setTick((t) => t + 1);
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  const disable = async (code: RedeemCode) => {
    try {
      await request('POST', `/admin/v1/redeem-codes/${encodeURIComponent(code.id)}/disable`);
      setMessage({ ok: true, text: `Code …${code.codeHint} withdrawn.` });
      setTick((t) => t + 1);
    } catch (e) {
      setMessage({ ok: false, text: errorMessage(e, 'admin') });
    }
  };

  return (
    <section className="panel" aria-labelledby="redeem-codes-title">
      <h2 id="redeem-codes-title">Redeem codes</h2>
      <p className="muted">Each user can redeem a code once. Only a hash is stored: copy a new code now, it is not shown again.</p>
      <form className="inline-form" onSubmit={create}>
        <Field id="code-amount" label="Amount (USD)" inline>
          <input id="code-amount" type="number" min={0.01} step="0.01" required value={form.dollars} onChange={(e) => setForm({ ...form, dollars: e.target.value })} />
        </Field>
        <Field id="code-max" label="How many users" inline>
          <input id="code-max" type="number" min={1} step={1} required value={form.maxRedemptions} onChange={(e) => setForm({ ...form, maxRedemptions: e.target.value })} />
        </Field>
        <Field id="code-expires" label="Expires (UTC day, optional)" inline>
          <input id="code-expires" type="date" value={form.expires} onChange={(e) => setForm({ ...form, expires: e.target.value })} />
        </Field>
        <Field id="code-text" label="Own code (optional)" inline>
          <input id="code-text" maxLength={64} pattern="[A-Za-z0-9_\-]{6,64}" value={form.code} onChange={(e) => setForm({ ...form, code: e.target.value })} />
        </Field>
        <Field id="code-note" label="Note" inline>
          <input id="code-note" maxLength={500} value={form.note} onChange={(e) => setForm({ ...form, note: e.target.value })} />
        </Field>
        <button type="submit" className="button button-primary">
          Create code
        </button>
      </form>
      {created?.code ? (
        <div className="notice notice-success" role="status">
          <p>
            New code for {formatCents(created.amountCents)}: <strong className="mono" data-testid="created-code">{created.code}</strong>
          </p>
          <CopyButton text={created.code} label="Copy code" />
        </div>
      ) : null}
      {message ? (
        <p className={message.ok ? 'notice notice-success' : 'notice notice-error'} role={message.ok ? 'status' : 'alert'}>
          {message.text}
        </p>
      ) : null}
      <ErrorNotice error={codes.error} what="Redeem codes could not be loaded" />
      {codes.data && codes.data.data.length > 0 ? (
        <DataTable label="Redeem codes" columns={[{ label: 'Code' }, { label: 'Amount', numeric: true }, { label: 'Redeemed', numeric: true }, { label: 'Expires' }, { label: 'Status' }, { label: 'Note' }, { label: 'Actions', hidden: true }]}>
          {codes.data.data.map((c) => (
            <tr key={c.id}>
              <th scope="row" className="mono">
                …{c.codeHint}
              </th>
              <td className="num">{formatUsdFromCents(c.amountCents)}</td>
              <td className="num">
                {c.redemptions} / {c.maxRedemptions}
              </td>
              <td>{c.expiresAt ? formatTime(c.expiresAt) : 'Never'}</td>
              <td>{STATUS_TEXT[c.status]}</td>
              <td>{c.note ?? ''}</td>
              <td>
                {c.status === 'active' ? (
                  <button type="button" className="button button-small" onClick={() => disable(c)} aria-label={`Withdraw code …${c.codeHint}`}>
                    Withdraw
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
}
