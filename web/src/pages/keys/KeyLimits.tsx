import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import type { ApiKey } from '../../api/index.ts';
import { describedBy, ErrorNotice, Field } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { formatMicroUsd, formatTime } from '../../format.ts';
import { checkDraft, draftOf, type LimitsDraft, type LimitsField } from './key-limits-draft.ts';

type Limits = ApiKey['limits'];

function summary(limits: Limits): string {
  const parts: string[] = [];
  if (limits.spendCapMicroUsd !== null) parts.push(`cap ${formatMicroUsd(limits.spendCapMicroUsd)}${limits.spendCapPeriod === 'month' ? ' a month' : ' in total'}`);
  if (limits.expiresAt) parts.push(`expires ${formatTime(limits.expiresAt)}`);
  if (limits.allowedModels) parts.push(`models: ${limits.allowedModels.join(', ')}`);
  if (limits.requestsPerMinute !== null) parts.push(`${limits.requestsPerMinute}/min`);
  if (limits.tokensPerMinute !== null) parts.push(`${limits.tokensPerMinute.toLocaleString('en')} tokens/min`);
  if (limits.concurrentGenerations !== null) parts.push(`${limits.concurrentGenerations} at once`);
  return parts.length === 0 ? 'No limits' : parts.join(' · ');
}

/** A limit typed into a text field; the expiry is a date picker, the numbers offer a phone's number pad. */
interface LimitInput {
  field: LimitsField;
  id: string;
  label: string;
  hint: string;
  type?: 'datetime-local';
  inputMode?: 'decimal' | 'numeric';
}

/** The form's controls in page order; 'period' is the cap's period, a choice rather than a text field. */
const LIMIT_CONTROLS: ReadonlyArray<LimitInput | 'period'> = [
  { field: 'capUsd', id: 'limit-cap', label: 'Spend cap (USD)', hint: 'Empty: no cap. Running requests, agent runs and storage plans count against it.', inputMode: 'decimal' },
  'period',
  { field: 'expires', id: 'limit-expires', label: 'Expires (UTC)', hint: 'Empty: never. A date and time in UTC, like every time on this dashboard.', type: 'datetime-local' },
  { field: 'models', id: 'limit-models', label: 'Allowed models', hint: 'Comma-separated; empty: every model.' },
  { field: 'rpm', id: 'limit-rpm', label: 'Requests per minute', hint: 'Empty: no limit.', inputMode: 'numeric' },
  { field: 'tpm', id: 'limit-tpm', label: 'Tokens per minute', hint: 'Input and output tokens of text requests; a running request counts its prompt and max_tokens until it ends. Empty: no limit.', inputMode: 'numeric' },
  { field: 'concurrency', id: 'limit-concurrency', label: 'Concurrent generations', hint: 'Generations and text requests running at once, agent runs\' included. Empty: no limit.', inputMode: 'numeric' },
];
const LIMIT_INPUTS = LIMIT_CONTROLS.filter((control): control is LimitInput => control !== 'period');

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
      const first = LIMIT_INPUTS.find((input) => checked.problems[input.field]);
      if (first) document.getElementById(first.id)?.focus();
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
      <DataTable label="Key limits" className="stack-on-phone" columns={[{ label: 'Key' }, { label: 'Spent this month (UTC)' }, { label: 'Limits' }, { label: 'Actions', hidden: true }]}>
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
      </DataTable>
      {editing ? (
        <form onSubmit={save} aria-label={`Limits of ${editedName ?? 'the key'}`} noValidate>
          <h3>Limits of {editedName}</h3>
          {LIMIT_CONTROLS.map((control) =>
            control === 'period' ? (
              <Field key="period" id="limit-period" label="Cap period">
                <select id="limit-period" value={editing.draft.period} onChange={(e) => set({ period: e.target.value === 'month' ? 'month' : 'total' })}>
                  <option value="total">In total</option>
                  <option value="month">Per calendar month (UTC)</option>
                </select>
              </Field>
            ) : (
              <Field key={control.field} id={control.id} label={control.label} hint={control.hint} error={problems[control.field]}>
                <input
                  id={control.id}
                  type={control.type}
                  inputMode={control.inputMode}
                  value={editing.draft[control.field]}
                  onChange={(e) => set({ [control.field]: e.target.value })}
                  aria-invalid={problems[control.field] ? true : undefined}
                  aria-describedby={describedBy(control.id, control.hint, problems[control.field])}
                />
              </Field>
            ),
          )}
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
