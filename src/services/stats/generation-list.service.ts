import { invalidInput } from '../../domain/errors.ts';
import { MICRO_PER_CENT } from '../../domain/money.ts';
import { TASK_STATUSES, type TaskStatus } from '../../domain/tasks/task-status.ts';
import type { BlobStore } from '../../ports/blob-store.port.ts';
import type { GenerationFilter, ListCursor } from '../../ports/stats-store.port.ts';
import type { TasksRow } from '../../ports/store-rows/media.rows.ts';
import { presentTaskStatus, type TaskStatusData } from '../generation/task-presenter.ts';
import { DAY_MS, parseDay } from './stats-period.ts';
import type { StatsPorts } from './stats-ports.ts';

export interface GenerationListQuery {
  status?: string;
  model?: string;
  type?: string;
  from?: string;
  to?: string;
  limit?: string;
  cursor?: string;
}

export interface GenerationListItem {
  taskId: string;
  model: string;
  type: string;
  status: TaskStatus;
  /** What the create debited, USD cents (exact). */
  costCents: number;
  costMicroUsd: string;
  /** A failed task's charge was refunded in full. */
  refunded: boolean;
  /** The prompt, shortened to 300 characters (the detail endpoint has it whole). */
  prompt: string | null;
  /** A music generation's song titles (its tracks', joined): what a list names it by. Null for other media. */
  title: string | null;
  files: TaskStatusData['files'];
  errorMessage: string | null;
  createdTime: string;
  finishedTime: string | null;
}

export interface GenerationPage {
  items: GenerationListItem[];
  /** Pass as `cursor` for the next page; null on the last one. */
  nextCursor: string | null;
}

const TYPES = ['IMAGE', 'VIDEO', 'MUSIC'];
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const PROMPT_CHARS = 300;

/** The caller's generations (media tasks), filtered, newest first, in pages joined by a cursor. */
export async function listGenerations(stats: StatsPorts, blobs: BlobStore, userId: string, query: GenerationListQuery): Promise<GenerationPage> {
  const filter = parseFilter(query);
  const limit = parseLimit(query.limit);
  const after = query.cursor === undefined || query.cursor === '' ? undefined : decodeCursor(query.cursor);
  const rows = await stats.store.listUserTasks(stats.uow.direct, userId, filter, limit + 1, after);
  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    items: page.map((row) => presentListItem(row, blobs)),
    nextCursor: rows.length > limit && last ? encodeCursor({ createdAt: last.created_at, id: last.id }) : null,
  };
}

export function presentListItem(row: TasksRow, blobs: BlobStore): GenerationListItem {
  const status = presentTaskStatus(row, blobs);
  let prompt: string | null = null;
  try {
    const input = JSON.parse(row.input_json) as { prompt?: unknown };
    if (typeof input.prompt === 'string') prompt = input.prompt.length > PROMPT_CHARS ? `${input.prompt.slice(0, PROMPT_CHARS - 1)}…` : input.prompt;
  } catch {
    prompt = null;
  }
  return {
    taskId: row.id,
    model: row.model,
    type: row.type,
    status: row.status,
    costCents: row.cost_micro / MICRO_PER_CENT,
    costMicroUsd: String(row.cost_micro),
    refunded: row.status === 'failed',
    prompt,
    title: songTitle(status.output),
    files: status.files,
    errorMessage: row.error_message,
    createdTime: status.createdTime,
    finishedTime: row.finished_at === null ? null : new Date(row.finished_at).toISOString(),
  };
}

/** The distinct titles of a music result's tracks, in order ("Rain" or "Rain / Rain (take 2)"). */
export function songTitle(output: Record<string, unknown> | null): string | null {
  if (!Array.isArray(output?.tracks)) return null;
  const titles = output.tracks.flatMap((track: unknown) => {
    const title = typeof track === 'object' && track !== null ? (track as { title?: unknown }).title : undefined;
    return typeof title === 'string' && title.trim() !== '' ? [title.trim()] : [];
  });
  return titles.length > 0 ? [...new Set(titles)].join(' / ') : null;
}

function parseFilter(query: GenerationListQuery): GenerationFilter {
  const filter: GenerationFilter = {};
  if (query.status) {
    const statuses = query.status.split(',').map((s) => s.trim());
    for (const s of statuses) {
      if (!(TASK_STATUSES as readonly string[]).includes(s)) throw invalidInput(`status must be a comma-separated list of ${TASK_STATUSES.join(', ')}`, 'status');
    }
    filter.statuses = statuses as TaskStatus[];
  }
  if (query.model) filter.model = query.model;
  if (query.type) {
    if (!TYPES.includes(query.type)) throw invalidInput(`type must be one of ${TYPES.join(', ')}`, 'type');
    filter.type = query.type;
  }
  if (query.from) filter.startMs = parseInstant(query.from, 'from', 'start');
  if (query.to) filter.endMs = parseInstant(query.to, 'to', 'end');
  if (filter.startMs !== undefined && filter.endMs !== undefined && filter.endMs <= filter.startMs) {
    throw invalidInput('to must not be before from', 'to');
  }
  return filter;
}

/** A date (a whole UTC day, inclusive at both ends) or an ISO 8601 date-time (that instant, inclusive). */
function parseInstant(value: string, field: string, edge: 'start' | 'end'): number {
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    const day = parseDay(value, field);
    return (edge === 'start' ? day : day + 1) * DAY_MS;
  }
  const ms = /^\d{4}-\d{2}-\d{2}T/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) throw invalidInput(`${field} must be a date (2026-05-01) or an ISO 8601 date-time`, field);
  return edge === 'start' ? ms : ms + 1;
}

function parseLimit(value: string | undefined): number {
  if (value === undefined || value === '') return DEFAULT_LIMIT;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) throw invalidInput(`limit must be an integer from 1 to ${MAX_LIMIT}`, 'limit');
  return n;
}

function encodeCursor(cursor: ListCursor): string {
  return Buffer.from(`${cursor.createdAt}.${cursor.id}`).toString('base64url');
}

function decodeCursor(value: string): ListCursor {
  const text = /^[A-Za-z0-9_-]{1,200}$/.test(value) ? Buffer.from(value, 'base64url').toString() : '';
  const match = /^(\d{1,15})\.([a-z0-9_]{1,100})$/.exec(text);
  if (!match) throw invalidInput('cursor is not one this endpoint returned', 'cursor');
  return { createdAt: Number(match[1]), id: match[2] ?? '' };
}
