import { useEffect } from 'react';
import { ApiError, requestData } from '../api/client.ts';
import type { GenerationDetail, WebhookDelivery } from '../api/index.ts';
import { ErrorNotice, FilePreview, Loading, Page, StatusBadge, useAsync } from '../components/common.tsx';
import { DataTable } from '../components/DataTable.tsx';
import { KeepButton } from '../components/KeepButton.tsx';
import { filesOutsideTracks, MusicTracks, songTitleOf } from '../components/MusicTracks.tsx';
import { formatCents, formatMicroUsd, formatTime } from '../format.ts';
import { Link } from '../router.tsx';

const TERMINAL = new Set(['finished', 'failed', 'expired']);

/** One generation: request, price, files, every provider attempt and every webhook delivery. */
export function GenerationDetailPage(props: { id: string }) {
  const detail = useAsync((signal) => requestData<GenerationDetail>('GET', `/api/v1/generation/${encodeURIComponent(props.id)}`, { signal }), [props.id]);
  const g = detail.data;
  const { reload } = detail;

  // Until it ends, look again every two seconds.
  useEffect(() => {
    if (!g || TERMINAL.has(g.status)) return;
    const timer = window.setTimeout(reload, 2000);
    return () => window.clearTimeout(timer);
  }, [g, reload]);

  const song = g ? songTitleOf(g.output) : undefined;
  const notFound = detail.error instanceof ApiError && detail.error.status === 404 && !detail.error.isMissingEndpoint;
  return (
    <Page title={song ?? (g ? `Generation ${g.model}` : 'Generation')} actions={<Link to="/generations">All generations</Link>}>
      {notFound ? <p className="notice notice-error">No generation {props.id} in this account.</p> : <ErrorNotice error={detail.error} what="The generation could not be loaded" />}
      {!g && detail.loading ? <Loading /> : null}
      {g ? (
        <>
          <section className="panel" aria-labelledby="summary">
            <h2 id="summary">Summary</h2>
            <dl className="facts">
              <dt>Status</dt>
              <dd>
                <StatusBadge status={g.status} /> <span className="visually-hidden" role="status">{`Status: ${g.status}`}</span>
              </dd>
              <dt>Task id</dt>
              <dd className="mono">{g.taskId}</dd>
              <dt>Model</dt>
              <dd className="mono">{g.model}</dd>
              <dt>Type</dt>
              <dd>{g.type}</dd>
              <dt>Cost</dt>
              <dd>
                {formatCents(g.cost.cents)} ({g.cost.microUsd} micro-USD; tier {g.cost.tier}, {g.cost.units} × {g.cost.unit})
                {Number(g.cost.refundedMicroUsd) > 0 ? ` — refunded ${formatMicroUsd(g.cost.refundedMicroUsd)}` : ''}
              </dd>
              <dt>Created</dt>
              <dd>{formatTime(g.createdAt)}</dd>
              <dt>Finished</dt>
              <dd>{formatTime(g.finishedAt)}</dd>
              <dt>Files kept until</dt>
              <dd>{formatTime(g.expiresAt)}</dd>
              {g.errorMessage ? (
                <>
                  <dt>Error</dt>
                  <dd className="field-error">{g.errorMessage}</dd>
                </>
              ) : null}
            </dl>
            {g.prompt ? (
              <>
                <h3>Prompt</h3>
                <p className="prompt">{g.prompt}</p>
              </>
            ) : null}
          </section>

          {g.files.length > 0 ? (
            <section className="panel" aria-labelledby="files">
              <h2 id="files">Files</h2>
              <div className="file-list">
                {filesOutsideTracks(g.output, g.files).map((file) => {
                  const i = g.files.indexOf(file);
                  return (
                    <div key={file.fileUrl}>
                      <FilePreview file={file} label={`File ${i + 1} of ${g.files.length}${g.prompt ? `: ${g.prompt.slice(0, 80)}` : ''}`} large />
                      <KeepButton generationId={props.id} outputIndex={i} />
                    </div>
                  );
                })}
              </div>
              <MusicTracks taskId={g.taskId} model={g.model} output={g.output} files={g.files} extra={(i) => <KeepButton generationId={props.id} outputIndex={i} />} />
            </section>
          ) : null}

          <section className="panel" aria-labelledby="attempts">
            <h2 id="attempts">Provider attempts</h2>
            {g.attempts.length === 0 ? (
              <p className="muted">No attempt yet.</p>
            ) : (
              <DataTable label="Provider attempts" columns={[{ label: '#' }, { label: 'Provider' }, { label: 'Upstream model' }, { label: 'State' }, { label: 'Started' }, { label: 'Ended' }, { label: 'Error' }]}>
                {g.attempts.map((a) => (
                  <tr key={a.attempt}>
                    <th scope="row">{a.attempt}</th>
                    <td>{a.provider}</td>
                    <td className="mono">{a.upstreamModel}</td>
                    <td>{a.state}</td>
                    <td>{formatTime(a.startedAt)}</td>
                    <td>{formatTime(a.endedAt)}</td>
                    <td>{a.error ? `${a.error}${a.retryable === null ? '' : a.retryable ? ' (retryable)' : ' (final)'}` : '—'}</td>
                  </tr>
                ))}
              </DataTable>
            )}
          </section>

          <section className="panel" aria-labelledby="webhook">
            <h2 id="webhook">Webhook</h2>
            {g.webhook ? <Deliveries url={g.webhook.url} deliveries={g.webhook.deliveries} /> : <p className="muted">This generation was created without a webhook.</p>}
          </section>

          <section className="panel" aria-labelledby="input">
            <h2 id="input">Request input</h2>
            <pre className="code">{JSON.stringify(g.input, null, 2)}</pre>
          </section>
        </>
      ) : null}
    </Page>
  );
}

export function Deliveries(props: { url?: string; deliveries: WebhookDelivery[] }) {
  return (
    <>
      {props.url ? (
        <p>
          URL: <span className="mono">{props.url}</span>
        </p>
      ) : null}
      {props.deliveries.length === 0 ? (
        <p className="muted">No delivery yet.</p>
      ) : (
        <DataTable label="Webhook deliveries" columns={[{ label: 'Delivery' }, { label: 'Event' }, { label: 'Status' }, { label: 'Attempts' }, { label: 'Last response' }, { label: 'Created' }, { label: 'Delivered' }]}>
          {props.deliveries.map((d) => (
            <tr key={d.id}>
              <th scope="row" className="mono">
                {d.id}
              </th>
              <td>{d.eventType}</td>
              <td>{d.status}</td>
              <td>{d.attemptCount}</td>
              <td>{d.lastStatusCode ?? d.lastError ?? '—'}</td>
              <td>{formatTime(d.createdAt)}</td>
              <td>{formatTime(d.deliveredAt)}</td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}
