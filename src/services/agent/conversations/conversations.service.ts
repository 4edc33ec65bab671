/**
 * Conversations (SPEC "Agent resources"): create with the optional fields, list by latest activity
 * with full-text search over titles and message texts, rename by version, delete (stopping runs).
 */
import type { Kysely } from 'kysely';
import {
  type ConversationCursor,
  type ConversationRow,
  deleteSearchDocuments,
  findConversation,
  indexSearchDocument,
  insertConversation,
  listConversations,
  markConversationDeleted,
  renameConversation,
} from '../../../adapters/db/repositories/agent/conversations.repository.ts';
import { findProject } from '../../../adapters/db/repositories/agent/projects.repository.ts';
import { deleteEvents } from '../../../adapters/db/repositories/agent/events.repository.ts';
import { deleteMessages } from '../../../adapters/db/repositories/agent/messages.repository.ts';
import { countQueuedRuns, listUnfinishedRuns } from '../../../adapters/db/repositories/agent/runs.repository.ts';
import { isPostgres } from '../../../adapters/db/dialect-of.ts';
import { executorOf, type Schema } from '../../../adapters/db/schema.ts';
import { type PartialAgentSettings, parseSettings } from '../../../domain/agent/agent-settings.ts';
import { findProfile } from '../../../domain/agent/profiles.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import { echo } from '../../../domain/echo.ts';
import { findWorkflow } from '../../../domain/agent/workflows.ts';
import { AppError, invalidInput } from '../../../domain/errors.ts';
import { newId } from '../../../domain/ids.ts';
import type { EventBus } from '../../../ports/event-bus.port.ts';
import { type AgentCaller, ownerOf } from '../agent-caller.ts';
import type { AgentWriter } from '../events/agent-writer.ts';
import type { AgentEventHub } from '../events/event-hub.ts';
import { stopRun } from '../runs/run-stop.ts';
import { conversationUpdated } from '../../../domain/agent/agent-events.ts';

export interface ConversationView {
  conversationId: string;
  title: string | null;
  /** `user` (given or renamed), `generated` (rule 19) or null. */
  titleSource: 'user' | 'generated' | null;
  mode: 'auto' | 'manual';
  selectedModelId: string | null;
  projectId: string | null;
  profileId: string | null;
  defaultWorkflowId: string | null;
  settings: PartialAgentSettings;
  version: number;
  activeRunId: string | null;
  lastEventSequence: number;
  lastActivityAt: string;
  createdAt: string;
}

export interface ConversationPage {
  items: ConversationView[];
  nextCursor: string | null;
}

const CREATE_FIELDS = ['title', 'projectId', 'profileId', 'defaultWorkflowId', 'settings', 'mode', 'selectedModelId'];
export const MAX_TITLE = 200;
const DEFAULT_PAGE = 20;
const MAX_PAGE = 100;

export class ConversationsService {
  readonly #db: Kysely<Schema>;
  readonly #catalog: Catalog;
  readonly #writer: AgentWriter;
  readonly #bus: EventBus;
  readonly #hub: AgentEventHub;

  constructor(deps: { db: Kysely<Schema>; catalog: Catalog; writer: AgentWriter; bus: EventBus; hub: AgentEventHub }) {
    this.#db = deps.db;
    this.#catalog = deps.catalog;
    this.#writer = deps.writer;
    this.#bus = deps.bus;
    this.#hub = deps.hub;
  }

  async create(caller: AgentCaller, body: unknown): Promise<ConversationView> {
    const input = body === undefined || body === null ? {} : body;
    if (typeof input !== 'object' || Array.isArray(input)) throw invalidInput('the body must be a JSON object', 'body');
    const fields = input as Record<string, unknown>;
    for (const key of Object.keys(fields)) if (!CREATE_FIELDS.includes(key)) throw invalidInput(`unknown field ${key}; allowed: ${CREATE_FIELDS.join(', ')}`, key);
    const title = fields.title === undefined || fields.title === null ? null : parseTitle(fields.title);
    const mode = fields.mode ?? 'auto';
    if (mode !== 'auto' && mode !== 'manual') throw invalidInput('mode must be auto or manual', 'mode');
    let selectedModelId: string | null = null;
    if (fields.selectedModelId !== undefined && fields.selectedModelId !== null) {
      if (typeof fields.selectedModelId !== 'string' || (!this.#catalog.chat(fields.selectedModelId) && !this.#catalog.media(fields.selectedModelId))) {
        throw invalidInput(`selectedModelId: ${typeof fields.selectedModelId === 'string' ? echo(fields.selectedModelId) : 'the value'} is not an available model`, 'selectedModelId');
      }
      selectedModelId = fields.selectedModelId;
    }
    if (mode === 'manual' && selectedModelId === null) throw invalidInput('manual mode needs selectedModelId: the model that makes the result', 'selectedModelId');
    if (mode === 'auto' && selectedModelId !== null) throw invalidInput('selectedModelId is for manual mode (mode: manual)', 'selectedModelId');
    const profileId = optionalId(fields.profileId, 'profileId');
    if (profileId !== null && !findProfile(profileId)) throw invalidInput(`profileId: ${echo(profileId)} is not a profile (GET /api/v1/agent/profiles)`, 'profileId');
    const projectId = optionalId(fields.projectId, 'projectId');
    // Another user's project, another storefront's or a deleted one reads as missing.
    if (projectId !== null && !(await findProject(this.#db, ownerOf(caller), projectId))) throw invalidInput(`projectId: ${echo(projectId)} is not one of your projects (GET /api/v1/agent/projects)`, 'projectId');
    const defaultWorkflowId = optionalId(fields.defaultWorkflowId, 'defaultWorkflowId');
    if (defaultWorkflowId !== null && !findWorkflow(defaultWorkflowId)) throw invalidInput(`defaultWorkflowId: ${echo(defaultWorkflowId)} is not a workflow (GET /agent/workflows)`, 'defaultWorkflowId');
    const settings = fields.settings === undefined || fields.settings === null ? {} : parseSettings(this.#catalog, fields.settings, 'settings');

    const now = Date.now();
    const owner = ownerOf(caller);
    const row: ConversationRow = {
      context_json: '[]',
      context_version: 0,
      id: newId('conv', now),
      user_id: owner.userId,
      storefront: owner.storefront,
      title,
      title_source: title === null ? null : 'user',
      mode,
      selected_model_id: selectedModelId,
      project_id: projectId,
      profile_id: profileId,
      default_workflow_id: defaultWorkflowId,
      settings_json: JSON.stringify(settings),
      version: 1,
      event_seq: 0,
      active_run_id: null,
      run_count: 0,
      last_activity_at: now,
      created_at: now,
      deleted_at: null,
    };
    await this.#db.transaction().execute(async (tx) => {
      await insertConversation(tx, row);
      if (title !== null) await indexSearchDocument(tx, { docId: row.id, conversationId: row.id, body: title });
    });
    return presentConversation(row);
  }

  async get(caller: AgentCaller, id: string): Promise<ConversationView & { queuedRuns: number }> {
    const row = await this.find(caller, id);
    return { ...presentConversation(row), queuedRuns: await countQueuedRuns(this.#db, row.id) };
  }

  async find(caller: AgentCaller, id: string): Promise<ConversationRow> {
    const row = await findConversation(this.#db, ownerOf(caller), id);
    if (!row) throw new AppError('not_found', 'conversation not found');
    return row;
  }

  async list(caller: AgentCaller, query: { q?: string; cursor?: string; limit?: string; projectId?: string }): Promise<ConversationPage> {
    const limit = parseLimit(query.limit);
    const after = query.cursor ? decodeCursor(query.cursor) : undefined;
    let search: string | undefined;
    if (query.q !== undefined && query.q.trim() !== '') {
      search = searchExpression(query.q, isPostgres(this.#db));
      if (search === undefined) return { items: [], nextCursor: null };
    }
    const projectId = query.projectId === undefined || query.projectId === '' ? undefined : query.projectId;
    const rows = await listConversations(this.#db, ownerOf(caller), limit + 1, after, search, projectId);
    const page = rows.slice(0, limit);
    const last = page.at(-1);
    return {
      items: page.map(presentConversation),
      nextCursor: rows.length > limit && last ? encodeCursor({ lastActivityAt: Number(last.last_activity_at), id: last.id }) : null,
    };
  }

  async rename(caller: AgentCaller, id: string, body: unknown): Promise<ConversationView> {
    if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be {title, expectedVersion}', 'body');
    const fields = body as Record<string, unknown>;
    for (const key of Object.keys(fields)) if (key !== 'title' && key !== 'expectedVersion') throw invalidInput(`unknown field ${key}; allowed: title, expectedVersion`, key);
    const title = parseTitle(fields.title);
    const expected = fields.expectedVersion;
    if (typeof expected !== 'number' || !Number.isSafeInteger(expected) || expected < 1) throw invalidInput('expectedVersion is required: the version from the conversation', 'expectedVersion');
    const row = await this.find(caller, id);
    const renamed = await this.#writer.run(async (storeTx, fx) => {
      // The writer hands out the store transaction; this service still writes through the repositories.
      const tx = executorOf(storeTx);
      if (!(await renameConversation(tx, row.id, expected, title, 'user', fx.now))) return false;
      await indexSearchDocument(tx, { docId: row.id, conversationId: row.id, body: title });
      await fx.emit(conversationUpdated(row.id, { title, titleSource: 'user', version: expected + 1 }));
      return true;
    });
    if (!renamed) {
      const current = await this.find(caller, id);
      throw new AppError('version_conflict', `expectedVersion is stale: the conversation is at version ${current.version}`, { param: 'expectedVersion' });
    }
    return presentConversation(await this.find(caller, id));
  }

  /** Deletes the conversation, its messages, events and search entries; stops its runs (rule: "active runs are stopped"). */
  async delete(caller: AgentCaller, id: string): Promise<{ conversationId: string; deleted: true; stoppedRunIds: string[] }> {
    const row = await this.find(caller, id);
    const stopped = await this.#writer.run(async (storeTx, fx) => {
      // The writer hands out the store transaction; this service still writes through the repositories.
      const tx = executorOf(storeTx);
      const ids: string[] = [];
      for (const run of await listUnfinishedRuns(tx, row.id)) {
        await stopRun(tx, fx, this.#writer.queue, this.#bus, run.id);
        ids.push(run.id);
      }
      if (!(await markConversationDeleted(tx, row.id, fx.now))) throw new AppError('not_found', 'conversation not found');
      await deleteMessages(tx, row.id);
      await deleteEvents(tx, row.id);
      await deleteSearchDocuments(tx, row.id);
      fx.after(() => this.#hub.publishClosed(row.id, 'conversation deleted'));
      return ids;
    });
    return { conversationId: row.id, deleted: true, stoppedRunIds: stopped };
  }
}

export function presentConversation(row: ConversationRow): ConversationView {
  return {
    conversationId: row.id,
    title: row.title,
    titleSource: row.title_source,
    mode: row.mode,
    selectedModelId: row.selected_model_id,
    projectId: row.project_id,
    profileId: row.profile_id,
    defaultWorkflowId: row.default_workflow_id,
    settings: JSON.parse(row.settings_json) as PartialAgentSettings,
    version: row.version,
    activeRunId: row.active_run_id,
    lastEventSequence: Number(row.event_seq),
    lastActivityAt: new Date(Number(row.last_activity_at)).toISOString(),
    createdAt: new Date(Number(row.created_at)).toISOString(),
  };
}

function parseTitle(value: unknown): string {
  if (typeof value !== 'string') throw invalidInput('title must be a string', 'title');
  const title = value.replace(/\s+/g, ' ').trim();
  if (title === '') throw invalidInput('title must not be empty', 'title');
  if (title.length > MAX_TITLE) throw invalidInput(`title must be at most ${MAX_TITLE} characters`, 'title');
  return title;
}

function optionalId(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value === '' || value.length > 200) throw invalidInput(`${field} must be an id string`, field);
  return value;
}

/**
 * The search words of `q` as a full-text query: every word must match, as a prefix (so a word being
 * typed finds its conversations). Only letters and digits reach the engine's query syntax.
 */
export function searchExpression(q: string, postgres: boolean): string | undefined {
  const words = (q.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 8).map((w) => w.slice(0, 64));
  if (words.length === 0) return undefined;
  return postgres ? words.map((w) => `${w}:*`).join(' & ') : words.map((w) => `"${w}"*`).join(' ');
}

function parseLimit(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_PAGE;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_PAGE) throw invalidInput(`limit must be an integer from 1 to ${MAX_PAGE}`, 'limit');
  return n;
}

function encodeCursor(cursor: ConversationCursor): string {
  return Buffer.from(`${cursor.lastActivityAt}.${cursor.id}`).toString('base64url');
}

function decodeCursor(value: string): ConversationCursor {
  const text = Buffer.from(value, 'base64url').toString('utf8');
  const dot = text.indexOf('.');
  const at = Number(text.slice(0, dot));
  const id = text.slice(dot + 1);
  if (dot < 1 || !Number.isSafeInteger(at) || !/^conv_[0-9a-z]{26}$/.test(id)) throw invalidInput('cursor is not one this endpoint returned', 'cursor');
  return { lastActivityAt: at, id };
}
