import { type FormEvent, useState } from 'react';
import { errorMessage, requestData } from '../../api/client.ts';
import { ErrorNotice } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { formatMicroUsd, formatTime, usdToMicroString } from '../../format.ts';
import { Link } from '../../router.tsx';
import { RUN_STATUS_LABELS, type RunView, TERMINAL_RUN_STATUSES } from './agent-types.ts';
import { plainMessage } from '../../api/error-words.ts';

/**
 * One run's details and controls: status, budget (settled + committed within the limit), stop, a new
 * limit and resume, then every step and every priced operation with its estimate and cost.
 */
export function RunPanel(props: { run: RunView; onChanged: () => void }) {
  const { run } = props;
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [limit, setLimit] = useState('');
  const [notice, setNotice] = useState('');
  const terminal = TERMINAL_RUN_STATUSES.has(run.status);
  const resume = resumeState(run);
  const path = `/api/v1/agent/runs/${encodeURIComponent(run.runId)}`;

  const act = async (what: string, call: () => Promise<unknown>) => {
    setBusy(true);
    setError(undefined);
    try {
      await call();
      setNotice(what);
      props.onChanged();
    } catch (e) {
      setError(e);
      setNotice(`${what} failed: ${errorMessage(e)}`);
    } finally {
      setBusy(false);
    }
  };

  const saveLimit = (event: FormEvent) => {
    event.preventDefault();
    const micro = usdToMicroString(limit);
    if (!micro) {
      setError(new Error('Enter the new limit in USD, for example 2.50.'));
      return;
    }
    void act('Limit saved', async () => {
      await requestData('PATCH', `${path}/budget`, { body: { maxCostMicroUsd: micro, expectedVersion: run.budget.version } });
      setLimit('');
    });
  };

  return (
    <section className="panel agent-run" aria-labelledby={`run-${run.runId}`} data-testid="run-panel">
      <h2 id={`run-${run.runId}`}>
        Run {run.runNumber} <span className={`badge badge-run-${run.status}`} data-testid="run-status">{RUN_STATUS_LABELS[run.status] ?? run.status}</span>
      </h2>
      <dl className="facts">
        <dt>Run</dt>
        <dd className="mono">{run.runId}</dd>
        <dt>Orchestrator</dt>
        <dd>{run.orchestratorModelId}</dd>
        {run.waitReason ? (
          <>
            <dt>Waiting for</dt>
            <dd>{run.waitReason.replaceAll('_', ' ')}</dd>
          </>
        ) : null}
        {run.queuePosition ? (
          <>
            <dt>Queue position</dt>
            <dd>{run.queuePosition}</dd>
          </>
        ) : null}
        <dt>Spending limit</dt>
        <dd data-testid="run-limit">{formatMicroUsd(run.budget.limitMicroUsd)}</dd>
        <dt>Spent</dt>
        <dd data-testid="run-spent">
          {formatMicroUsd(run.budget.settledMicroUsd)} settled, {formatMicroUsd(run.budget.committedMicroUsd)} committed
        </dd>
        <dt>Available</dt>
        <dd>{formatMicroUsd(run.budget.remainingMicroUsd)}</dd>
        {run.budget.neededMicroUsd ? (
          <>
            <dt>Next step needs</dt>
            <dd data-testid="run-needed">{formatMicroUsd(run.budget.neededMicroUsd)}</dd>
          </>
        ) : null}
        <dt>Started</dt>
        <dd>{formatTime(run.createdAt)}</dd>
        {run.finishedAt ? (
          <>
            <dt>Finished</dt>
            <dd>{formatTime(run.finishedAt)}</dd>
          </>
        ) : null}
      </dl>
      {run.notices?.length ? (
        <ul className="notice plain-list" data-testid="run-notices" aria-label="Notices">
          {run.notices.map((n) => (
            <li key={n}>{n}</li>
          ))}
        </ul>
      ) : null}
      {run.error ? (
        <div className="notice notice-error" role="alert">
          {plainMessage(run.error.message ?? '') || 'The run failed.'}
        </div>
      ) : null}
      {terminal ? null : (
        <div className="agent-controls">
          <form className="inline-form" onSubmit={saveLimit}>
            <div className="field field-inline">
              <label htmlFor={`limit-${run.runId}`}>New limit (USD)</label>
              <input id={`limit-${run.runId}`} inputMode="decimal" value={limit} onChange={(e) => setLimit(e.target.value)} placeholder="2.00" />
            </div>
            <button type="submit" className="button" disabled={busy || limit.trim() === ''}>
              Save limit
            </button>
          </form>
          {run.status === 'waiting_for_budget' ? (
            <>
              <button
                type="button"
                className="button button-primary"
                disabled={busy || !resume.fits}
                aria-describedby={`resume-${run.runId}`}
                onClick={() => act('Run resumed', () => requestData('POST', `${path}/resume`))}
              >
                Resume
              </button>
              <span className="small" id={`resume-${run.runId}`} data-testid="run-resume-hint">
                {run.waitReason === 'insufficient_balance' ? (
                  <>
                    Your balance does not cover the next step{run.budget.neededMicroUsd ? ` (${formatMicroUsd(run.budget.neededMicroUsd)})` : ''}. <Link to="/billing">Add funds</Link>, then resume.
                  </>
                ) : resume.fits ? (
                  'The next step fits the limit.'
                ) : (
                  `The next step does not fit: save a limit of at least ${formatMicroUsd(resume.limitThatFits)} to resume.`
                )}
              </span>
            </>
          ) : null}
          <button type="button" className="button button-danger" disabled={busy || run.status === 'stopping'} onClick={() => act('Stop requested', () => requestData('POST', `${path}/stop`))}>
            Stop run
          </button>
        </div>
      )}
      <p className="visually-hidden" role="status" aria-live="polite">
        {notice}
      </p>
      <ErrorNotice error={error} what="The run could not be changed" />
      <h3>Steps</h3>
      <DataTable label={`Steps of run ${run.runNumber}`} testId="run-steps" columns={[{ label: '#' }, { label: 'Step' }, { label: 'Status' }, { label: 'Cost', numeric: true }]}>
        {run.steps.length === 0 ? (
          <tr>
            <td colSpan={4} className="muted">
              No steps yet.
            </td>
          </tr>
        ) : null}
        {run.steps.map((step, index) => (
          <tr key={step.stepId}>
            <td>{index + 1}</td>
            <td>
              {step.kind === 'tool' ? <span className="mono">{step.name}</span> : `${step.kind} · ${step.name}`}
              <StepSummary output={step.output} />
            </td>
            <td>{step.status}</td>
            <td className="num">{formatMicroUsd(step.costMicroUsd)}</td>
          </tr>
        ))}
      </DataTable>
      <h3>Costs</h3>
      <DataTable
        label={`Costs of run ${run.runNumber}`}
        testId="run-costs"
        columns={[{ label: 'Operation' }, { label: 'Model' }, { label: 'State' }, { label: 'Estimate', numeric: true }, { label: 'Cost', numeric: true }]}
        footer={
          <tr>
            <th scope="row" colSpan={4}>
              Total settled
            </th>
            <td className="num" data-testid="run-total">
              {formatMicroUsd(run.costs.settledMicroUsd)}
            </td>
          </tr>
        }
      >
        {run.costs.operations.map((op) => (
          <tr key={op.operationId}>
            <td>{op.kind === 'chat' ? 'text call' : 'generation'}</td>
            <td>{op.model}</td>
            <td>{op.state}</td>
            <td className="num">{formatMicroUsd(op.estimateMicroUsd)}</td>
            <td className="num">{formatMicroUsd(op.costMicroUsd)}</td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** A one-line reading of a step's result: a media status and model, an error, a title. */
function StepSummary(props: { output: unknown }) {
  const output = props.output;
  if (typeof output !== 'object' || output === null) return null;
  const fields = output as { status?: unknown; model?: unknown; error?: unknown; title?: unknown };
  const parts: string[] = [];
  if (typeof fields.status === 'string' && typeof fields.model === 'string') parts.push(`${fields.status} on ${fields.model}`);
  if (typeof fields.title === 'string') parts.push(`title “${fields.title}”`);
  if (typeof fields.error === 'string') parts.push(fields.error);
  else if (typeof fields.error === 'object' && fields.error !== null && 'message' in fields.error) parts.push(String(fields.error.message));
  return parts.length ? <div className="small muted">{parts.join(' · ')}</div> : null;
}

/**
 * Whether Resume can help: a run waiting on its limit resumes only once the next step fits it (settled
 * + committed + what the step needs); one waiting on the balance may have been topped up meanwhile.
 */
function resumeState(run: RunView): { fits: boolean; limitThatFits: string } {
  const needed = BigInt(run.budget.neededMicroUsd ?? '0');
  const limitThatFits = BigInt(run.budget.settledMicroUsd) + BigInt(run.budget.committedMicroUsd) + needed;
  const fits = run.waitReason === 'insufficient_balance' || BigInt(run.budget.limitMicroUsd) >= limitThatFits;
  return { fits, limitThatFits: limitThatFits.toString() };
}
