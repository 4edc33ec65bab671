import { type FormEvent, useEffect, useState } from 'react';
import { errorMessage, request, requestData } from '../api/client.ts';
import type { CatalogModel, GenerationDetail, GenerationItem, GenerationPage } from '../api/index.ts';
import { ErrorNotice, FieldNotes, FilePreview, Loading, Page, StatusBadge } from '../components/common.tsx';
import { formatCents, formatTime, reversedRangeProblem } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';

const FILTERS = ['status', 'type', 'model', 'from', 'to'] as const;

/** The caller's generations, newest first, with filters, previews and pages (“Load more”). */
export function GenerationsPage() {
  const { search } = useLocation();
  const applied = Object.fromEntries(FILTERS.map((f) => [f, search.get(f) ?? ''])) as Record<(typeof FILTERS)[number], string>;
  const [draft, setDraft] = useState(applied);
  const [items, setItems] = useState<GenerationItem[]>([]);
  const [cursor, setCursor] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [error, setError] = useState<unknown>();
  const [models, setModels] = useState<CatalogModel[]>([]);
  const queryString = FILTERS.filter((f) => applied[f])
    .map((f) => `${f}=${encodeURIComponent(applied[f])}`)
    .join('&');

  useEffect(() => {
    request<CatalogModel[]>('GET', '/api/v1/catalog').then(
      (all) => setModels(all.filter((m) => m.kind === 'media')),
      () => setModels([]),
    );
  }, []);

  useEffect(() => {
    const controller = new AbortController();
    setLoading(true);
    setError(undefined);
    requestData<GenerationPage>('GET', `/api/v1/generations?limit=24${queryString ? `&${queryString}` : ''}`, { signal: controller.signal }).then(
      (page) => {
        setItems(page.items);
        setCursor(page.nextCursor);
        setLoading(false);
      },
      (e: unknown) => {
        if (controller.signal.aborted) return;
        setError(e);
        setLoading(false);
      },
    );
    return () => controller.abort();
  }, [queryString]);

  // Running tasks refresh on their own until they end (every 2 s, only the ones still running).
  const running = items.filter((item) => item.status === 'not_started' || item.status === 'processing').map((item) => item.taskId);
  const runningKey = running.join(',');
  // biome-ignore lint/correctness/useExhaustiveDependencies: runningKey stands for the running ids.
  useEffect(() => {
    if (running.length === 0) return;
    const timer = window.setTimeout(async () => {
      const updates = await Promise.all(
        running.map((id) => requestData<GenerationDetail>('GET', `/api/v1/generation/${encodeURIComponent(id)}`).catch(() => undefined)),
      );
      setItems((old) =>
        old.map((item) => {
          const fresh = updates.find((u) => u?.taskId === item.taskId);
          if (!fresh) return item;
          return {
            ...item,
            status: fresh.status,
            files: fresh.files,
            errorMessage: fresh.errorMessage,
            finishedTime: fresh.finishedAt,
            costMicroUsd: fresh.cost.microUsd,
            costCents: fresh.cost.cents,
            refunded: fresh.cost.refundedMicroUsd !== '0',
          };
        }),
      );
    }, 2000);
    return () => window.clearTimeout(timer);
  }, [runningKey, items]);

  const loadMore = async () => {
    if (!cursor) return;
    setLoading(true);
    try {
      const page = await requestData<GenerationPage>('GET', `/api/v1/generations?limit=24&cursor=${encodeURIComponent(cursor)}${queryString ? `&${queryString}` : ''}`);
      setItems((old) => [...old, ...page.items]);
      setCursor(page.nextCursor);
    } catch (e) {
      setError(e);
    } finally {
      setLoading(false);
    }
  };

  const [rangeProblem, setRangeProblem] = useState<string | undefined>();
  const apply = (event: FormEvent) => {
    event.preventDefault();
    // A reversed range is refused here, beside the dates, instead of listing nothing.
    const problem = reversedRangeProblem(draft.from, draft.to);
    setRangeProblem(problem);
    if (problem) return;
    const qs = FILTERS.filter((f) => draft[f])
      .map((f) => `${f}=${encodeURIComponent(draft[f])}`)
      .join('&');
    navigate(`/generations${qs ? `?${qs}` : ''}`, { replace: true });
  };
  const clear = () => {
    setDraft({ status: '', type: '', model: '', from: '', to: '' });
    navigate('/generations', { replace: true });
  };

  return (
    <Page title="Generations" actions={<Link to="/playground" className="button button-primary">New generation</Link>}>
      <form className="filters" onSubmit={apply} aria-label="Filter generations">
        <div className="field">
          <label htmlFor="filter-status">Status</label>
          <select id="filter-status" value={draft.status} onChange={(e) => setDraft({ ...draft, status: e.target.value })}>
            <option value="">Any</option>
            <option value="not_started,processing">In progress</option>
            <option value="finished">Finished</option>
            <option value="failed">Failed (refunded)</option>
            <option value="expired">Expired</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-type">Type</label>
          <select id="filter-type" value={draft.type} onChange={(e) => setDraft({ ...draft, type: e.target.value })}>
            <option value="">Any</option>
            <option value="IMAGE">Image</option>
            <option value="VIDEO">Video</option>
            <option value="MUSIC">Music</option>
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-model">Model</label>
          <select id="filter-model" value={draft.model} onChange={(e) => setDraft({ ...draft, model: e.target.value })}>
            <option value="">Any</option>
            {models.map((m) => (
              <option key={m.id} value={m.id}>
                {m.name}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="filter-from">Created from</label>
          <input id="filter-from" type="date" value={draft.from} onChange={(e) => setDraft({ ...draft, from: e.target.value })} />
        </div>
        <div className="field">
          <label htmlFor="filter-to">to</label>
          <input
            id="filter-to"
            type="date"
            value={draft.to}
            onChange={(e) => setDraft({ ...draft, to: e.target.value })}
            aria-invalid={rangeProblem ? true : undefined}
            aria-describedby={rangeProblem ? 'filter-to-error' : undefined}
          />
          <FieldNotes id="filter-to" error={rangeProblem} />
        </div>
        <div className="filter-buttons">
          <button type="submit" className="button button-primary">
            Apply filters
          </button>
          <button type="button" className="button" onClick={clear}>
            Clear
          </button>
        </div>
      </form>

      {error ? <ErrorNotice error={error} what="Generations could not be loaded" /> : null}
      <p className="visually-hidden" role="status" aria-live="polite">
        {loading ? 'Loading generations' : `${items.length} generations shown${cursor ? ', more available' : ''}`}
      </p>
      {!loading && items.length === 0 && !error ? (
        <p className="empty">
          No generations {queryString ? 'match these filters' : 'yet'}. <Link to="/playground">Try the playground.</Link>
        </p>
      ) : null}
      <ul className="generation-grid" aria-label="Generations">
        {items.map((g) => (
          <li key={g.taskId} className="generation-card" data-task-id={g.taskId}>
            <div className="generation-media">
              {g.files[0] ? (
                <FilePreview file={g.files[0]} label={g.prompt ? `Result of “${g.prompt.slice(0, 80)}”` : `Result of ${g.taskId}`} />
              ) : (
                <div className="generation-placeholder" aria-hidden="true">
                  {g.type.toLowerCase()}
                </div>
              )}
            </div>
            <div className="generation-body">
              <h2 className="generation-title">
                <Link to={`/generations/${encodeURIComponent(g.taskId)}`}>{g.title ?? (g.prompt ? g.prompt : g.taskId)}</Link>
              </h2>
              {g.title && g.prompt ? <p className="generation-meta muted">{g.prompt}</p> : null}
              <p className="generation-meta">
                <StatusBadge status={g.status} /> <span className="mono">{g.model}</span>
              </p>
              <p className="generation-meta">
                <span>
                  {g.refunded ? (
                    <>
                      <s>{formatCents(g.costCents)}</s> refunded
                    </>
                  ) : (
                    formatCents(g.costCents)
                  )}
                </span>
                {' · '}
                <time dateTime={g.createdTime}>{formatTime(g.createdTime)}</time>
              </p>
              {g.errorMessage ? <p className="generation-error">{g.errorMessage}</p> : null}
            </div>
          </li>
        ))}
      </ul>
      {loading && items.length === 0 ? <Loading label="Loading generations…" /> : null}
      {cursor ? (
        <button type="button" className="button" onClick={loadMore} disabled={loading}>
          {loading ? 'Loading…' : 'Load more'}
        </button>
      ) : null}
      {error && items.length > 0 ? <p className="field-error">{errorMessage(error)}</p> : null}
    </Page>
  );
}
