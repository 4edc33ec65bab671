import { useState } from 'react';
import { request } from '../../api/client.ts';
import type { AuditEntry, AuditPage } from '../../api/index.ts';
import { ErrorNotice, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { formatTime } from '../../format.ts';

const ACTION_TEXT: Record<string, string> = { put: 'set', patch: 'changed', delete: 'removed', import: 'imported' };

/** Who changed which upstream setting when, newest first; secrets appear only as hints. */
export function AuditSection() {
  const [before, setBefore] = useState<string | undefined>();
  const [tick, setTick] = useState(0);
  const page = useAsync((signal) => request<AuditPage>('GET', `/admin/v1/audit?limit=20${before ? `&before=${encodeURIComponent(before)}` : ''}`, { signal }), [before, tick]);
  return (
    <section className="panel" aria-labelledby="upstream-audit-title">
      <h2 id="upstream-audit-title">Change log</h2>
      <ErrorNotice error={page.error} what="The change log could not be loaded" />
      {page.data ? (
        <DataTable label="Changes to upstream settings" columns={[{ label: 'When' }, { label: 'Who' }, { label: 'What' }, { label: 'Details' }]}>
          {page.data.data.map((e) => (
            <tr key={e.id}>
              <th scope="row">{formatTime(e.at)}</th>
              <td>{e.actor === 'admin-token' ? 'the admin token' : e.actor}</td>
              <td>
                {e.subjectKind} {e.subject} {ACTION_TEXT[e.action] ?? e.action}
              </td>
              <td>
                <details>
                  <summary>Before and after</summary>
                  <pre className="mono wrap">{describe(e)}</pre>
                </details>
              </td>
            </tr>
          ))}
        </DataTable>
      ) : null}
      <div className="toolbar">
        <button type="button" className="button" onClick={() => setTick((t) => t + 1)}>
          Refresh
        </button>
        {before ? (
          <button type="button" className="button" onClick={() => setBefore(undefined)}>
            Newest
          </button>
        ) : null}
        {page.data?.nextCursor ? (
          <button type="button" className="button" onClick={() => setBefore(page.data?.nextCursor ?? undefined)}>
            Older
          </button>
        ) : null}
      </div>
    </section>
  );
}

function describe(entry: AuditEntry): string {
  return `before: ${JSON.stringify(entry.before, null, 1) ?? 'nothing'}\nafter: ${JSON.stringify(entry.after, null, 1) ?? 'nothing'}`;
}
