import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { ApiKey } from '../../api/index.ts';
import { describedBy, ErrorNotice, Field, TableScroll } from '../../components/common.tsx';
import { formatMicroUsd, formatTime } from '../../format.ts';
import { checkDraft, draftOf, type LimitsDraft, type LimitsField } from './key-limits-draft.ts';

type Limits = ApiKey['limits'];

function summary(limits: Limits): string {
  const parts: string[] = [];
  if (limits.spendCapMicroUsd !== null) parts.push(`cap ${formatMicroUsd(limits.spendCapMicroUsd)}${limits.spendCapPeriod === 'month' ? ' a month' : ' in total'}`);
  if (limits.expiresAt) parts.push(`expires ${formatTime(limits.expiresAt)}`);
  if (limits.allowedModels) parts.push(`models: ${limits.allowedModels.join(', ')}`);
  if (limits.requestsPerMinute !== null) parts.push(`${limits.requestsPerMinute}/min`);
  if (limits.concurrentGenerations !== null) parts.push(`${limits.concurrentGenerations} at once`);
  return parts.length === 0 ? 'No limits' : parts.join(' · ');
}

const FIELD_IDS: Record<LimitsField, string> = { capUsd: 'limit-cap', expires: 'limit-expires', models: 'limit-models', rpm: 'limit-rpm', concurrency: 'limit-concurrency' };
const HINTS = {
  capUsd: 'Empty: no cap. Running requests count against it.',
  expires: 'Empty: never. A date and time in UTC, like every time on this dashboard.',
  models: 'Comma-separated; empty: every model.',
  rpm: 'Empty: no limit.',
  concurrency: 'Generations and chat requests running at once. Empty: no limit.',
};

/** Each active key's limits and spend this month, with a form to change them (issue 21, item 15). */
export function KeyLimits(props: { keys: ApiKey[]; onChanged: () => void }) {
  const [editing, setEditing] = useState<{ id: string; draft: LimitsDraft } | undefined>();
  const [problems, setProblems] = useState<Partial<Record<LimitsField, string>>>({});
  const [error, setError] = useState<string | undefined>();
  const [busy, setBusy] = useState(false);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    if (!editing) return;
    setError(undefined);
    // Refused here, in words and beside the field, before the API sees it.
    const checked = checkDraft(editing.draft, Date.now());
    if (!checked.ok) {
      setProblems(checked.problems);
      const first = (['capUsd', 'expires', 'models', 'rpm', 'concurrency'] as const).find((f) => checked.problems[f]);
      if (first) document.getElementById(FIELD_IDS[first])?.focus();
      return;
    }
    setProblems({});
    setBusy(true);
    try {
      await requestData('PATCH', `/api/v1/keys/${encodeURIComponent(editing.id)}`, { body: { limits: checked.body } });
      setEditing(undefined);
      props.onChanged();
    } catch (e) {
      setError(errorMessage(e));
    } finally {
      setBusy(false);
    }
  };

  if (props.keys.length === 0) return null;
  const set = (change: Partial<LimitsDraft>) => setEditing((current) => (current ? { id: current.id, draft: { ...current.draft, ...change } } : current));
  const open = (key: ApiKey) => {
    setProblems({});
    setError(undefined);
    setEditing({ id: key.id, draft: draftOf(key.limits) });
  };
  const editedName = props.keys.find((k) => k.id === editing?.id)?.name;
  return (
    <section className="panel" aria-labelledby="key-limits">
      <h2 id="key-limits">Limits and spend</h2>
      <ErrorNotice error={error} />
      <TableScroll label="Key limits">
        <table className="stack-on-phone">
          <thead>
            <tr>
              <th scope="col">Key</th>
              <th scope="col">Spent this month (UTC)</th>
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
                <td>
                  <span className="stacked-label">Spent this month (UTC): </span>
                  <span data-testid="key-spend-this-month">{formatMicroUsd(key.spendThisMonthMicroUsd ?? 0)}</span>
                </td>
                <td>
                  <span className="stacked-label">Limits: </span>
                  {summary(key.limits)}
                </td>
                <td className="actions">
                  <button type="button" className="button button-small" onClick={() => open(key)} aria-label={`Edit limits of ${key.name}`}>
                    Edit limits
                  </button>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </TableScroll>
      {editing ? (
        <form onSubmit={save} aria-label={`Limits of ${editedName ?? 'the key'}`} noValidate>
          <h3>Limits of {editedName}</h3>
          <Field id="limit-cap" label="Spend cap (USD)" hint={HINTS.capUsd} error={problems.capUsd}>
            <input
              id="limit-cap"
              inputMode="decimal"
              value={editing.draft.capUsd}
              onChange={(e) => set({ capUsd: e.target.value })}
              aria-invalid={problems.capUsd ? true : undefined}
              aria-describedby={describedBy('limit-cap', HINTS.capUsd, problems.capUsd)}
            />
          </Field>
          <Field id="limit-period" label="Cap period">
            <select id="limit-period" value={editing.draft.period} onChange={(e) => set({ period: e.target.value === 'month' ? 'month' : 'total' })}>
              <option value="total">In total</option>
              <option value="month">Per calendar month (UTC)</option>
            </select>
          </Field>
          <Field id="limit-expires" label="Expires (UTC)" hint={HINTS.expires} error={problems.expires}>
            <input
              id="limit-expires"
              type="datetime-local"
              value={editing.draft.expires}
              onChange={(e) => set({ expires: e.target.value })}
              aria-invalid={problems.expires ? true : undefined}
              aria-describedby={describedBy('limit-expires', HINTS.expires, problems.expires)}
            />
          </Field>
          <Field id="limit-models" label="Allowed models" hint={HINTS.models} error={problems.models}>
            <input
              id="limit-models"
              value={editing.draft.models}
              onChange={(e) => set({ models: e.target.value })}
              aria-invalid={problems.models ? true : undefined}
              aria-describedby={describedBy('limit-models', HINTS.models, problems.models)}
            />
          </Field>
          <Field id="limit-rpm" label="Requests per minute" hint={HINTS.rpm} error={problems.rpm}>
            <input
              id="limit-rpm"
              inputMode="numeric"
              value={editing.draft.rpm}
              onChange={(e) => set({ rpm: e.target.value })}
              aria-invalid={problems.rpm ? true : undefined}
              aria-describedby={describedBy('limit-rpm', HINTS.rpm, problems.rpm)}
            />
          </Field>
          <Field id="limit-concurrency" label="Concurrent generations" hint={HINTS.concurrency} error={problems.concurrency}>
            <input
              id="limit-concurrency"
              inputMode="numeric"
              value={editing.draft.concurrency}
              onChange={(e) => set({ concurrency: e.target.value })}
              aria-invalid={problems.concurrency ? true : undefined}
              aria-describedby={describedBy('limit-concurrency', HINTS.concurrency, problems.concurrency)}
            />
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
