import { invalidInput } from '../../domain/errors.ts';
import { csvRecord } from '../../domain/files/csv.ts';
import { microToUsd } from '../../domain/money.ts';
import type { ExportCursor } from '../../ports/stats-store.port.ts';
import type { LedgerEntriesRow } from '../../ports/store-rows/foundation.rows.ts';
import type { TasksRow } from '../../ports/store-rows/media.rows.ts';
import { dayKey, resolveStatsPeriod, type StatsPeriod } from './stats-period.ts';
import type { StatsPorts } from './stats-ports.ts';

export const USAGE_EXPORT_KINDS = ['ledger', 'generations'] as const;
export type UsageExportKind = (typeof USAGE_EXPORT_KINDS)[number];

export interface UsageExportQuery {
  type?: string;
  from?: string;
  to?: string;
}

export interface UsageExport {
  filename: string;
  /** CSV text, a header record then one record per row, newest first; read page by page from the store. */
  chunks: AsyncIterable<string>;
}

/** Rows read per query: each page is one short statement, and the loop turns between pages. */
const PAGE = 200;
/** An export reads at most this many rows (a year of a busy account); past it the last record says so. */
export const MAX_EXPORT_ROWS = 200_000;
const PROMPT_CHARS = 2_000;

/**
 * The caller's books or generations for a range of UTC days (at most 366; the last 30 when no dates
 * are given) as CSV, for a spreadsheet or an accountant. Amounts are exact USD (six decimals at most).
 * The query is checked before anything is sent, so a bad one is a 400, not a cut file.
 */
export function usageExport(stats: StatsPorts, userId: string, query: UsageExportQuery, now: number = Date.now()): UsageExport {
  const type = query.type ?? 'ledger';
  if (!(USAGE_EXPORT_KINDS as readonly string[]).includes(type)) throw invalidInput(`type must be one of ${USAGE_EXPORT_KINDS.join(', ')}`, 'type');
  const hasDates = query.from !== undefined || query.to !== undefined;
  const period = resolveStatsPeriod(hasDates ? { from: query.from, to: query.to } : { range: '30d' }, now);
  const filename = `switchboard-${type}-${dayKey(period.firstDay)}-to-${dayKey(period.lastDay)}.csv`;
  return { filename, chunks: type === 'ledger' ? ledgerCsv(stats, userId, period) : generationsCsv(stats, userId, period) };
}

async function* ledgerCsv({ store, uow }: StatsPorts, userId: string, period: StatsPeriod): AsyncGenerator<string> {
  // member: an organization's entries name the member whose key moved the money (empty for a person's).
  const members = await store.memberEmails(uow.direct, userId);
  yield csvRecord(['time', 'entry_id', 'kind', 'amount_usd', 'balance_after_usd', 'reference', 'note', 'member']);
  yield* paged(
    (cursor) => store.ledgerEntriesBetween(uow.direct, userId, period.startMs, period.endMs, PAGE, cursor),
    (row: LedgerEntriesRow) =>
      csvRecord([
        iso(row.created_at),
        row.id,
        row.kind,
        microToUsd(row.amount_micro),
        microToUsd(row.balance_after_micro),
        row.reference,
        row.note === null ? null : { text: row.note },
        row.member_id ? { text: members.get(row.member_id) ?? row.member_id } : null,
      ]),
  );
}

async function* generationsCsv({ store, uow }: StatsPorts, userId: string, period: StatsPeriod): AsyncGenerator<string> {
  const keys = await store.apiKeyNames(uow.direct, userId);
  yield csvRecord(['created_time', 'generation_id', 'model', 'type', 'status', 'cost_usd', 'refunded', 'api_key', 'finished_time', 'error', 'prompt']);
  yield* paged(
    (cursor) => store.listUserTasks(uow.direct, userId, { startMs: period.startMs, endMs: period.endMs }, PAGE, cursor),
    (row: TasksRow) =>
      csvRecord([
        iso(row.created_at),
        row.id,
        row.model,
        row.type,
        row.status,
        microToUsd(row.cost_micro),
        row.status === 'failed',
        row.api_key_id ? { text: keys.get(row.api_key_id) ?? row.api_key_id } : null,
        row.finished_at === null ? null : iso(row.finished_at),
        row.error_message === null ? null : { text: row.error_message },
        promptOf(row),
      ]),
  );
}

/** Pages through rows newest first; each page's records are one chunk. */
async function* paged<Row extends { created_at: number; id: string }>(read: (cursor: ExportCursor | undefined) => Promise<Row[]>, record: (row: Row) => string): AsyncGenerator<string> {
  let cursor: ExportCursor | undefined;
  let count = 0;
  for (;;) {
    const rows = await read(cursor);
    if (rows.length > 0) yield rows.map(record).join('');
    count += rows.length;
    const last = rows.at(-1);
    if (rows.length < PAGE || !last) return;
    if (count >= MAX_EXPORT_ROWS) {
      yield csvRecord([`# cut at ${MAX_EXPORT_ROWS} rows: export a shorter range for the rest`]);
      return;
    }
    cursor = { createdAt: last.created_at, id: last.id };
  }
}

/** Inputs larger than this (pictures inline, up to the create route's 32 MiB) are not parsed on the loop for an export. */
const PARSED_INPUT_BYTES = 64 * 1024;

function promptOf(row: TasksRow): { text: string } | null {
  if (row.input_json.length > PARSED_INPUT_BYTES) return { text: '(input too large to show here; see the generation)' };
  try {
    const input = JSON.parse(row.input_json) as { prompt?: unknown };
    if (typeof input.prompt !== 'string') return null;
    return { text: input.prompt.length > PROMPT_CHARS ? `${input.prompt.slice(0, PROMPT_CHARS - 1)}…` : input.prompt };
  } catch {
    return null;
  }
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
