import { useState } from 'react';
import { request } from '../../api/client.ts';
import type { RouteReport, RouteReportRow } from '../../api/index.ts';
import { ErrorNotice, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { formatCount, formatDay, formatMicroUsd } from '../../format.ts';

const RANGES = [
  { value: 'today', label: 'Today' },
  { value: '7d', label: 'Last 7 days' },
  { value: '30d', label: 'Last 30 days' },
] as const;

const percent = (rate: number): string => `${(rate * 100).toLocaleString('en-US', { maximumFractionDigits: 1 })} %`;

/** What each route earned and cost per day: revenue, the upstream's cost, the margin, failovers and errors. */
export function MarginsSection() {
  const [range, setRange] = useState<(typeof RANGES)[number]['value']>('7d');
  const [tick, setTick] = useState(0);
  const report = useAsync((signal) => request<RouteReport>('GET', `/admin/v1/reports/routes?range=${range}`, { signal }), [range, tick]);
  const totals = report.data?.totals;
  return (
    <section className="panel" aria-labelledby="margins-title">
      <h2 id="margins-title">Margins</h2>
      <p className="muted">
        Per day (UTC), model and provider: what clients paid, what the provider charged us at the cost set on the route, and what is left. A route without a cost shows its margin as
        unknown.
      </p>
      <div className="toolbar">
        <label>
          Period{' '}
          <select value={range} onChange={(e) => setRange(e.target.value as typeof range)}>
            {RANGES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </label>
        <button type="button" className="button" onClick={() => setTick((t) => t + 1)}>
          Refresh
        </button>
      </div>
      <ErrorNotice error={report.error} what="The margins could not be loaded" />
      {totals ? (
        <p data-testid="margins-totals">
          {formatCount(totals.requests)} requests: revenue {formatMicroUsd(totals.revenueMicroUsd)}, upstream cost {formatMicroUsd(totals.upstreamCostMicroUsd)}, margin{' '}
          {totals.marginMicroUsd === null ? `unknown (${formatCount(totals.uncosted)} requests on routes without a cost)` : formatMicroUsd(totals.marginMicroUsd)}.
        </p>
      ) : null}
      {report.data && report.data.data.length === 0 ? <p>No requests in this period.</p> : null}
      {report.data && report.data.data.length > 0 ? (
        <DataTable
          label="Revenue, upstream cost and margin per day, model and provider"
          testId="margins-table"
          columns={[
            { label: 'Day' },
            { label: 'Model' },
            { label: 'Provider' },
            { label: 'Requests', numeric: true },
            { label: 'Revenue', numeric: true },
            { label: 'Upstream cost', numeric: true },
            { label: 'Margin', numeric: true },
            { label: 'Failed over', numeric: true },
            { label: 'Errors', numeric: true },
          ]}
        >
          {report.data.data.map((row) => (
            <tr key={`${row.date} ${row.model} ${row.provider ?? ''} ${row.upstreamModel ?? ''} ${row.kind}`}>
              <th scope="row">{formatDay(row.date)}</th>
              <td>{row.model}</td>
              <td>
                {providerWords(row)}
                {row.atLoss ? (
                  <>
                    {' '}
                    <span className="badge badge-health-down" title="Its cost on the route is above the price: no failover moves requests onto it unless it is allowed to run at a loss">
                      Costs more than the price
                    </span>
                  </>
                ) : null}
              </td>
              <td className="num">{formatCount(row.requests)}</td>
              <td className="num">{formatMicroUsd(row.revenueMicroUsd)}</td>
              <td className="num">{row.uncosted > 0 && row.upstreamCostMicroUsd === '0' ? 'No cost set' : formatMicroUsd(row.upstreamCostMicroUsd)}</td>
              <td className="num">{marginWords(row)}</td>
              <td className="num">{percent(row.failoverRate)}</td>
              <td className="num">{percent(row.errorRate)}</td>
            </tr>
          ))}
        </DataTable>
      ) : null}
    </section>
  );
}

function providerWords(row: RouteReportRow): string {
  if (row.provider === null) return 'None reached';
  return row.upstreamModel && row.upstreamModel !== row.model ? `${row.provider} (as ${row.upstreamModel})` : row.provider;
}

function marginWords(row: RouteReportRow): string {
  if (row.marginMicroUsd === null) return `Unknown for ${formatCount(row.uncosted)}`;
  return formatMicroUsd(row.marginMicroUsd);
}
