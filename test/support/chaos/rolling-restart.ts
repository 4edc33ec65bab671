import pg from 'pg';
import { EventStreamReader } from './event-stream-reader.ts';
import type { FleetRole } from './fleet.ts';
import type { Outcome } from './load.ts';
import { type ChaosProfile, type ChaosRun, type FaultPlan, TEST_PROFILE } from './scenario.ts';

/**
 * A rolling restart (issue 22): every process of the fleet, one after the other, gets SIGTERM, drains
 * and exits by itself, and a replacement starts; the load goes through the front proxy, as clients
 * behind a load balancer do. The lease is long (30 s) so that a job left to wait for it would show.
 */
export const ROLLING_PROFILE: ChaosProfile = { ...TEST_PROFILE, settleMs: 4_000, leaseMs: 30_000 };

export interface RestartRecord {
  name: string;
  pid: number;
  exitCode: number | null;
  exitSignal: string | null;
  drainMs: number;
  /** Jobs whose lease the exited worker still held (they would wait for the lease to run out). */
  jobsLeftLeased: number;
}

export interface RollingRestart {
  restarts: RestartRecord[];
  reader: EventStreamReader | undefined;
  plan: FaultPlan;
}

const ORDER: Array<[FleetRole, number]> = [
  ['api', 0],
  ['worker', 0],
  ['api', 1],
  ['worker', 1],
];

/** Jobs still leased by an exited process (its owner id carries its pid: `wrk_<host>_<pid>_…`). */
async function jobsLeasedBy(databaseUrl: string, pid: number): Promise<number> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const result = await client.query<{ n: string }>(`SELECT count(*) AS n FROM jobs WHERE lease_owner LIKE $1 AND lease_until > $2`, [`%\\_${pid}\\_%`, Date.now()]);
    return Number(result.rows[0]?.n ?? 0);
  } finally {
    await client.end();
  }
}

/** The plan: an agent event stream reader on a conversation with a run, then each process in turn restarted. */
/** `count` restarts in ORDER (all four unless fewer are asked for: bench/rolling-restart's smoke). */
export function rollingRestart(count = ORDER.length): RollingRestart {
  const out: RollingRestart = { restarts: [], reader: undefined, plan: async () => {} };
  out.plan = async ({ fleet, front, key, databaseUrl, fault }) => {
    const post = async (path: string, body: unknown) => {
      const res = await fetch(front.url + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`${path}: ${res.status} ${await res.text()}`);
      return ((await res.json()) as { data: Record<string, string> }).data;
    };
    const { conversationId } = await post('/api/v1/agent/conversations', { title: 'rolling restart reader' });
    if (!conversationId) throw new Error('no conversation');
    const reader = new EventStreamReader(front.url, key, conversationId);
    out.reader = reader;
    reader.start();
    await post(`/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text: 'make an image of a fox that restarts' }], clientMessageId: 'rolling-reader-1' });
    for (const [role, slot] of ORDER.slice(0, count)) {
      await fault(role === 'api' ? 'sigterm-api' : 'sigterm-worker', `SIGTERM ${role}-${slot}, wait for its exit, start a replacement`, async () => {
        const { stopped, replacement, drainMs } = await fleet.restartGracefully(role, slot);
        const jobsLeftLeased = role === 'worker' ? await jobsLeasedBy(databaseUrl, stopped.pid) : 0;
        out.restarts.push({ name: stopped.name, pid: stopped.pid, exitCode: stopped.exit?.code ?? null, exitSignal: stopped.exit?.signal ?? null, drainMs, jobsLeftLeased });
        return {
          evidence: `${stopped.name} pid ${stopped.pid} exited with ${stopped.exit?.code ?? stopped.exit?.signal} after ${drainMs} ms; replacement pid ${replacement.pid}`,
          injected: stopped.exit?.code === 0,
          drainMs,
        };
      });
    }
    await reader.stop();
  };
  return out;
}

const failed = (o: Outcome) => typeof o !== 'number' || o < 200 || o >= 300;

/** Every request the client sent through the front got a 2xx, and every chat stream ended with [DONE]. */
export function checkNoFailedRequest(run: Pick<ChaosRun, 'load'>): string[] {
  const problems: string[] = [];
  const during = (r: { phase: string; endedAt: number; startedAt: number }) => `during '${r.phase}' (+${r.endedAt - r.startedAt} ms)`;
  for (const c of run.load.creates) if (failed(c.outcome)) problems.push(`create ${c.marker} ${during(c)} → ${c.outcome} ${c.detail ?? ''}`);
  for (const c of run.load.chats) {
    if (failed(c.outcome)) problems.push(`chat ${c.id} ${during(c)} → ${c.outcome} ${c.detail ?? ''}`);
    else if (c.end !== 'done') problems.push(`chat ${c.id} ${during(c)} ended ${c.end}`);
  }
  for (const a of run.load.agents) if (failed(a.outcome) || !a.runId) problems.push(`agent message ${a.clientMessageId} ${during(a)} → ${a.outcome} ${a.detail ?? ''}`);
  return problems;
}

/** Each restart drained and exited by itself (code 0, not the 30 s bound), and no worker left a job leased. */
export function checkRestarts(run: ChaosRun, restarts: RestartRecord[], expected = ORDER.length): string[] {
  const problems: string[] = [];
  if (restarts.length !== expected) problems.push(`${restarts.length} restarts of ${expected}`);
  for (const r of restarts) {
    if (r.exitCode !== 0) problems.push(`${r.name} pid ${r.pid} exited with ${r.exitCode ?? r.exitSignal} after ${r.drainMs} ms`);
    if (r.jobsLeftLeased > 0) problems.push(`${r.name} pid ${r.pid} exited with ${r.jobsLeftLeased} job(s) still leased: they wait for the ${run.profile.leaseMs} ms lease`);
  }
  for (const f of run.faults) if (!run.load.creates.some((c) => c.phase === f.name)) problems.push(`no create was sent during ${f.name}`);
  return problems;
}

/** The agent event stream reader: every shutdown ended its stream with a retry hint, and it resumed without a failure. */
export function checkEventReader(reader: EventStreamReader | undefined): string[] {
  if (!reader) return ['the event stream reader did not run'];
  const problems = [...reader.failures];
  if (reader.sequences.length === 0) problems.push('the event stream reader saw no event');
  // Whichever API process it was on, the restart of that process ended its stream with the hint.
  if (reader.endedWithRetryHint === 0) problems.push(`the event stream reader was never told to reconnect (${reader.connections} connections)`);
  return problems;
}

