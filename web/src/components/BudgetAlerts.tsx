import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../api/client.ts';
import type { BudgetAlertFiring, BudgetAlerts } from '../api/index.ts';
import { dollarsToMicro, formatTime, formatUsd, microToDollars } from '../format.ts';
import { DataTable } from './DataTable.tsx';
import { CopyButton, describedBy, ErrorNotice, Field, Loading, useAsync } from './common.tsx';

const FIRING_COLUMNS = [{ label: 'When' }, { label: 'What' }, { label: 'Seen', numeric: true }, { label: 'Sent' }] as const;
const EMAIL_WORDS: Record<BudgetAlertFiring['email'], string> = { pending: 'email on its way', sent: 'emailed', failed: 'email failed', none: 'no email' };

/** "50, 80, 100" → [50, 80, 100]; undefined when something is not a whole percentage from 1 to 1000. */
function parsePercents(text: string): number[] | undefined {
  const parts = text
    .split(/[,\s]+/)
    .map((p) => p.replace(/%$/, ''))
    .filter(Boolean);
  const values = parts.map(Number);
  return values.every((v) => Number.isInteger(v) && v >= 1 && v <= 1000) ? values : undefined;
}

function firingWords(f: BudgetAlertFiring, memberName: (userId: string) => string): string {
  if (f.kind === 'spend') return `Spend passed ${f.thresholdPercent}% of the monthly budget`;
  if (f.kind === 'balance_below') return `Balance fell below ${formatUsd(f.thresholdMicroUsd)}`;
  return `${f.memberId ? memberName(f.memberId) : 'A member'} passed ${f.thresholdPercent}% of their monthly cap`;
}

/**
 * Budget alerts of an account (a person's own, or an organization's): thresholds typed in dollars
 * and percentages, sent as micro-USD; the latest crossings with what was sent for each. People who
 * may not change them (an organization's admins) see them read-only.
 */
export function BudgetAlertsSection(props: { path: string; canChange: boolean; organization?: boolean; memberName?: (userId: string) => string }) {
  const [tick, setTick] = useState(0);
  const [notice, setNotice] = useState<string | undefined>();
  const alerts = useAsync((signal) => requestData<BudgetAlerts>('GET', props.path, { signal }), [props.path, tick]);
  const memberName = props.memberName ?? (() => 'A member');
  const data = alerts.data;
  return (
    <section className="panel" aria-labelledby="budget-alerts-title" data-testid="budget-alerts">
      <h2 id="budget-alerts-title">Budget alerts</h2>
      <p className="muted">
        An email{props.organization ? ' to the owners' : ''} and, if you give a URL, a signed webhook when spending passes a share of a monthly budget or the balance runs low. Each alert is sent
        once per month.
      </p>
      <ErrorNotice error={alerts.error} what="The budget alerts could not be loaded" />
      {alerts.loading && !data ? <Loading /> : null}
      {notice ? (
        <p className="notice notice-success" role="status">
          {notice}
        </p>
      ) : null}
      {data ? (
        <>
          <p>
            Spent this month: <strong data-testid="budget-spent">{formatUsd(data.spentThisMonthMicroUsd)}</strong>
            {data.monthlyBudgetMicroUsd !== null ? ` of a ${formatUsd(data.monthlyBudgetMicroUsd)} budget` : ''}
          </p>
          {props.canChange ? <BudgetAlertsForm key={data.updatedAt ?? 'new'} path={props.path} alerts={data} organization={props.organization === true} onSaved={(words) => {
                setNotice(words);
                setTick((t) => t + 1);
              }}
            /> : <ReadOnly alerts={data} />}
          {data.webhookSigningSecret ? (
            <p className="small budget-secret">
              Webhooks are signed with the organization’s secret (Standard Webhooks): <code id="org-signing-secret">{data.webhookSigningSecret}</code>{' '}
              <CopyButton text={data.webhookSigningSecret} label="Copy the signing secret" targetId="org-signing-secret" />
            </p>
          ) : null}
          {data.firings.length === 0 ? (
            <p className="muted">No alert has been sent yet.</p>
          ) : (
            <DataTable label="Alerts sent" columns={FIRING_COLUMNS} testId="budget-firings">
              {data.firings.map((f) => (
                <tr key={f.id}>
                  <td>{formatTime(f.firedAt)}</td>
                  <td>{firingWords(f, memberName)}</td>
                  <td className="num">{formatUsd(f.observedMicroUsd)}</td>
                  <td>{f.notified ? `${EMAIL_WORDS[f.email]}${f.webhookDeliveryId ? ', webhook' : ''}` : 'covered by a higher alert'}</td>
                </tr>
              ))}
            </DataTable>
          )}
        </>
      ) : null}
    </section>
  );
}

function ReadOnly(props: { alerts: BudgetAlerts }) {
  const a = props.alerts;
  const any = a.monthlyBudgetMicroUsd !== null || a.balanceBelowMicroUsd !== null || a.memberCapThresholdsPercent.length > 0;
  if (!any) return <p className="muted">No budget alerts are set. An owner sets them.</p>;
  return (
    <dl className="facts">
      {a.monthlyBudgetMicroUsd !== null ? (
        <>
          <dt>Monthly budget</dt>
          <dd>
            {formatUsd(a.monthlyBudgetMicroUsd)}, alerts at {a.spendThresholdsPercent.join(', ')}%
          </dd>
        </>
      ) : null}
      {a.balanceBelowMicroUsd !== null ? (
        <>
          <dt>Balance below</dt>
          <dd>{formatUsd(a.balanceBelowMicroUsd)}</dd>
        </>
      ) : null}
      {a.memberCapThresholdsPercent.length > 0 ? (
        <>
          <dt>Members’ caps</dt>
          <dd>alerts at {a.memberCapThresholdsPercent.join(', ')}%</dd>
        </>
      ) : null}
    </dl>
  );
}

function BudgetAlertsForm(props: { path: string; alerts: BudgetAlerts; organization: boolean; onSaved: (notice: string) => void }) {
  const a = props.alerts;
  const [budget, setBudget] = useState(a.monthlyBudgetMicroUsd === null ? '' : microToDollars(a.monthlyBudgetMicroUsd));
  const [percents, setPercents] = useState(a.spendThresholdsPercent.length > 0 ? a.spendThresholdsPercent.join(', ') : '50, 80, 100');
  const [below, setBelow] = useState(a.balanceBelowMicroUsd === null ? '' : microToDollars(a.balanceBelowMicroUsd));
  const [memberPercents, setMemberPercents] = useState(a.memberCapThresholdsPercent.join(', '));
  const [webhookUrl, setWebhookUrl] = useState(a.webhookUrl ?? '');
  const [email, setEmail] = useState(a.email);
  const [problem, setProblem] = useState<{ field: string; message: string } | undefined>();
  const [error, setError] = useState<string | undefined>();
  const isSet = a.updatedAt !== null;

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    const budgetMicro = budget.trim() === '' ? null : dollarsToMicro(budget);
    if (budgetMicro === undefined || budgetMicro === '0') return setProblem({ field: 'budget', message: 'Dollars above 0 with at most two decimals, e.g. 100.00; empty for none.' });
    const spend = budgetMicro === null ? [] : parsePercents(percents);
    if (spend === undefined || (budgetMicro !== null && spend.length === 0)) return setProblem({ field: 'percents', message: 'Whole percentages from 1 to 1000, separated by commas, e.g. 50, 80, 100.' });
    const belowMicro = below.trim() === '' ? null : dollarsToMicro(below);
    if (belowMicro === undefined || belowMicro === '0') return setProblem({ field: 'below', message: 'Dollars above 0 with at most two decimals, e.g. 5.00; empty for none.' });
    const members = props.organization ? parsePercents(memberPercents) : [];
    if (members === undefined) return setProblem({ field: 'members', message: 'Whole percentages from 1 to 1000, separated by commas; empty for none.' });
    setProblem(undefined);
    try {
      await requestData('PUT', props.path, {
        body: {
          monthlyBudgetMicroUsd: budgetMicro === null ? null : Number(budgetMicro),
          spendThresholdsPercent: spend,
          balanceBelowMicroUsd: belowMicro === null ? null : Number(belowMicro),
          ...(props.organization ? { memberCapThresholdsPercent: members } : {}),
          webhookUrl: webhookUrl.trim() === '' ? null : webhookUrl.trim(),
          email,
        },
      });
      props.onSaved('Saved. Alerts are checked every minute.');
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  const turnOff = async () => {
    setError(undefined);
    try {
      await requestData('DELETE', props.path);
      props.onSaved('Budget alerts are off.');
    } catch (e) {
      setError(errorMessage(e));
    }
  };
  const err = (field: string) => (problem?.field === field ? problem.message : undefined);
  const budgetHint = 'In dollars; empty for no spend alerts.';
  const percentsHint = 'Of the monthly budget, separated by commas.';
  const belowHint = 'In dollars; empty for none.';
  const membersHint = 'Of each member’s monthly cap (set on the Members list); empty for none.';
  const urlHint = 'Optional. Signed like your other webhooks.';
  return (
    <form className="budget-form" onSubmit={save} noValidate>
      <div className="budget-fields">
        <Field id="alert-budget" label="Monthly budget" hint={budgetHint} error={err('budget')}>
          <input id="alert-budget" inputMode="decimal" value={budget} placeholder="No budget" onChange={(e) => setBudget(e.target.value)} aria-describedby={describedBy('alert-budget', budgetHint, err('budget'))} aria-invalid={err('budget') ? true : undefined} />
        </Field>
        <Field id="alert-percents" label="Spend alerts at (%)" hint={percentsHint} error={err('percents')}>
          <input id="alert-percents" value={percents} disabled={budget.trim() === ''} onChange={(e) => setPercents(e.target.value)} aria-describedby={describedBy('alert-percents', percentsHint, err('percents'))} aria-invalid={err('percents') ? true : undefined} />
        </Field>
        <Field id="alert-below" label="Balance below" hint={belowHint} error={err('below')}>
          <input id="alert-below" inputMode="decimal" value={below} placeholder="No alert" onChange={(e) => setBelow(e.target.value)} aria-describedby={describedBy('alert-below', belowHint, err('below'))} aria-invalid={err('below') ? true : undefined} />
        </Field>
        {props.organization ? (
          <Field id="alert-members" label="Member cap alerts at (%)" hint={membersHint} error={err('members')}>
            <input id="alert-members" value={memberPercents} placeholder="e.g. 80, 100" onChange={(e) => setMemberPercents(e.target.value)} aria-describedby={describedBy('alert-members', membersHint, err('members'))} aria-invalid={err('members') ? true : undefined} />
          </Field>
        ) : null}
      </div>
      <Field id="alert-webhook" label="Webhook URL" hint={urlHint}>
        <input id="alert-webhook" type="url" value={webhookUrl} placeholder="https://example.com/hooks/budget" onChange={(e) => setWebhookUrl(e.target.value)} aria-describedby="alert-webhook-hint" />
      </Field>
      <label className="budget-checkbox">
        <input type="checkbox" checked={email} onChange={(e) => setEmail(e.target.checked)} /> Send an email{props.organization ? ' to the owners (and the member, for a cap)' : ''}
      </label>
      <div className="budget-actions">
        <button type="submit" className="button button-primary">
          Save alerts
        </button>
        {isSet ? (
          <button type="button" className="button" onClick={turnOff}>
            Turn off alerts
          </button>
        ) : null}
      </div>
      <ErrorNotice error={error} />
    </form>
  );
}
