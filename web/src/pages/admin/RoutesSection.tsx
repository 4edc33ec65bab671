import { type FormEvent, useEffect, useState } from 'react';
import { errorMessage, request } from '../../api/client.ts';
import type { ServedRoute } from '../../api/index.ts';
import { ErrorNotice, Field, useAsync } from '../../components/common.tsx';
import { DataTable } from '../../components/DataTable.tsx';
import { STATE_TEXT, stateBadgeClass } from './upstream-words.ts';

interface EntryDraft {
  /** Stable across edits, for React's list keys. */
  key: number;
  provider: string;
  model: string;
  priority: string;
  weight: string;
}

/** One model's route: its entries with their live state and share of traffic; edited and saved live. */
export function RoutesSection() {
  const [modelId, setModelId] = useState('');
  const [shown, setShown] = useState('');
  const [tick, setTick] = useState(0);
  const route = useAsync((signal) => (shown ? request<ServedRoute>('GET', `/admin/v1/routes/${encodeURIComponent(shown)}`, { signal }) : Promise.resolve(undefined)), [shown, tick]);
  const [drafts, setDrafts] = useState<EntryDraft[]>([]);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | undefined>();

  useEffect(() => {
    if (route.data) setDrafts(route.data.entries.map((e, i) => ({ key: i, provider: e.provider, model: e.model, priority: String(e.priority), weight: String(e.weight) })));
  }, [route.data]);

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setNotice(undefined);
    try {
      const entries = drafts.map((d) => ({ provider: d.provider.trim(), model: d.model.trim() || shown, priority: Number(d.priority), weight: Number(d.weight) }));
      await request('PUT', `/admin/v1/routes/${encodeURIComponent(shown)}`, { body: { entries, ...(route.data?.version ? { expectedVersion: route.data.version } : {}) } });
      setNotice({ ok: true, text: `The route of ${shown} is saved; every process uses it within seconds.` });
      setTick((t) => t + 1);
    } catch (e) {
      setNotice({ ok: false, text: errorMessage(e, 'admin') });
      setTick((t) => t + 1);
    }
  };
  const reset = async () => {
    try {
      await request('DELETE', `/admin/v1/routes/${encodeURIComponent(shown)}`);
      setNotice({ ok: true, text: `${shown} follows the config file again.` });
      setTick((t) => t + 1);
    } catch (e) {
      setNotice({ ok: false, text: errorMessage(e, 'admin') });
    }
  };
  const edit = (i: number, change: Partial<EntryDraft>) => setDrafts(drafts.map((d, j) => (j === i ? { ...d, ...change } : d)));

  return (
    <section className="panel" aria-labelledby="upstream-routes-title">
      <h2 id="upstream-routes-title">Routes</h2>
      <p className="muted">Lower priority numbers are tried first; within one priority, requests are shared by weight. A failing entry cools down and is skipped while another answers.</p>
      <form
        className="inline-form"
        onSubmit={(e) => {
          e.preventDefault();
          setShown(modelId.trim());
          // Showing the same model again reads it again (its live state moves).
          setTick((t) => t + 1);
          setNotice(undefined);
        }}
      >
        <Field id="route-model" label="Model" inline>
          <input id="route-model" required value={modelId} onChange={(e) => setModelId(e.target.value)} placeholder="gpt-5.4" />
        </Field>
        <button type="submit" className="button">
          Show route
        </button>
      </form>
      {notice ? (
        <p className={notice.ok ? 'notice notice-success' : 'notice notice-error'} role={notice.ok ? 'status' : 'alert'}>
          {notice.text}
        </p>
      ) : null}
      <ErrorNotice error={route.error} what="The route could not be loaded" />
      {route.data ? (
        <>
          <p>
            {route.data.source === 'default' ? 'No route of its own: the built-in local provider serves it.' : route.data.source === 'file' ? 'From the config file.' : `Changed live (version ${route.data.version}).`}
          </p>
          <DataTable label={`Route of ${route.data.modelId}`} columns={[{ label: 'Provider' }, { label: 'Upstream model' }, { label: 'Priority', numeric: true }, { label: 'Weight', numeric: true }, { label: 'State' }, { label: 'Share, last hour', numeric: true }]}>
            {route.data.entries.map((e) => (
              <tr key={`${e.provider}/${e.model}`}>
                <th scope="row">{e.provider}</th>
                <td className="mono">{e.model}</td>
                <td className="num">{e.priority}</td>
                <td className="num">{e.weight}</td>
                <td>
                  <span className={stateBadgeClass(e.state)}>{STATE_TEXT[e.state]}</span>
                  {e.atLoss ? <span className="badge badge-health-down"> Costs more than the price</span> : null}
                  {e.lastError ? <span className="muted"> Last error: {e.lastError}</span> : null}
                </td>
                <td className="num">
                  {Math.round(e.share * 100)} % ({e.callsLastHour})
                </td>
              </tr>
            ))}
          </DataTable>
          <form onSubmit={save} aria-label={`Edit the route of ${route.data.modelId}`}>
            {drafts.map((d, i) => (
              <div className="inline-form" key={d.key}>
                <Field id={`entry-provider-${i}`} label="Provider" inline>
                  <input id={`entry-provider-${i}`} required value={d.provider} onChange={(e) => edit(i, { provider: e.target.value })} />
                </Field>
                <Field id={`entry-model-${i}`} label="Upstream model" inline>
                  <input id={`entry-model-${i}`} value={d.model} onChange={(e) => edit(i, { model: e.target.value })} />
                </Field>
                <Field id={`entry-priority-${i}`} label="Priority" inline>
                  <input id={`entry-priority-${i}`} type="number" min={0} step={1} required value={d.priority} onChange={(e) => edit(i, { priority: e.target.value })} />
                </Field>
                <Field id={`entry-weight-${i}`} label="Weight" inline>
                  <input id={`entry-weight-${i}`} type="number" min={0.001} step="any" required value={d.weight} onChange={(e) => edit(i, { weight: e.target.value })} />
                </Field>
                <button type="button" className="button button-small" onClick={() => setDrafts(drafts.filter((_, j) => j !== i))} aria-label={`Remove entry ${i + 1}`}>
                  Remove
                </button>
              </div>
            ))}
            <div className="toolbar">
              <button type="button" className="button" onClick={() => setDrafts([...drafts, { key: Math.max(-1, ...drafts.map((x) => x.key)) + 1, provider: '', model: shown, priority: String(drafts.length), weight: '1' }])}>
                Add entry
              </button>
              <button type="submit" className="button button-primary" disabled={drafts.length === 0}>
                Save route
              </button>
              {route.data.source === 'live' ? (
                <button type="button" className="button" onClick={() => void reset()}>
                  Back to the config file
                </button>
              ) : null}
            </div>
          </form>
        </>
      ) : null}
    </section>
  );
}
