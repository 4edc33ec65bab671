import { tmpdir } from 'node:os';
import pg from 'pg';
import { openDatabase } from '../../../src/adapters/db/open-database.ts';
import { type LedgerMismatch, verifyLedger } from '../../../src/adapters/db/ledger/ledger-checks.ts';

export const TERMINAL_TASK = new Set(['finished', 'failed', 'expired']);
export const TERMINAL_RUN = new Set(['completed', 'failed', 'cancelled']);

export interface StoredTask {
  id: string;
  status: string;
  costMicro: number;
  refundedMicro: number;
  /** The load's marker in the prompt (`c00042`), undefined for tasks the load did not create (agent runs). */
  marker: string | undefined;
  webhookUrl: string | null;
  idempotencyKey: string | null;
  agentRunId: string | null;
  createdAt: number;
  finishedAt: number | null;
  errorMessage: string | null;
  /** `provider:state` of each attempt, in order. */
  attempts: string[];
}

export interface StoreState {
  /** No task, run or webhook delivery is still under way. */
  quiet: boolean;
  tasks: StoredTask[];
  /** generation_debit and generation_refund entries. */
  ledger: Array<{ kind: string; reference: string; amountMicro: number }>;
  runs: Array<{ id: string; status: string; waitReason: string | null; messageId: string }>;
  deliveries: Array<{ taskId: string; messageId: string; status: string; attempts: number; lastError: string | null; nextAttemptAt: number | null }>;
  /** client_message_id → message id of every agent message that has one. */
  agentMessages: Map<string, string>;
  chatHolds: number;
}

/** One consistent read of what the checks need (a REPEATABLE READ transaction, so one snapshot). */
export async function readStore(databaseUrl: string): Promise<StoreState> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
    const tasks = await client.query<{
      id: string;
      status: string;
      cost_micro: string;
      refunded_micro: string;
      input_json: string;
      webhook_url: string | null;
      idempotency_key: string | null;
      agent_run_id: string | null;
      created_at: string;
      finished_at: string | null;
      error_message: string | null;
    }>('SELECT id, status, cost_micro, refunded_micro, input_json, webhook_url, idempotency_key, agent_run_id, created_at, finished_at, error_message FROM tasks');
    const attempts = await client.query<{ task_id: string; provider: string; state: string }>('SELECT task_id, provider, state FROM task_attempts ORDER BY task_id, attempt_no');
    const ledger = await client.query<{ kind: string; reference: string; amount_micro: string }>(
      `SELECT kind, reference, amount_micro FROM ledger_entries WHERE kind IN ('generation_debit', 'generation_refund')`,
    );
    const runs = await client.query<{ id: string; status: string; wait_reason: string | null; message_id: string }>('SELECT id, status, wait_reason, message_id FROM agent_runs');
    const deliveries = await client.query<{ task_id: string; message_id: string; status: string; attempts: number; last_error: string | null; next_attempt_at: string | null }>(
      'SELECT task_id, message_id, status, attempts, last_error, next_attempt_at FROM webhook_deliveries WHERE task_id IS NOT NULL',
    );
    const messages = await client.query<{ id: string; client_message_id: string }>('SELECT id, client_message_id FROM agent_messages WHERE client_message_id IS NOT NULL');
    const holds = await client.query<{ n: string }>('SELECT count(*) AS n FROM chat_holds');
    await client.query('COMMIT');

    const attemptsByTask = new Map<string, string[]>();
    for (const a of attempts.rows) attemptsByTask.set(a.task_id, [...(attemptsByTask.get(a.task_id) ?? []), `${a.provider}:${a.state}`]);
    const stored: StoredTask[] = tasks.rows.map((t) => ({
      id: t.id,
      status: t.status,
      costMicro: Number(t.cost_micro),
      refundedMicro: Number(t.refunded_micro),
      marker: /chaos (c\d+)/.exec(t.input_json)?.[1],
      webhookUrl: t.webhook_url,
      idempotencyKey: t.idempotency_key,
      agentRunId: t.agent_run_id,
      createdAt: Number(t.created_at),
      finishedAt: t.finished_at === null ? null : Number(t.finished_at),
      errorMessage: t.error_message,
      attempts: attemptsByTask.get(t.id) ?? [],
    }));
    const quiet =
      stored.every((t) => TERMINAL_TASK.has(t.status)) && runs.rows.every((r) => TERMINAL_RUN.has(r.status)) && deliveries.rows.every((d) => d.status !== 'pending');
    return {
      quiet,
      tasks: stored,
      ledger: ledger.rows.map((e) => ({ kind: e.kind, reference: e.reference, amountMicro: Number(e.amount_micro) })),
      runs: runs.rows.map((r) => ({ id: r.id, status: r.status, waitReason: r.wait_reason, messageId: r.message_id })),
      deliveries: deliveries.rows.map((d) => ({
        taskId: d.task_id,
        messageId: d.message_id,
        status: d.status,
        attempts: d.attempts,
        lastError: d.last_error,
        nextAttemptAt: d.next_attempt_at === null ? null : Number(d.next_attempt_at),
      })),
      agentMessages: new Map(messages.rows.map((m) => [m.client_message_id, m.id])),
      chatHolds: Number(holds.rows[0]?.n ?? 0),
    };
  } finally {
    await client.end();
  }
}

/** `ledger verify` on the run's store (every balance, hold, run budget and operation agrees). */
export async function verifyStoreLedger(databaseUrl: string): Promise<LedgerMismatch[]> {
  const handle = openDatabase({ databaseUrl, dataDir: tmpdir(), postgresPoolSize: 2 });
  try {
    return await verifyLedger(handle.db);
  } finally {
    await handle.close();
  }
}
