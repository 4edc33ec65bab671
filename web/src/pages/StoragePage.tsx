import { useState } from 'react';
import { ApiError, errorMessage, requestData } from '../api/client.ts';
import { LogoUseWarning } from '../components/LogoUseWarning.tsx';
import type { StorageAccount, StorageFile, StorageFilePage, StoragePlan, StoragePlans, StorageQuote } from '../api/index.ts';
import { ErrorNotice, Loading, Page, useAsync } from '../components/common.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { formatBytes, formatMicroUsd, formatTime, formatUsd } from '../format.ts';
import { Link } from '../router.tsx';

const CHANGE_LABELS: Record<string, string> = {
  new: 'New subscription: the first month now',
  upgrade: 'Upgrade: the price difference for the rest of this period, billing date unchanged',
  downgrade: 'Downgrade: nothing now; the smaller plan from the next renewal',
  reactivate: 'Pay to end the grace period: a month from the end of the unpaid period',
  unchanged: 'Your current plan: only the renewal choice changes',
};

/** Paid storage: the plan, usage against quota, renewals, a quote before paying, and the kept files. */
export function StoragePage() {
  const plans = useAsync((signal) => requestData<StoragePlans>('GET', '/api/v1/agent/storage/plans', { signal }), []);
  const account = useAsync((signal) => requestData<StorageAccount>('GET', '/api/v1/agent/storage/subscription', { signal }), []);
  const [filesTick, setFilesTick] = useState(0);
  const reloadAll = () => {
    account.reload();
    setFilesTick((t) => t + 1);
  };

  return (
    <Page title="Storage" lead="Generated files are kept 3 days. A storage plan keeps the files you choose, and your projects' assets, for as long as it is paid.">
      <ErrorNotice error={account.error} what="Your storage could not be loaded" />
      {account.loading && !account.data ? <Loading /> : null}
      {account.data ? <CurrentPlan account={account.data} onChanged={account.reload} /> : null}
      <ErrorNotice error={plans.error} what="The plans could not be loaded" />
      {plans.data && account.data ? <Plans plans={plans.data.plans} account={account.data} onPaid={reloadAll} /> : null}
      {account.data && account.data.charges.length > 0 ? <Charges account={account.data} /> : null}
      <Files key={filesTick} onDeleted={account.reload} />
    </Page>
  );
}

function CurrentPlan(props: { account: StorageAccount; onChanged: () => void }) {
  const sub = props.account.subscription;
  const [error, setError] = useState<string | undefined>();
  const [saving, setSaving] = useState(false);
  if (!sub) {
    return (
      <section className="panel" aria-labelledby="plan-title">
        <h2 id="plan-title">Your plan</h2>
        <p>No storage plan yet. Choose one below to keep files beyond 3 days.</p>
      </section>
    );
  }
  const percent = sub.quotaBytes > 0 ? Math.min(100, (sub.usedBytes / sub.quotaBytes) * 100) : 0;
  const toggle = async () => {
    setError(undefined);
    setSaving(true);
    try {
      await requestData('PATCH', '/api/v1/agent/storage/subscription', { body: { autoRenew: !sub.autoRenew, expectedVersion: sub.version } });
    } catch (e) {
      setError(e instanceof ApiError && e.code === 'version_conflict' ? 'Your subscription changed meanwhile; it was reloaded, please try again.' : errorMessage(e));
    } finally {
      setSaving(false);
      props.onChanged();
    }
  };
  return (
    <section className="panel" aria-labelledby="plan-title">
      <h2 id="plan-title">
        Your plan: {sub.planName} <span className={`badge badge-${sub.status === 'active' ? 'finished' : 'failed'}`}>{sub.status}</span>
      </h2>
      {sub.status === 'grace' ? (
        <p className="notice notice-error" role="alert">
          The period ended unpaid. Until {formatTime(sub.graceEndsAt)} your files can be read and downloaded but no file can be added; then they are deleted. Choose a plan below to
          keep them.
        </p>
      ) : null}
      {sub.status === 'lapsed' ? <p className="notice notice-info">The plan lapsed and its files were deleted. Choose a plan to start again.</p> : null}
      <div className="usage">
        <label htmlFor="storage-usage">
          {formatBytes(sub.usedBytes)} of {formatBytes(sub.quotaBytes)} used
        </label>
        <progress id="storage-usage" max={sub.quotaBytes} value={sub.usedBytes} aria-valuetext={`${percent.toFixed(0)} percent`} />
      </div>
      <dl className="facts">
        <dt>Current period</dt>
        <dd>
          {formatTime(sub.currentPeriod.start)} – {formatTime(sub.currentPeriod.end)}
        </dd>
        <dt>Next renewal</dt>
        <dd data-testid="next-renewal">
          {sub.renewsAt ? `${formatTime(sub.renewsAt)}, ${formatUsd(sub.nextRenewalMicroUsd ?? '0')}` : 'Renewal is off: the files stay until the period ends, then 72 hours of grace.'}
        </dd>
        {sub.nextPlanId ? (
          <>
            <dt>Next plan</dt>
            <dd>{sub.nextPlanId} from the next renewal</dd>
          </>
        ) : null}
      </dl>
      {sub.status === 'active' ? (
        <label className="checkbox">
          <input type="checkbox" checked={sub.autoRenew} disabled={saving} onChange={toggle} /> Renew automatically from my balance
        </label>
      ) : null}
      {error ? (
        <p className="notice notice-error" role="alert">
          {error}
        </p>
      ) : null}
    </section>
  );
}

function Plans(props: { plans: StoragePlan[]; account: StorageAccount; onPaid: () => void }) {
  const [quote, setQuote] = useState<StorageQuote | undefined>();
  const [autoRenew, setAutoRenew] = useState(true);
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const [paid, setPaid] = useState<string | undefined>();
  // One key per quote: a retried payment of the same quote replays instead of charging twice.
  const [keys] = useState(() => new Map<string, string>());
  const current = props.account.subscription;

  const ask = async (planId: string) => {
    setError(undefined);
    setPaid(undefined);
    setBusy(true);
    try {
      setQuote(await requestData<StorageQuote>('POST', '/api/v1/agent/storage/quote', { body: { planId } }));
    } catch (e) {
      setError(e);
      setQuote(undefined);
    } finally {
      setBusy(false);
    }
  };
  const pay = async () => {
    if (!quote) return;
    setError(undefined);
    setBusy(true);
    let key = keys.get(quote.quoteId);
    if (!key) {
      key = crypto.randomUUID();
      keys.set(quote.quoteId, key);
    }
    try {
      await requestData('POST', '/api/v1/agent/storage/subscribe', { body: { quoteId: quote.quoteId, quotaVersion: quote.quotaVersion, autoRenew }, headers: { 'idempotency-key': key } });
      setPaid(Number(quote.amountMicroUsd) > 0 ? `Paid ${formatUsd(quote.amountMicroUsd)}.` : 'Saved.');
      setQuote(undefined);
      props.onPaid();
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };
  const short = error instanceof ApiError && error.code === 'insufficient_balance';
  return (
    <section className="panel" aria-labelledby="plans-title">
      <h2 id="plans-title">Plans</h2>
      <ul className="cards plan-cards">
        {props.plans.map((plan) => (
          <li key={plan.planId} className="card">
            <span className="card-label">{plan.name}</span>
            <span className="card-value">{formatBytes(plan.quotaBytes)}</span>
            <span className="card-note">{formatUsd(plan.priceMicroUsd)} a month</span>
            <button type="button" className="button" disabled={busy} onClick={() => ask(plan.planId)} aria-label={`Choose ${plan.name}`}>
              {current?.planId === plan.planId && current.status === 'active' ? 'Current plan' : 'Choose'}
            </button>
          </li>
        ))}
      </ul>
      {quote ? (
        <section className="quote" aria-labelledby="quote-title">
          <h3 id="quote-title">Before you pay</h3>
          <p>{CHANGE_LABELS[quote.change] ?? quote.change}</p>
          <dl className="facts">
            <dt>Amount</dt>
            <dd data-testid="quote-amount">{formatMicroUsd(quote.amountMicroUsd)}</dd>
            <dt>Balance now</dt>
            <dd>{formatMicroUsd(quote.balanceMicroUsd)}</dd>
            <dt>Balance after</dt>
            <dd>{formatMicroUsd(quote.balanceAfterMicroUsd)}</dd>
            <dt>Pays for</dt>
            <dd>
              {formatTime(quote.period.start)} – {formatTime(quote.period.end)}
            </dd>
          </dl>
          <label className="checkbox">
            <input type="checkbox" checked={autoRenew} onChange={(e) => setAutoRenew(e.target.checked)} /> Renew automatically from my balance
          </label>
          <div className="toolbar">
            <button type="button" className="button button-primary" disabled={busy} onClick={pay}>
              {Number(quote.amountMicroUsd) > 0 ? `Pay ${formatUsd(quote.amountMicroUsd)}` : 'Confirm'}
            </button>
            <button type="button" className="button" onClick={() => setQuote(undefined)}>
              Cancel
            </button>
          </div>
        </section>
      ) : null}
      {paid ? (
        <p className="notice notice-success" role="status">
          {paid}
        </p>
      ) : null}
      {short ? (
        <p className="notice notice-error" role="alert">
          Your balance is too low for this payment. <Link to="/billing">Add funds</Link>, then pay again.
        </p>
      ) : (
        <ErrorNotice error={error} what="That did not work" />
      )}
    </section>
  );
}

function Charges(props: { account: StorageAccount }) {
  return (
    <section className="panel" aria-labelledby="charges-title">
      <h2 id="charges-title">Charges</h2>
      <DataTable label="Charges" className="stack-on-phone" columns={[{ label: 'When' }, { label: 'What' }, { label: 'Plan' }, { label: 'Period' }, { label: 'Amount', numeric: true }]}>
        {props.account.charges.map((charge) => (
          <tr key={charge.chargeId}>
            <td>{formatTime(charge.createdAt)}</td>
            <td>{charge.kind}</td>
            <td>{charge.planId}</td>
            <td>
              {formatTime(charge.period.start)} – {formatTime(charge.period.end)}
            </td>
            <td className="num" title={formatMicroUsd(charge.amountMicroUsd)}>
              {formatUsd(charge.amountMicroUsd)}
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

function Files(props: { onDeleted: () => void }) {
  const [pages, setPages] = useState<StorageFile[][]>([]);
  const [cursor, setCursor] = useState<string | null | undefined>(undefined);
  const [error, setError] = useState<unknown>();
  const first = useAsync(async (signal) => {
    const page = await requestData<StorageFilePage>('GET', '/api/v1/agent/storage/files?limit=20', { signal });
    setPages([page.items]);
    setCursor(page.nextCursor);
    return page;
  }, []);
  const more = async () => {
    if (!cursor) return;
    try {
      const page = await requestData<StorageFilePage>('GET', `/api/v1/agent/storage/files?limit=20&cursor=${encodeURIComponent(cursor)}`);
      setPages((p) => [...p, page.items]);
      setCursor(page.nextCursor);
    } catch (e) {
      setError(e);
    }
  };
  const [confirming, setConfirming] = useState<string | undefined>();
  const remove = async (file: StorageFile) => {
    setConfirming(undefined);
    try {
      await requestData('DELETE', `/api/v1/agent/storage/files/${encodeURIComponent(file.fileId)}`);
      setPages((p) => p.map((items) => items.filter((f) => f.fileId !== file.fileId)));
      props.onDeleted();
    } catch (e) {
      setError(e);
    }
  };
  const files = pages.flat();
  return (
    <section className="panel" aria-labelledby="files-title">
      <h2 id="files-title">Files</h2>
      <ErrorNotice error={first.error ?? error} what="The files could not be loaded" />
      {first.loading && files.length === 0 ? <Loading /> : null}
      {!first.loading && files.length === 0 ? <p className="muted">No files kept yet. Keep a generation from its page, or import assets into a project.</p> : null}
      {files.length > 0 ? (
        <DataTable label="Files" className="stack-on-phone storage-files" columns={[{ label: 'File' }, { label: 'Kind' }, { label: 'Size', numeric: true }, { label: 'Source' }, { label: 'Kept' }, { label: 'Actions', hidden: true }]}>
          {files.map((file) => (
            <tr key={file.fileId}>
              <td>
                {file.mime.startsWith('image/') ? <img src={file.url} alt="" className="thumb" loading="lazy" /> : null}{' '}
                <a href={file.url} download={file.name} className="file-name">
                  {file.name}
                </a>
              </td>
              <td>{file.kind === 'project_asset' ? 'project asset' : 'kept'}</td>
              <td className="num">{formatBytes(file.sizeBytes)}</td>
              <td>
                {file.source.type === 'generation' ? <Link to={`/generations/${encodeURIComponent(file.source.id)}`}>{file.source.id}</Link> : <span className="mono">{file.source.id}</span>}
              </td>
              <td>{formatTime(file.createdAt)}</td>
              <td>
                {confirming === file.fileId ? (
                  <span className="actions">
                    <LogoUseWarning file={file} />
                    <span className="small">Its link stops working; its space is freed at once.</span>{' '}
                    <button type="button" className="button button-small button-danger" onClick={() => remove(file)} aria-label={`Confirm delete ${file.name}`}>
                      Confirm delete
                    </button>
                    <button type="button" className="button button-small" onClick={() => setConfirming(undefined)}>
                      Cancel
                    </button>
                  </span>
                ) : (
                  <button type="button" className="button button-small" onClick={() => setConfirming(file.fileId)} aria-label={`Delete ${file.name}`}>
                    Delete
                  </button>
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      {cursor ? (
        <button type="button" className="button" onClick={more}>
          Load more
        </button>
      ) : null}
    </section>
  );
}
