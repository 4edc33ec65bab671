import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { ApiKey } from '../../api/index.ts';
import { ErrorNotice, Field, TableScroll } from '../../components/common.tsx';
import { formatMicroUsd, formatTime } from '../../format.ts';

type Limits = ApiKey['limits'];

/** The form's text fields: empty means "no limit". */
interface Draft {
  capUsd: string;
  period: 'total' | 'month';
  expires: string;
  models: string;
  rpm: string;
  concurrency: string;
}

function draftOf(limits: Limits): Draft {
  return {
    capUsd: limits.spendCapMicroUsd === null ? '' : String(limits.spendCapMicroUsd / 1_000_000),
    period: limits.spendCapPeriod === 'month' ? 'month' : 'total',
    expires: limits.expiresAt ? limits.expiresAt.slice(0, 16) : '',
    models: (limits.allowedModels ?? []).join(', '),
    rpm: limits.requestsPerMinute === null ? '' : String(limits.requestsPerMinute),
    concurrency: limits.concurrentGenerations === null ? '' : String(limits.concurrentGenerations),
  };
}

/** The body of PATCH /api/v1/keys/:id: every limit sent, empty fields as null (removed). */
function limitsOf(draft: Draft) {
  const whole = (text: string) => (text.trim() === '' ? null : Number.parseInt(text, 10));
  const models = draft.models
    .split(',')
    .map((m) => m.trim())
    .filter((m) => m !== '');
  return {
    spendCapMicroUsd: draft.capUsd.trim() === '' ? null : Math.round(Number.parseFloat(draft.capUsd) * 1_000_000),
    spendCapPeriod: draft.capUsd.trim() === '' ? null : draft.period,
    expiresAt: draft.expires === '' ? null : new Date(draft.expires).toISOString(),
    allowedModels: models.length === 0 ? null : models,
    requestsPerMinute: whole(draft.rpm),
    concurrentGenerations: whole(draft.concurrency),
  };
}

function summary(limits: Limits): string {
  const parts: string[] = [];
  if (limits.spendCapMicroUsd !== null) parts.push(`cap ${formatMicroUsd(limits.spendCapMicroUsd)}${limits.spendCapPeriod === 'month' ? ' a month' : ' in total'}`);
  if (limits.expiresAt) parts.push(`expires ${formatTime(limits.expiresAt)}`);
  if (limits.allowedModels) parts.push(`models: ${limits.allowedModels.join(', ')}`);
  if (limits.requestsPerMinute !== null) parts.push(`${limits.requestsPerMinute}/min`);
  if (limits.concurrentGenerations !== null) parts.push(`${limits.concurrentGenerations} at once`);
  return parts.length === 0 ? 'No limits' : parts.join(' · ');
}

/** Each active key's limits and spend this month, with a form to change them (issue 21, item 15). */
export function KeyLimits(props: { keys: ApiKey[]; onChanged: () => void }) {
  const [editing, setEditing] = useState<{ id: string; draft: Draft } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!editing) return;
    setBusy(true);
    setError(undefined);
    try {
      await requestData('PATCH', `/api/v1/keys/${encodeURIComponent(editing.id)}`, { body: { limits: limitsOf(editing.draft) } });
      setEditing(undefined);
      props.onChanged();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  if (props.keys.length === 0) return null;
  const set = (change: Partial<Draft>) => setEditing((current) => (current ? { id: current.id, draft: { ...current.draft, ...change } } : current));
  return (
    <section className="panel" aria-labelledby="key-limits">
      <h2 id="key-limits">Limits and spend</h2>
      <ErrorNotice error={error} />
      <TableScroll label="Key limits">
        <table>
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Spent this month</th>
              <th scope="col">Limits</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {props.keys.map((key) => (
              <tr key={key.id} data-limits-key-id={key.id}>
                <th scope="row">{key.name}</th>
                <td>{formatMicroUsd(key.spendThisMonthMicroUsd ?? 0)}</td>
                <td>{summary(key.limits)}</td>
                <td className="actions">
                  <button type="button" className="button button-small" onClick={() => setEditing({ id: key.id, draft: draftOf(key.limits) })} aria-label={`Edit limits of ${key.name}`}>
                    Edit limits
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {editing ? (
        <form onSubmit={save} aria-label="Key limits">
          <Field id="limit-cap" label="Spend cap (USD)" hint="Empty: no cap. Running requests count against it.">
            <input id="limit-cap" inputMode="decimal" value={editing.draft.capUsd} onChange={(e) => set({ capUsd: e.target.value })} aria-describedby="limit-cap-hint" />
          </Field>
          <Field id="limit-period" label="Cap period">
            <select id="limit-period" value={editing.draft.period} onChange={(e) => set({ period: e.target.value === 'month' ? 'month' : 'total' })}>
              <option value="total">In total</option>
              <option value="month">Per calendar month (UTC)</option>
            </select>
          </Field>
          <Field id="limit-expires" label="Expires" hint="Empty: never.">
            <input id="limit-expires" type="datetime-local" value={editing.draft.expires} onChange={(e) => set({ expires: e.target.value })} aria-describedby="limit-expires-hint" />
          </Field>
          <Field id="limit-models" label="Allowed models" hint="Comma-separated; empty: every model.">
            <input id="limit-models" value={editing.draft.models} onChange={(e) => set({ models: e.target.value })} aria-describedby="limit-models-hint" />
          </Field>
          <Field id="limit-rpm" label="Requests per minute" hint="Empty: no limit.">
            <input id="limit-rpm" inputMode="numeric" value={editing.draft.rpm} onChange={(e) => set({ rpm: e.target.value })} aria-describedby="limit-rpm-hint" />
          </Field>
          <Field id="limit-concurrency" label="Concurrent requests" hint="Empty: no limit.">
            <input id="limit-concurrency" inputMode="numeric" value={editing.draft.concurrency} onChange={(e) => set({ concurrency: e.target.value })} aria-describedby="limit-concurrency-hint" />
          </Field>
          <button type="submit" className="button button-primary" disabled={busy}>
            {busy ? 'Saving…' : 'Save limits'}
          </button>
          <button type="button" className="button" onClick={() => setEditing(undefined)}>
            Cancel
          </button>
        </form>
      ) : null}
    </section>
  );
}
