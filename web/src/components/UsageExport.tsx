import { useState } from 'react';

const day = (date: Date) => date.toISOString().slice(0, 10);

/**
 * Downloads of the ledger and of the generations for a range of UTC days, as CSV (GET
 * /api/v1/usage/export, authenticated by the session cookie). A range the server would refuse is
 * refused here first, in words.
 */
export function UsageExport(props: { path?: string; whose?: string } = {}) {
  const path = props.path ?? '/api/v1/usage/export';
  const whose = props.whose ?? 'Your';
  const now = new Date();
  const [from, setFrom] = useState(day(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))));
  const [to, setTo] = useState(day(now));
  const days = (Date.parse(to) - Date.parse(from)) / 86_400_000 + 1;
  const problem = !from || !to ? 'Choose both days.' : days < 1 ? 'The last day comes before the first.' : days > 366 ? 'At most a year (366 days) at a time.' : undefined;
  const href = (type: 'ledger' | 'generations') => `${path}?type=${type}&from=${from}&to=${to}`;
  return (
    <section className="panel" aria-labelledby="export-title">
      <h2 id="export-title">Export</h2>
      <p className="muted">
        {whose} ledger or generations for a range of days (UTC), as a CSV file for a spreadsheet. Amounts are exact US dollars{props.path ? '; each ledger entry names the member whose key made it' : ''}.
      </p>
      <div className="custom-range">
        <label htmlFor="export-from">From</label>
        <input id="export-from" type="date" value={from} max={to} onChange={(e) => setFrom(e.target.value)} aria-describedby={problem ? 'export-problem' : undefined} />
        <label htmlFor="export-to">to</label>
        <input id="export-to" type="date" value={to} min={from} onChange={(e) => setTo(e.target.value)} aria-describedby={problem ? 'export-problem' : undefined} />
      </div>
      {problem ? (
        <p id="export-problem" className="notice notice-error" role="alert">
          {problem}
        </p>
      ) : (
        <p className="toolbar">
          <a className="button" href={href('ledger')} download>
            Download the ledger (CSV)
          </a>
          <a className="button" href={href('generations')} download>
            Download the generations (CSV)
          </a>
        </p>
      )}
    </section>
  );
}
