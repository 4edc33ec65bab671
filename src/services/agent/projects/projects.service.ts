/**
 * Brand projects (SPEC "Agent resources": Project; rule 9; "Versioning"): instructions, brand settings
 * and model defaults of one user on one storefront. Every accepted create or update writes an
 * immutable version row with the full content; an update names the version it read (expectedVersion)
 * and a stale one is 409. Runs keep the version they started with (MessagesService snapshots it).
 */
import { applyProjectChanges, emptyProject, type ProjectChanges, type ProjectContent, parseProjectChanges } from '../../../domain/agent/project-content.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import { echo } from '../../../domain/echo.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import type { AgentLibraryStore, ProjectAssetCursor, ProjectAssetRow, ProjectCursor, ProjectRow } from '../../../ports/agent-library-store.port.ts';
import type { UnitOfWork } from '../../../ports/unit-of-work.port.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';
import type { RouteCapabilities } from '../settings/route-capabilities.service.ts';

export interface ProjectView extends ProjectContent {
  projectId: string;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface ProjectVersionView extends ProjectContent {
  projectId: string;
  version: number;
  createdAt: string;
}

export interface ProjectAssetView {
  assetId: string;
  projectId: string;
  role: string;
  name: string;
  mime: string;
  sizeBytes: number;
  sourceArtifactId: string | null;
  createdAt: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** What a run keeps of its conversation's project (rule 9, "Versioning": never rewritten later). */
export interface ProjectForRun {
  projectId: string;
  version: number;
  content: ProjectContent;
}

/** Per user and storefront; a brand per project, so a hundred is generous. */
export const MAX_PROJECTS = 100;
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;
const PROJECT_ID = /^proj_[0-9a-z]{26}$/;
/** Asset ids are prefixed ids (`past_…` by convention); the importer owns how they are made. */
const ASSET_ID = /^[a-z]{2,8}_[0-9a-z]{26}$/;

export class ProjectsService {
  readonly #store: AgentLibraryStore;
  readonly #uow: UnitOfWork;
  readonly #catalog: Catalog;
  readonly #capabilities: RouteCapabilities;

  constructor(deps: { store: AgentLibraryStore; uow: UnitOfWork; catalog: Catalog; capabilities: RouteCapabilities }) {
    this.#store = deps.store;
    this.#uow = deps.uow;
    this.#catalog = deps.catalog;
    this.#capabilities = deps.capabilities;
  }

  async create(caller: AgentCaller, body: unknown): Promise<ProjectView> {
    const changes = parseProjectChanges(this.#catalog, body, []);
    if (changes.name === undefined) throw invalidInput('name is required', 'name');
    await this.#checkOrchestrator(changes);
    if (changes.brand?.logoAssetId) throw invalidInput('brand.logoAssetId: a new project has no assets yet; import the logo, then set it with PATCH', 'brand.logoAssetId');
    const owner = ownerOf(caller);
    const content = applyProjectChanges(emptyProject(changes.name), changes);
    const now = Date.now();
    const row: ProjectRow = {
      id: newId('proj', now),
      user_id: owner.userId,
      storefront: owner.storefront,
      name: content.name,
      version: 1,
      snapshot_json: JSON.stringify(content),
      created_at: now,
      updated_at: now,
      deleted_at: null,
    };
    await this.#uow.transaction(async (tx) => {
      if ((await this.#store.countProjects(tx, owner)) >= MAX_PROJECTS) throw invalidInput(`at most ${MAX_PROJECTS} projects per storefront; delete one first`, 'name');
      await this.#store.createProject(tx, row);
    });
    return present(row);
  }

  async get(caller: AgentCaller, id: string): Promise<ProjectView> {
    return present(await this.#find(caller, id));
  }

  async list(caller: AgentCaller, query: { cursor?: string; limit?: string }): Promise<Page<ProjectView>> {
    const limit = parseLimit(query.limit);
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    const rows = await this.#store.listProjects(this.#uow.direct, ownerOf(caller), limit + 1, after);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map(present), nextCursor: rows.length > limit && last ? encodeCursor({ updatedAt: Number(last.updated_at), id: last.id }) : null };
  }

  /** Fields the body omits keep their values; a result equal to the current content writes no version. */
  async update(caller: AgentCaller, id: string, body: unknown): Promise<ProjectView> {
    const changes = parseProjectChanges(this.#catalog, body, ['expectedVersion']);
    const expected = (body as Record<string, unknown>).expectedVersion;
    if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 1) throw invalidInput('expectedVersion is required: the version from GET /agent/projects/{projectId}', 'expectedVersion');
    await this.#checkOrchestrator(changes);
    const row = await this.#find(caller, id);
    if (changes.brand?.logoAssetId && !(await this.#store.findProjectAsset(this.#uow.direct, row.id, changes.brand.logoAssetId))) {
      throw invalidInput(`brand.logoAssetId: ${echo(changes.brand.logoAssetId)} is not an asset of this project`, 'brand.logoAssetId');
    }
    if (row.version !== expected) throw stale(row.version);
    const current = JSON.parse(row.snapshot_json) as ProjectContent;
    const next = applyProjectChanges(current, changes);
    const json = JSON.stringify(next);
    if (json === row.snapshot_json) return present(row);
    const now = Date.now();
    const updated = await this.#uow.transaction((tx) => this.#store.updateProject(tx, row.id, expected, next.name, json, now));
    if (!updated) throw stale((await this.#find(caller, id)).version);
    return present(await this.#find(caller, id));
  }

  /**
   * Soft delete (docs/decisions.md): the project disappears from the API and applies to no new run;
   * its versions stay, since runs that started in it name them; conversations keep their history.
   */
  async delete(caller: AgentCaller, id: string): Promise<{ projectId: string; deleted: true }> {
    const row = await this.#find(caller, id);
    const now = Date.now();
    // Its destinations are revoked with it: its conversations keep their project id, so a destination scoped to it would go on receiving them.
    const deleted = await this.#uow.transaction((tx) => this.#store.deleteProject(tx, row.id, now));
    if (!deleted) throw new AppError('not_found', 'project not found');
    return { projectId: row.id, deleted: true };
  }

  async versions(caller: AgentCaller, id: string, query: { cursor?: string; limit?: string }): Promise<Page<ProjectVersionView>> {
    const row = await this.#find(caller, id);
    const limit = parseLimit(query.limit);
    let before: number | undefined;
    if (query.cursor !== undefined && query.cursor !== '') {
      before = Number(query.cursor);
      if (!Number.isSafeInteger(before) || before < 1) throw invalidInput('cursor is not one this endpoint returned', 'cursor');
    }
    const rows = await this.#store.listProjectVersions(this.#uow.direct, row.id, limit + 1, before);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map((v) => ({ projectId: row.id, version: v.version, createdAt: iso(v.created_at), ...(JSON.parse(v.snapshot_json) as ProjectContent) })),
      nextCursor: rows.length > limit && last ? String(last.version) : null,
    };
  }

  async version(caller: AgentCaller, id: string, versionText: string): Promise<ProjectVersionView> {
    const row = await this.#find(caller, id);
    const n = Number(versionText);
    if (!/^[0-9]{1,9}$/.test(versionText) || n < 1) throw invalidInput('version must be a positive integer', 'version');
    const v = await this.#store.findProjectVersion(this.#uow.direct, row.id, n);
    if (!v) throw new AppError('not_found', `project version ${n} not found (the project is at version ${row.version})`);
    return { projectId: row.id, version: v.version, createdAt: iso(v.created_at), ...(JSON.parse(v.snapshot_json) as ProjectContent) };
  }

  async assets(caller: AgentCaller, id: string, query: { cursor?: string; limit?: string; role?: string }): Promise<Page<ProjectAssetView>> {
    const row = await this.#find(caller, id);
    const limit = parseLimit(query.limit);
    const after = query.cursor ? decodeAssetCursor(query.cursor) : undefined;
    const rows = await this.#store.listProjectAssets(this.#uow.direct, row.id, limit + 1, after, query.role || undefined);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return { items: page.map(presentAsset), nextCursor: rows.length > limit && last ? Buffer.from(`${last.created_at}.${last.id}`).toString('base64url') : null };
  }

  /** The live project a new run of this owner starts with, or undefined (none, or deleted since). */
  async forRun(owner: { userId: string; storefront: string }, id: string | null): Promise<ProjectForRun | undefined> {
    if (id === null) return undefined;
    const row = await this.#store.findProject(this.#uow.direct, owner, id);
    if (!row) return undefined;
    return { projectId: row.id, version: row.version, content: JSON.parse(row.snapshot_json) as ProjectContent };
  }

  async #find(caller: AgentCaller, id: string): Promise<ProjectRow> {
    const row = PROJECT_ID.test(id) ? await this.#store.findProject(this.#uow.direct, ownerOf(caller), id) : undefined;
    if (!row) throw new AppError('not_found', 'project not found');
    return row;
  }

  /** As for the user's settings: an orchestrator with no route of verified tool calling is refused. */
  async #checkOrchestrator(changes: ProjectChanges): Promise<void> {
    const id = changes.modelDefaults?.orchestratorModelId;
    if (id === undefined || id === null) return;
    if ((await this.#capabilities.modelVerdict(id, 'tools')) === 'failed') {
      throw invalidInput(`modelDefaults.orchestratorModelId: ${id} has no route with verified tool calling, which the orchestrator needs (see GET /api/v1/agent/models)`, 'modelDefaults.orchestratorModelId');
    }
  }
}

function present(row: ProjectRow): ProjectView {
  return { projectId: row.id, version: row.version, ...(JSON.parse(row.snapshot_json) as ProjectContent), createdAt: iso(row.created_at), updatedAt: iso(row.updated_at) };
}

function presentAsset(row: ProjectAssetRow): ProjectAssetView {
  return {
    assetId: row.id,
    projectId: row.project_id,
    role: row.role,
    name: row.name,
    mime: row.mime,
    sizeBytes: Number(row.size_bytes),
    sourceArtifactId: row.source_artifact_id,
    createdAt: iso(row.created_at),
  };
}

function stale(current: number): AppError {
  return new AppError('version_conflict', `expectedVersion is stale: the project is at version ${current}; GET it again and retry`, { param: 'expectedVersion' });
}

function iso(ms: number): string {
  return new Date(Number(ms)).toISOString();
}

function parseLimit(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PAGE;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) throw invalidInput(`limit must be an integer from 1 to ${MAX_PAGE}`, 'limit');
  return n;
}

function encodeCursor(cursor: ProjectCursor): string {
  return Buffer.from(`${cursor.updatedAt}.${cursor.id}`).toString('base64url');
}

function decodeCursor(value: string): ProjectCursor {
  const [at, id] = splitCursor(value);
  if (!PROJECT_ID.test(id)) throw invalidInput('cursor is not one this endpoint returned', 'cursor');
  return { updatedAt: at, id };
}

function decodeAssetCursor(value: string): ProjectAssetCursor {
  const [at, id] = splitCursor(value);
  if (!ASSET_ID.test(id)) throw invalidInput('cursor is not one this endpoint returned', 'cursor');
  return { createdAt: at, id };
}

function splitCursor(value: string): [number, string] {
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const dot = text.indexOf('.');
  const at = Number(text.slice(0, dot));
  if (dot < 1 || !Number.isSafeInteger(at)) throw invalidInput('cursor is not one this endpoint returned', 'cursor');
  return [at, text.slice(dot + 1)];
}
