import { type FormEvent, useState } from 'react';
import { request, requestData } from '../api/client.ts';
import type { ApiKey, CatalogModel, Statistics } from '../api/index.ts';
import { ErrorNotice, FieldNotes, Loading, Page, useAsync } from '../components/common.tsx';
import { GettingStarted } from '../components/GettingStarted.tsx';
import { BucketTable, SpendChart } from '../components/SpendChart.tsx';
import { formatCents, formatCount, reversedRangeProblem, todayUtc } from '../format.ts';
import { navigate, useLocation } from '../router.tsx';

const RANGES = [
  { value: 'today', label: 'Today' },
  { value: '7d', label: '7 days' },
  { value: '30d', label: '30 days' },
  { value: 'custom', label: 'Custom' },
] as const;

/** Balance, spend by day (chart and table), by model and by type, for a range of UTC days. */
export function OverviewPage() {
  const { search } = useLocation();
  const range = search.get('range') ?? '30d';
  const from = search.get('from') ?? todayUtc(-13);
  const to = search.get('to') ?? todayUtc();
  const [draft, setDraft] = useState({ from, to });
  const query = range === 'custom' ? `range=custom&from=${from}&to=${to}` : `range=${range}`;
  const stats = useAsync((signal) => request<Statistics>('GET', `/api/v1/stats?${query}`, { signal }), [query]);
  const keys = useAsync((signal) => requestData<ApiKey[]>('GET', '/api/v1/keys', { signal }), []);
  const catalog = useAsync((signal) => request<CatalogModel[]>('GET', '/api/v1/catalog', { signal }), []);
  const keyName = (id: string) => {
    if (id === 'dashboard') return 'Dashboard';
    const key = keys.data?.find((k) => k.id === id);
    return key ? `${key.name || 'Unnamed key'} (${key.prefix}…)${key.revokedAt ? ', revoked' : ''}` : id;
  };

  const choose = (value: string) => {
    navigate(value === 'custom' ? `/?range=custom&from=${draft.from}&to=${draft.to}` : `/?range=${value}`, { replace: true });
  };
  const [rangeProblem, setRangeProblem] = useState<string | undefined>();
  const applyCustom = (event: FormEvent) => {
    event.preventDefault();
    // Typed dates get past min/max: a reversed range is refused here, in words.
    const problem = reversedRangeProblem(draft.from, draft.to);
    setRangeProblem(problem);
    if (problem) return;
    navigate(`/?range=custom&from=${draft.from}&to=${draft.to}`, { replace: true });
  };

  const data = stats.data;
  const hasKey = (keys.data ?? []).some((k) => !k.revokedAt);
  // A new account: no key yet, or nothing ever spent.
  const isNew = keys.data !== undefined && data !== undefined && (!hasKey || data.totals.spentAllTime === 0);
  return (
    <Page title="Overview">
      <div className="toolbar">
        <fieldset className="segmented">
          <legend className="visually-hidden">Period</legend>
          {RANGES.map((r) => (
            <label key={r.value} className={range === r.value ? 'segment segment-active' : 'segment'}>
              <input type="radio" name="range" value={r.value} checked={range === r.value} onChange={() => choose(r.value)} />
              {r.label}
            </label>
          ))}
        </fieldset>
        {range === 'custom' ? (
          <form className="custom-range" onSubmit={applyCustom} noValidate>
            <label htmlFor="range-from">From</label>
            <input id="range-from" type="date" value={draft.from} max={draft.to} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
            <label htmlFor="range-to">to</label>
            <input
              id="range-to"
              type="date"
              value={draft.to}
              min={draft.from}
              onChange={(e) => setDraft({ ...draft, to: e.target.value })}
              aria-invalid={rangeProblem ? true : undefined}
              aria-describedby={rangeProblem ? 'range-to-error' : undefined}
            />
            <button type="submit" className="button">
              Apply
            </button>
            <FieldNotes id="range-to" error={rangeProblem} />
          </form>
        ) : null}
        <p className="muted small">Days are UTC.</p>
      </div>

      {isNew ? <GettingStarted hasKey={hasKey} catalog={catalog.data} /> : null}
      <ErrorNotice error={stats.error} what="Statistics could not be loaded" />
      {!data && stats.loading ? <Loading label="Loading statistics…" /> : null}
      {data ? (
        <div aria-busy={stats.loading}>
          <ul className="cards" aria-label="Totals">
            <li className="card">
              <span className="card-label">Balance</span>
              <span className="card-value" data-testid="balance">
                {formatCents(data.totals.balance)}
              </span>
            </li>
            <li className="card">
              <span className="card-label">Spent in this period</span>
              <span className="card-value" data-testid="spent">
                {formatCents(data.totals.spent)}
              </span>
              <span className="card-note">{formatCents(data.totals.spentAllTime)} all time</span>
            </li>
            <li className="card">
              <span className="card-label">Generations</span>
              <span className="card-value">{formatCount(data.totals.requests)}</span>
              <span className="card-note">
                {formatCount(data.totals.succeeded)} finished · {formatCount(data.totals.failed)} failed (refunded) · {formatCount(data.totals.inProgress)} in progress
              </span>
            </li>
            <li className="card">
              <span className="card-label">Chat requests</span>
              <span className="card-value">{formatCount(data.totals.llmRequests)}</span>
              <span className="card-note">{formatCount(data.totals.llmTokens)} tokens</span>
            </li>
          </ul>

          <section className="panel" aria-labelledby="by-day">
            <h2 id="by-day">Spend by day</h2>
            <SpendChart buckets={data.byDay} title={`Spend by day, ${data.from.slice(0, 10)} to ${data.to.slice(0, 10)} (UTC)`} />
          </section>
          <div className="two-columns">
            <section className="panel" aria-labelledby="by-model">
              <h2 id="by-model">Spend by model</h2>
              <BucketTable buckets={data.byModel} caption="Most expensive first" keyLabel="Model" empty="No requests in this period." />
            </section>
            <section className="panel" aria-labelledby="by-type">
              <h2 id="by-type">Spend by type</h2>
              <BucketTable buckets={data.byType} caption="Images, videos, music and text (chat)" keyLabel="Type" empty="No requests in this period." />
            </section>
          </div>
          {data.byApiKey ? (
            <section className="panel" aria-labelledby="by-key">
              <h2 id="by-key">Spend by API key</h2>
              <BucketTable buckets={data.byApiKey.map((b) => ({ ...b, key: keyName(b.key) }))} caption="Generations, chat requests and storage charges per key, most expensive first" keyLabel="API key" empty="No requests in this period." />
            </section>
          ) : null}
        </div>
      ) : null}
    </Page>
  );
}
