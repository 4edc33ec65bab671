import { ADMIN_TOKEN } from '../gateway.ts';
import { createSharedStores, type SharedStores } from '../processes.ts';
import { ChaosFleet } from './fleet.ts';
import { type FrontProxy, startFrontProxy } from './front-proxy.ts';
import { ChaosLoad } from './load.ts';
import { type OwnRedis, startOwnRedis } from './redis-server.ts';
import { probeStatus, type ReadinessSampler, sampleReadiness } from './readiness.ts';
import { readStore, type StoreState, verifyStoreLedger } from './store-state.ts';
import type { LedgerMismatch } from '../../../src/adapters/db/ledger/ledger-checks.ts';
import { type ChaosUpstreams, startChaosUpstreams } from './upstreams.ts';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver.ts';

export interface ChaosProfile {
  createLoops: number;
  createPauseMs: number;
  chatLoops: number;
  chatPauseMs: number;
  agentEveryMs: number;
  /** Load before the first fault (the "normal running" the bench compares with). */
  warmupMs: number;
  /** Load between one fault's end and the next fault. */
  settleMs: number;
  redisOutageMs: number;
  /** Worker lease; the SIGSTOP lasts twice as long plus a second. */
  leaseMs: number;
  /** After the load stops: how long to wait for every task, run and webhook to end. */
  quiesceTimeoutMs: number;
}

/** About 75 s of load and faults, then up to 60 s to quiesce: the CI test. */
export const TEST_PROFILE: ChaosProfile = {
  createLoops: 2,
  createPauseMs: 120,
  chatLoops: 1,
  chatPauseMs: 150,
  agentEveryMs: 6_000,
  warmupMs: 6_000,
  settleMs: 6_000,
  redisOutageMs: 6_000,
  leaseMs: 2_000,
  quiesceTimeoutMs: 60_000,
};

export type FaultName = 'sigkill-api' | 'sigkill-worker' | 'redis-outage' | 'pg-terminate' | 'sigstop-worker' | 'sigterm-api' | 'sigterm-worker';

export interface FaultRecord {
  name: FaultName;
  what: string;
  injectedAt: number;
  /** When the cause was gone (Redis back, SIGCONT); equal to injectedAt for instantaneous faults. */
  restoredAt: number;
  /** Every API process answered /readyz 200 again (undefined: not within the recovery window). */
  readyAt: number | undefined;
  /** Evidence that the fault happened (pids, connections terminated, Redis refusing). */
  evidence: string;
  /** False when the harness could not inject it as planned (the evidence says why). */
  injected: boolean;
  /** A planned restart: from SIGTERM to the process's exit. */
  drainMs?: number;
}

type Inject = () => Promise<{ evidence: string; injected: boolean; restoredAt?: number; drainMs?: number }>;

/** What a fault plan works with: the fleet and its stores, and `fault` to record each fault it injects. */
export interface FaultContext {
  profile: ChaosProfile;
  fleet: ChaosFleet;
  redis: OwnRedis;
  front: FrontProxy;
  key: string;
  databaseUrl: string;
  enter(name: string): void;
  fault(name: FaultName, what: string, inject: Inject): Promise<void>;
}

/** The faults of a run, in sequence, between the warm-up and the cool-down. */
export type FaultPlan = (ctx: FaultContext) => Promise<void>;

export interface ScenarioOptions {
  /** Default: the five faults of the chaos test (chaosFaults). */
  plan?: FaultPlan;
  /** The load goes through the front proxy, as clients behind a load balancer do (default: to each API process in turn). */
  throughFront?: boolean;
}

export interface FinalProbe {
  name: string;
  pid: number;
  alive: boolean;
  healthz?: number | string;
  readyz?: number | string;
  readyzBody?: string;
}

export interface ChaosRun {
  profile: ChaosProfile;
  startedAt: number;
  loadStartedAt: number;
  loadStoppedAt: number;
  faults: FaultRecord[];
  /** When each phase began (warm-up, each fault, redis-restored, cool-down, quiesce). */
  phases: Array<{ name: string; at: number }>;
  load: ChaosLoad;
  readiness: ReadinessSampler;
  fleet: ChaosFleet;
  receiver: WebhookReceiver;
  userId: string;
  /** True when every task, run and webhook delivery ended before the deadline. */
  quiesced: boolean;
  quiescedAt: number;
  store: StoreState;
  /** `ledger verify` after quiescence. */
  ledgerMismatches: LedgerMismatch[];
  probes: FinalProbe[];
  databaseUrl: string;
  dispose(): Promise<void>;
}

const RECOVERY_WINDOW_MS = 20_000;

/**
 * The chaos scenario shared by test/chaos and bench/chaos: 2 API and 2 worker processes on a fresh
 * PostgreSQL schema and the run's own Redis, fake upstreams that fail, hang and call back late, a
 * webhook receiver that fails first attempts, load throughout, and five faults in sequence with
 * recovery between them. Processes that die unplanned are recorded and restarted (a supervisor), so
 * that one broken property does not hide the others. It returns what happened; judging is the
 * caller's (test/support/chaos/checks.ts).
 */
export async function runChaosScenario(profile: ChaosProfile, log: (line: string) => void = () => {}, options: ScenarioOptions = {}): Promise<ChaosRun> {
  const startedAt = Date.now();
  let phase = 'setup';
  const phases: Array<{ name: string; at: number }> = [];
  const enter = (name: string) => {
    phase = name;
    phases.push({ name, at: Date.now() });
  };
  const cleanups: Array<() => Promise<void>> = [];
  const dispose = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  };
  try {
    const redis: OwnRedis = await startOwnRedis();
    cleanups.push(() => redis.stop());
    const upstreams: ChaosUpstreams = await startChaosUpstreams();
    cleanups.push(() => upstreams.close());
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    let fleet: ChaosFleet | undefined;
    const front: FrontProxy = await startFrontProxy(() => fleet?.liveApiUrls() ?? []);
    cleanups.push(() => front.close());
    const stores: SharedStores = await createSharedStores(
      'scaleout',
      { ...upstreams.config, worker: { leaseMs: profile.leaseMs }, chat: { maxOutputTokens: 256 } },
      { redisUrl: redis.url },
    );
    cleanups.push(() => stores.dispose());
    fleet = new ChaosFleet(stores, { apis: 2, workers: 2, env: { PUBLIC_BASE_URL: front.url, LOG_LEVEL: 'warn' }, phase: () => phase, supervise: true });
    const ownFleet = fleet;
    cleanups.push(() => ownFleet.stop());
    await fleet.start();
    log(`fleet up in ${Date.now() - startedAt} ms: ${fleet.members().map((m) => `${m.name}=${m.pid}`).join(' ')}`);

    const api0 = fleet.apiUrl(0);
    const admin = async <T>(path: string, body: unknown): Promise<T> => {
      const res = await fetch(api0 + path, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const user = await admin<{ id: string }>('/admin/v1/users', { balanceCents: 100_000 });
    const { key } = await admin<{ key: string }>(`/admin/v1/users/${user.id}/api-keys`, { name: 'chaos' });

    const load = new ChaosLoad({ fleet, key, webhookUrl: receiver.url, phase: () => phase, ...profile, ...(options.throughFront ? { via: front.url } : {}) });
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    const faults: FaultRecord[] = [];
    const readiness = sampleReadiness(ownFleet, () => phase);
    cleanups.push(() => readiness.stop());
    const fault = async (name: FaultName, what: string, inject: Inject) => {
      enter(name);
      const injectedAt = Date.now();
      log(`fault ${name}: ${what}`);
      const done = await inject();
      const record: FaultRecord = { name, what, injectedAt, restoredAt: done.restoredAt ?? injectedAt, readyAt: undefined, evidence: done.evidence, injected: done.injected, ...(done.drainMs !== undefined ? { drainMs: done.drainMs } : {}) };
      faults.push(record);
      await sleep(profile.settleMs);
      await ownFleet.settled();
    };

    enter('warm-up');
    const loadStartedAt = Date.now();
    load.start();
    await sleep(profile.warmupMs);

    await (options.plan ?? chaosFaults)({ profile, fleet: ownFleet, redis, front, key, databaseUrl: stores.env.DATABASE_URL ?? '', enter, fault });

    enter('cool-down');
    await sleep(profile.settleMs);
    await load.stop();
    const loadStoppedAt = Date.now();
    await readiness.stop();
    for (const f of faults) f.readyAt = readiness.readyAfter(f.restoredAt, f.restoredAt + RECOVERY_WINDOW_MS);
    log(`load stopped: ${load.creates.length} create posts, ${load.chats.length} chat streams, ${load.agents.length} agent messages`);

    enter('quiesce');
    const databaseUrl = stores.env.DATABASE_URL ?? '';
    const deadline = Date.now() + profile.quiesceTimeoutMs;
    let store = await readStore(databaseUrl);
    while (!store.quiet && Date.now() < deadline) {
      await sleep(500);
      store = await readStore(databaseUrl);
    }
    const quiescedAt = Date.now();
    log(`${store.quiet ? 'quiet' : 'NOT quiet'} after ${quiescedAt - loadStoppedAt} ms`);
    await ownFleet.settled();
    const probes = await probeFleet(ownFleet);
    const ledgerMismatches = await verifyStoreLedger(databaseUrl);
    enter('checks');
    return {
      profile,
      startedAt,
      loadStartedAt,
      loadStoppedAt,
      faults,
      phases,
      load,
      readiness,
      fleet,
      receiver,
      userId: user.id,
      quiesced: store.quiet,
      quiescedAt,
      store,
      ledgerMismatches,
      probes,
      databaseUrl,
      dispose,
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}

/** The chaos test's faults: SIGKILL an API process and a worker, a Redis outage, dropped database connections, a worker paused past its lease. */
export const chaosFaults: FaultPlan = async ({ profile, fleet, redis, enter, fault }) => {
  const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
  await fault('sigkill-api', 'SIGKILL api-0 and start a replacement', async () => {
    const { killed, replacement } = await fleet.killAndReplace('api', 0);
    return { evidence: `api-0 pid ${killed.pid} exited by ${killed.exit?.signal ?? killed.exit?.code}; replacement pid ${replacement.pid}`, injected: killed.exit?.signal === 'SIGKILL' };
  });
  await fault('sigkill-worker', 'SIGKILL worker-0 and start a replacement', async () => {
    const { killed, replacement } = await fleet.killAndReplace('worker', 0);
    return { evidence: `worker-0 pid ${killed.pid} exited by ${killed.exit?.signal ?? killed.exit?.code}; replacement pid ${replacement.pid}`, injected: killed.exit?.signal === 'SIGKILL' };
  });
  await fault('redis-outage', `SIGKILL the run's Redis, restart it after ${profile.redisOutageMs} ms`, async () => {
    await redis.kill();
    const refused = !(await redis.isUp());
    await sleep(profile.redisOutageMs);
    await redis.restart();
    const restoredAt = Date.now();
    enter('redis-restored');
    return { evidence: `Redis on port ${redis.port} ${refused ? 'refused connections' : 'still answered (!)'} during the outage; restarted`, injected: refused, restoredAt };
  });
  await fault('pg-terminate', 'pg_terminate_backend on every PostgreSQL connection of the fleet', async () => {
    const terminated = await fleet.terminateDatabaseConnections();
    return { evidence: `${terminated} connections terminated (application_name ${fleet.applicationPrefix}_*)`, injected: terminated > 0 };
  });
  await fault('sigstop-worker', `SIGSTOP worker-1 for ${2 * profile.leaseMs + 1000} ms (its lease is ${profile.leaseMs} ms), then SIGCONT`, async () => {
    const paused = fleet.pause('worker', 1);
    await sleep(2 * profile.leaseMs + 1000);
    fleet.resume(paused);
    const restoredAt = Date.now();
    return { evidence: `worker-1 pid ${paused.pid} stopped and continued${paused.exit ? `, but it exited meanwhile (${paused.exit.signal ?? paused.exit.code})` : ''}`, injected: paused.exit === undefined || paused.exit.at >= restoredAt, restoredAt };
  });
};

/** Every current process: alive; the API ones answer /healthz, and /readyz (given a few seconds to reach 200). */
async function probeFleet(fleet: ChaosFleet): Promise<FinalProbe[]> {
  return Promise.all(
    fleet.members().map(async (m) => {
      const alive = m.exit === undefined && m.process.child.exitCode === null;
      if (m.role !== 'api') return { name: m.name, pid: m.pid, alive };
      const healthz = await probeStatus(`${m.url}/healthz`);
      let readyz: number | string = 'unprobed';
      let readyzBody = '';
      const deadline = Date.now() + 5_000;
      do {
        try {
          const res = await fetch(`${m.url}/readyz`, { signal: AbortSignal.timeout(2_000) });
          readyz = res.status;
          readyzBody = await res.text();
        } catch (error) {
          readyz = (error as Error).name === 'TimeoutError' ? 'timeout' : 'refused';
        }
        if (readyz === 200) break;
        await new Promise((r) => setTimeout(r, 250));
      } while (Date.now() < deadline);
      return { name: m.name, pid: m.pid, alive, healthz, readyz, readyzBody };
    }),
  );
}
