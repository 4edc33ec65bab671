import { type FormEvent, useState } from 'react';
import { ApiError, errorMessage, request, requestData } from '../api/client.ts';
import { settleStorageOperation } from '../api/storage-operations.ts';
import type { AcceptedOperation, Asset, AssetPage, CatalogModel, Project, ProjectModelDefaults, ProjectPage, ProjectVersionPage } from '../api/index.ts';
import { type AssetSource, AssetSourcePicker } from '../components/AssetSourcePicker.tsx';
import { ErrorNotice, Field, Loading, Page, useAsync } from '../components/common.tsx';
import { formatBytes, formatTime } from '../format.ts';
import { Link, navigate } from '../router.tsx';
import { ProjectLogoField } from './ProjectLogoField.tsx';

const ROLES = ['logo', 'product', 'character', 'style', 'background', 'reference', 'other'];
const COLOR = /^#[0-9A-Fa-f]{6}$/;

/** Brand projects: the list and a new project, or one project with its brand, versions and assets. */
export function ProjectsPage(props: { projectId?: string }) {
  return props.projectId ? <ProjectDetail id={props.projectId} /> : <ProjectList />;
}

function ProjectList() {
  const list = useAsync((signal) => requestData<ProjectPage>('GET', '/api/v1/agent/projects?limit=100', { signal }), []);
  const [name, setName] = useState('');
  const [error, setError] = useState<unknown>();
  const create = async (event: FormEvent) => {
    event.preventDefault();
    setError(undefined);
    try {
      const project = await requestData<Project>('POST', '/api/v1/agent/projects', { body: { name } });
      navigate(`/projects/${encodeURIComponent(project.projectId)}`);
    } catch (e) {
      setError(e);
    }
  };
  return (
    <Page title="Projects" lead="A brand project gives the agent your instructions, brand voice and colours, preferred models and assets, in every conversation of the project.">
      <section className="panel" aria-labelledby="new-project">
        <h2 id="new-project">New project</h2>
        <form className="narrow-form" onSubmit={create}>
          <Field id="project-name" label="Name">
            <input id="project-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          </Field>
          <button type="submit" className="button button-primary">
            Create project
          </button>
        </form>
        <ErrorNotice error={error} what="The project was not created" />
      </section>
      <section className="panel" aria-labelledby="project-list">
        <h2 id="project-list">Your projects</h2>
        <ErrorNotice error={list.error} what="The projects could not be loaded" />
        {list.loading && !list.data ? <Loading /> : null}
        {list.data && list.data.items.length === 0 ? <p className="muted">No projects yet.</p> : null}
        <ul className="plain-list">
          {list.data?.items.map((project) => (
            <li key={project.projectId}>
              <Link to={`/projects/${encodeURIComponent(project.projectId)}`}>{project.name}</Link>{' '}
              <span className="muted small">
                version {project.version}, updated {formatTime(project.updatedAt)}
              </span>
            </li>
          ))}
        </ul>
      </section>
    </Page>
  );
}

function ProjectDetail(props: { id: string }) {
  const project = useAsync((signal) => requestData<Project>('GET', `/api/v1/agent/projects/${encodeURIComponent(props.id)}`, { signal }), [props.id]);
  const versions = useAsync((signal) => requestData<ProjectVersionPage>('GET', `/api/v1/agent/projects/${encodeURIComponent(props.id)}/versions?limit=50`, { signal }), [props.id]);
  const assets = useAsync((signal) => requestData<AssetPage>('GET', `/api/v1/agent/projects/${encodeURIComponent(props.id)}/assets?limit=100`, { signal }), [props.id]);
  // A draft in the project: the conversation is created with its first message.
  const startConversation = () => navigate(`/agent/new?project=${encodeURIComponent(props.id)}`);
  const [notice, setNotice] = useState<{ ok: boolean; text: string } | undefined>();
  const saved = (version?: number) => {
    setNotice(version === undefined ? { ok: false, text: 'Someone saved this project meanwhile; the newest version is loaded. Make your change again.' } : { ok: true, text: `Saved as version ${version}.` });
    project.reload();
    versions.reload();
  };
  return (
    <Page
      title={project.data ? project.data.name : 'Project'}
      actions={
        <button type="button" className="button button-primary" onClick={startConversation}>
          New conversation in this project
        </button>
      }
    >
      <p>
        <Link to="/projects">All projects</Link>
      </p>
      <ErrorNotice error={project.error} what="The project could not be loaded" />
      {project.loading && !project.data ? <Loading /> : null}
      {notice ? (
        <p className={notice.ok ? 'notice notice-success' : 'notice notice-error'} role={notice.ok ? 'status' : 'alert'}>
          {notice.text}
        </p>
      ) : null}
      {project.data ? (
        <ProjectForm key={project.data.version} project={project.data} assets={assets.data?.items ?? []} assetsComplete={assets.data?.nextCursor === null} onSaved={saved} onConflict={() => saved()} />
      ) : null}
      <Assets projectId={props.id} assets={assets.data?.items ?? []} error={assets.error} onImported={assets.reload} />
      <section className="panel" aria-labelledby="versions-title">
        <h2 id="versions-title">Versions</h2>
        <p className="hint">Every saved change is a new version; a run keeps the version it started with.</p>
        <ErrorNotice error={versions.error} what="The versions could not be loaded" />
        <ol className="plain-list" data-testid="versions">
          {versions.data?.items.map((v) => (
            <li key={v.version}>
              <strong>Version {v.version}</strong> <span className="muted small">{formatTime(v.createdAt)}</span>
              <div className="small">{v.instructions ? v.instructions.slice(0, 200) : <span className="muted">No instructions</span>}</div>
            </li>
          ))}
        </ol>
      </section>
    </Page>
  );
}

function ProjectForm(props: { project: Project; assets: Asset[]; assetsComplete: boolean; onSaved: (version: number) => void; onConflict: () => void }) {
  const { project } = props;
  const catalog = useAsync((signal) => request<CatalogModel[]>('GET', '/api/v1/catalog', { signal }), []);
  const [name, setName] = useState(project.name);
  const [instructions, setInstructions] = useState(project.instructions);
  const [brandName, setBrandName] = useState(project.brand.name ?? '');
  const [voice, setVoice] = useState(project.brand.voice ?? '');
  const [colors, setColors] = useState<string[]>(project.brand.colors);
  const [newColor, setNewColor] = useState('#336699');
  const [logo, setLogo] = useState(project.brand.logoAssetId ?? '');
  const [defaults, setDefaults] = useState<ProjectModelDefaults>(project.modelDefaults);
  const [status, setStatus] = useState<{ error?: unknown }>({});

  const save = async (event: FormEvent) => {
    event.preventDefault();
    setStatus({});
    try {
      const saved = await requestData<Project>('PATCH', `/api/v1/agent/projects/${encodeURIComponent(project.projectId)}`, {
        body: {
          expectedVersion: project.version,
          name,
          instructions,
          brand: { name: brandName || null, voice: voice || null, colors, logoAssetId: logo || null },
          modelDefaults: defaults,
        },
      });
      props.onSaved(saved.version);
    } catch (e) {
      if (e instanceof ApiError && e.code === 'version_conflict') props.onConflict();
      else setStatus({ error: e });
    }
  };
  const models = (type: CatalogModel['type']) => (catalog.data ?? []).filter((m) => m.type === type);
  const modelSelect = (field: keyof ProjectModelDefaults, label: string, type: CatalogModel['type']) => (
    <Field id={`default-${field}`} label={label}>
      <select id={`default-${field}`} value={defaults[field] ?? ''} onChange={(e) => setDefaults((d) => ({ ...d, [field]: e.target.value || null }))}>
        <option value="">Your own default</option>
        {models(type).map((m) => (
          <option key={m.id} value={m.id}>
            {m.name}
          </option>
        ))}
      </select>
    </Field>
  );
  return (
    <section className="panel" aria-labelledby="brand-title">
      <h2 id="brand-title">Brand and instructions (version {project.version})</h2>
      <form className="narrow-form" onSubmit={save}>
        <Field id="p-name" label="Project name">
          <input id="p-name" required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </Field>
        <Field id="p-instructions" label="Instructions for the agent">
          <textarea id="p-instructions" rows={5} maxLength={8000} value={instructions} onChange={(e) => setInstructions(e.target.value)} />
        </Field>
        <Field id="p-brand-name" label="Brand name">
          <input id="p-brand-name" maxLength={200} value={brandName} onChange={(e) => setBrandName(e.target.value)} />
        </Field>
        <Field id="p-voice" label="Brand voice">
          <textarea id="p-voice" rows={2} maxLength={2000} value={voice} onChange={(e) => setVoice(e.target.value)} />
        </Field>
        <fieldset className="field-group">
          <legend>Brand colours</legend>
          <ul className="swatches" aria-label="Brand colours">
            {colors.map((c) => (
              <li key={c}>
                <span className="swatch" style={{ background: c }} aria-hidden="true" /> <span className="mono">{c}</span>{' '}
                <button type="button" className="button button-small" onClick={() => setColors((list) => list.filter((x) => x !== c))} aria-label={`Remove colour ${c}`}>
                  Remove
                </button>
              </li>
            ))}
          </ul>
          <Field id="p-new-color" label="Add a colour">
            <input id="p-new-color" type="color" value={newColor} onChange={(e) => setNewColor(e.target.value)} />
          </Field>
          <button
            type="button"
            className="button button-small"
            disabled={!COLOR.test(newColor) || colors.includes(newColor.toUpperCase()) || colors.length >= 12}
            onClick={() => setColors((list) => [...list, newColor.toUpperCase()])}
          >
            Add colour
          </button>
        </fieldset>
        <ProjectLogoField value={logo} assets={props.assets} complete={props.assetsComplete} onChange={setLogo} />
        {modelSelect('imageModelId', 'Image model', 'IMAGE')}
        {modelSelect('videoModelId', 'Video model', 'VIDEO')}
        {modelSelect('musicModelId', 'Music model', 'MUSIC')}
        <button type="submit" className="button button-primary">
          Save a new version
        </button>
      </form>
      {status.error ? (
        <p className="notice notice-error" role="alert">
          {errorMessage(status.error)}
        </p>
      ) : null}
    </section>
  );
}

function Assets(props: { projectId: string; assets: Asset[]; error: unknown; onImported: () => void }) {
  const [source, setSource] = useState<AssetSource | undefined>();
  const [role, setRole] = useState('product');
  const [state, setState] = useState<{ busy?: boolean; error?: unknown; done?: string }>({});
  const importAsset = async (event: FormEvent) => {
    event.preventDefault();
    if (!source) {
      setState({ error: new Error('Pick a file first: a recent artifact, a file of a recent generation, or one from disk.') });
      return;
    }
    setState({ busy: true });
    try {
      const accepted = await requestData<AcceptedOperation>('POST', `/api/v1/agent/projects/${encodeURIComponent(props.projectId)}/assets/import`, {
        body: { ...source, role },
        headers: { 'idempotency-key': crypto.randomUUID() },
      });
      const op = await settleStorageOperation(accepted.operationId);
      setState({ done: `Imported ${op.file?.name ?? 'the file'}.` });
      setSource(undefined);
      props.onImported();
    } catch (e) {
      setState({ error: e });
    }
  };
  const needsPlan = state.error instanceof ApiError && (state.error.code === 'storage_plan_required' || state.error.code === 'storage_quota_exceeded');
  // source_not_found: the chosen file is no longer there (expired, or its conversation deleted), not a storage problem.
  const sourceGone = state.error instanceof ApiError && state.error.code === 'source_not_found';
  return (
    <section className="panel" aria-labelledby="assets-title">
      <h2 id="assets-title">Assets</h2>
      <ErrorNotice error={props.error} what="The assets could not be loaded" />
      {props.assets.length === 0 ? <p className="muted">No assets yet.</p> : null}
      <ul className="asset-grid">
        {props.assets.map((a) => (
          <li key={a.assetId}>
            <span className="badge">{a.role}</span> {a.name} <span className="muted small">{formatBytes(a.sizeBytes)}</span>
          </li>
        ))}
      </ul>
      <form className="narrow-form" onSubmit={importAsset}>
        <AssetSourcePicker value={source} onChange={setSource} />
        <Field id="asset-role" label="Role">
          <select id="asset-role" value={role} onChange={(e) => setRole(e.target.value)}>
            {ROLES.map((r) => (
              <option key={r} value={r}>
                {r}
              </option>
            ))}
          </select>
        </Field>
        <button type="submit" className="button" disabled={state.busy}>
          Import into the project
        </button>
      </form>
      {state.done ? (
        <p className="notice notice-success" role="status">
          {state.done}
        </p>
      ) : null}
      {needsPlan ? (
        <p className="notice notice-error" role="alert">
          Importing keeps the file in your storage, which needs a storage plan with room for it. <Link to="/storage">Storage plans</Link>
        </p>
      ) : sourceGone ? (
        <p className="notice notice-error" role="alert">
          That file is not available any more: generated files are kept 3 days, and artifacts leave with a deleted conversation. Pick another one above.
        </p>
      ) : (
        <ErrorNotice error={state.error} what="The import did not work" />
      )}
    </section>
  );
}
