import { type FormEvent, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError, errorMessage, request, requestData } from '../api/client.ts';
import type { CatalogModel, CostEstimate, CreatedTask, Me, TaskData } from '../api/index.ts';
import { ErrorNotice, FilePreview, Loading, Page, StatusBadge, useAsync } from '../components/common.tsx';
import { CopyAsCode } from '../components/CopyAsCode.tsx';
import { filesOutsideTracks, MusicTracks } from '../components/MusicTracks.tsx';
import { buildInput, type FormValue, type FormValues, fieldOfParam, missingRequired, ParamForm } from '../components/ParamForm.tsx';
import { centsToMicroUsd, formatMicroUsd } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';

const TERMINAL = new Set(['finished', 'failed', 'expired']);
const TYPE_LABELS: Record<string, string> = { IMAGE: 'Images', VIDEO: 'Videos', MUSIC: 'Music' };
const ESTIMATE_DELAY_MS = 400;
const POLL_MS = 1500;

type Estimate = { state: 'idle' } | { state: 'pending' } | { state: 'ok'; cost: number } | { state: 'error'; message: string; field: string | undefined };

/**
 * Pick a media model, fill the form its catalog `params` describe, watch the estimate follow the form,
 * create the generation and follow it until its files are there.
 */
export function PlaygroundPage() {
  const { search } = useLocation();
  const catalog = useAsync((signal) => request<CatalogModel[]>('GET', '/api/v1/catalog', { signal }), []);
  const models = useMemo(() => (catalog.data ?? []).filter((m) => m.kind === 'media'), [catalog.data]);
  const modelId = search.get('model') ?? models.find((m) => m.type === 'IMAGE')?.id ?? models[0]?.id ?? '';
  const model = models.find((m) => m.id === modelId);
  const [values, setValues] = useState<FormValues>({});
  const [estimate, setEstimate] = useState<Estimate>({ state: 'idle' });
  const [task, setTask] = useState<TaskData | undefined>();
  const [createError, setCreateError] = useState<unknown>();
  const [creating, setCreating] = useState(false);
  const [missing, setMissing] = useState<string[]>([]);
  const resultRef = useRef<HTMLElement>(null);
  const me = useAsync((signal) => requestData<Me>('GET', '/api/v1/user/me', { signal }), []);

  // A new model starts from an empty form, or from the fields the link names (Extend, Cover of a track).
  // biome-ignore lint/correctness/useExhaustiveDependencies: reset only when the model (or the models) change.
  useEffect(() => {
    const preset: FormValues = {};
    for (const param of model?.params ?? []) {
      const given = search.get(param.name);
      if (given !== null && !param.isArray && param.kind !== 'boolean') preset[param.name] = given;
    }
    setValues(preset);
    setMissing([]);
    setEstimate({ state: 'idle' });
  }, [modelId, model]);

  const input = useMemo(() => (model ? buildInput(model.params, values) : {}), [model, values]);
  const inputKey = JSON.stringify(input);

  // The estimate follows the form, a moment after the last change; a newer form cancels an older request.
  // biome-ignore lint/correctness/useExhaustiveDependencies: inputKey stands for input.
  useEffect(() => {
    if (!model) return;
    // Nothing filled in yet: no estimate, and no error about missing fields either.
    if (Object.values(values).every((v) => v === undefined)) {
      setEstimate({ state: 'idle' });
      return;
    }
    const controller = new AbortController();
    setEstimate({ state: 'pending' });
    const timer = window.setTimeout(() => {
      request<CostEstimate>('POST', '/api/v1/generation/estimate', { body: { model: model.id, input }, signal: controller.signal }).then(
        (r) => setEstimate({ state: 'ok', cost: r.cost }),
        (e: unknown) => {
          if (controller.signal.aborted) return;
          setEstimate({ state: 'error', message: errorMessage(e), field: e instanceof ApiError ? fieldOfParam(e.param) : undefined });
        },
      );
    }, ESTIMATE_DELAY_MS);
    return () => {
      window.clearTimeout(timer);
      controller.abort();
    };
  }, [model, inputKey]);

  // Follow the task until it ends.
  useEffect(() => {
    if (!task || TERMINAL.has(task.status)) return;
    const timer = window.setTimeout(async () => {
      try {
        setTask(await requestData<TaskData>('GET', `/api/v1/task/status/${encodeURIComponent(task.taskId)}`));
      } catch (e) {
        setCreateError(e);
      }
    }, POLL_MS);
    return () => window.clearTimeout(timer);
  }, [task]);

  useEffect(() => {
    if (task && TERMINAL.has(task.status)) resultRef.current?.focus();
  }, [task]);

  const change = (name: string, value: FormValue | undefined) => setValues((v) => ({ ...v, [name]: value }));

  // Once Generate was refused for missing fields, the message follows the form until they are filled.
  // biome-ignore lint/correctness/useExhaustiveDependencies: recomputed when the form changes.
  useEffect(() => {
    if (model && missing.length > 0) setMissing(missingRequired(model.params, values));
  }, [values]);

  const create = async (event: FormEvent) => {
    event.preventDefault();
    if (!model) return;
    const unfilled = missingRequired(model.params, values);
    setMissing(unfilled);
    if (unfilled.length > 0) return;
    setCreating(true);
    setCreateError(undefined);
    setTask(undefined);
    try {
      const created = await requestData<CreatedTask>('POST', '/api/v1/generation/create', { body: { model: model.id, input } });
      setTask({ taskId: created.taskId, status: created.status, files: [], output: null, createdTime: created.createdAt, errorMessage: null });
      me.reload();
    } catch (e) {
      setCreateError(e);
    } finally {
      setCreating(false);
    }
  };

  const estimateError = estimate.state === 'error' ? estimate : undefined;
  const byType = ['IMAGE', 'VIDEO', 'MUSIC'].map((t) => ({ type: t, models: models.filter((m) => m.type === t) }));
  const insufficient = createError instanceof ApiError && createError.status === 402;
  // The balance in whole cents (what /user/me shows) against the estimate in micro-USD.
  const balanceMicro = me.data ? centsToMicroUsd(me.data.balance) : undefined;
  const overBalance = estimate.state === 'ok' && balanceMicro !== undefined && estimate.cost > balanceMicro;

  return (
    <Page title="Playground" lead="Try any media model. The estimate is exactly what creating the generation will charge.">
      <ErrorNotice error={catalog.error} what="The catalog could not be loaded" />
      {catalog.loading && !catalog.data ? <Loading label="Loading models…" /> : null}
      {model ? (
        <div className="playground">
          <form className="panel playground-form" onSubmit={create} aria-labelledby="request-title" noValidate>
            <h2 id="request-title">Request</h2>
            <div className="field">
              <label htmlFor="model">Model</label>
              <select id="model" value={model.id} onChange={(e) => navigate(`/playground?model=${encodeURIComponent(e.target.value)}`, { replace: true })} aria-describedby="model-hint">
                {byType.map((group) =>
                  group.models.length ? (
                    <optgroup key={group.type} label={TYPE_LABELS[group.type] ?? group.type}>
                      {group.models.map((m) => (
                        <option key={m.id} value={m.id}>
                          {m.name}
                        </option>
                      ))}
                    </optgroup>
                  ) : null,
                )}
              </select>
              <p className="hint" id="model-hint">
                {model.description ?? ''} {model.priceFrom ? `From $${model.priceFrom} per ${model.priceUnit}.` : ''}
              </p>
            </div>
            <ParamForm params={model.params} values={values} onChange={change} errorField={estimateError?.field} errorMessage={estimateError?.message} />
            <div className="estimate" role="status" aria-live="polite" data-testid="estimate">
              {estimate.state === 'idle' ? <span className="muted">Fill in the form to see what it costs.</span> : null}
              {estimate.state === 'pending' ? 'Estimating…' : null}
              {estimate.state === 'ok' ? (
                <>
                  Estimated cost: <strong>{formatMicroUsd(estimate.cost)}</strong>
                </>
              ) : null}
              {estimateError && !estimateError.field ? <span className="field-error">{estimateError.message}</span> : null}
              {estimateError?.field ? <span className="field-error">Check the form: {estimateError.message}</span> : null}
            </div>
            <p className="small" data-testid="playground-balance">
              Balance: {balanceMicro === undefined ? '…' : formatMicroUsd(balanceMicro)}
            </p>
            {overBalance ? (
              <div className="notice notice-error" role="alert">
                This request costs more than your balance. <Link to="/billing">Add funds</Link> or change the request.
              </div>
            ) : null}
            {missing.length > 0 ? (
              <div className="notice notice-error" role="alert" data-testid="missing-fields">
                Fill in the required {missing.length === 1 ? 'field' : 'fields'} first: {missing.join(', ')}.
              </div>
            ) : null}
            <button type="submit" className="button button-primary" disabled={creating || overBalance || (task !== undefined && !TERMINAL.has(task.status))}>
              {creating ? 'Creating…' : 'Generate'}
            </button>
            <CopyAsCode path="/api/v1/generation/create" body={{ model: model.id, input }} />
            {insufficient ? (
              <div className="notice notice-error" role="alert">
                Your balance is too low for this request. <Link to="/billing">Add funds</Link>, then try again.
              </div>
            ) : (
              <ErrorNotice error={createError} what="The generation could not be created" missingEndpoint="Media generation is not available on this gateway yet." />
            )}
          </form>

          <section className="panel playground-result" aria-labelledby="result-title" ref={resultRef} tabIndex={-1}>
            <h2 id="result-title">Result</h2>
            {!task ? <p className="muted">Fill in the form and press Generate. The result appears here.</p> : null}
            {task ? (
              <>
                <p role="status" aria-live="polite" data-testid="task-status">
                  <StatusBadge status={task.status} /> {TERMINAL.has(task.status) ? '' : 'Working on it…'}
                </p>
                <p className="small">
                  Task <Link to={`/generations/${encodeURIComponent(task.taskId)}`} className="mono">{task.taskId}</Link>
                </p>
                {task.errorMessage ? <p className="field-error">{task.errorMessage} The charge was refunded.</p> : null}
                <div className="file-list">
                  {filesOutsideTracks(task.output, task.files).map((file, i) => (
                    <FilePreview key={file.fileUrl} file={file} label={`Generated ${file.fileType} ${i + 1}`} large />
                  ))}
                </div>
                <MusicTracks taskId={task.taskId} model={model.id} output={task.output} files={task.files} />
              </>
            ) : null}
          </section>
        </div>
      ) : null}
    </Page>
  );
}
