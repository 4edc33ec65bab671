import { ADMIN_TOKEN } from '../gateway.ts';
import { createSharedStores, type GatewayProcess, spawnGateway } from '../processes.ts';
import { verifyLedger } from '../../../src/adapters/db/ledger/ledger-checks.ts';
import type { LedgerMismatch } from '../../../src/adapters/db/ledger/ledger-checks.ts';
import { openDatabase } from '../../../src/adapters/db/open-database.ts';
import { startFrontProxy } from './front-proxy.ts';
import { ChaosLoad } from './load.ts';
import { ROLLING_PROFILE } from './rolling-restart.ts';
import { TERMINAL_TASK } from './store-state.ts';
import { startChaosUpstreams } from './upstreams.ts';
import { startWebhookReceiver } from './webhook-receiver.ts';

export interface EmbeddedRestartRun {
  load: ChaosLoad;
  drains: Array<{ pid: number; exitCode: number | null; drainMs: number }>;
  /** Tasks still not ended when the wait for them ran out (id: status). */
  unended: string[];
  ledgerMismatches: LedgerMismatch[];
  dispose(): Promise<void>;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * A rolling restart of the embedded mode, which is one process on SQLite: SIGTERM, the process drains
 * and exits, a new one starts on the same port. The client (a front that retries a refused connection
 * until the new process listens, for up to 30 s) sees no failed request; every task ends; the ledger
 * verifies. `restarts` restarts under load, `settleMs` apart.
 */
export async function runEmbeddedRestart(restarts = 2, log: (line: string) => void = () => {}): Promise<EmbeddedRestartRun> {
  const cleanups: Array<() => Promise<void>> = [];
  const dispose = async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => {});
  };
  try {
    const upstreams = await startChaosUpstreams();
    cleanups.push(() => upstreams.close());
    const receiver = await startWebhookReceiver();
    cleanups.push(() => receiver.close());
    const stores = await createSharedStores('embedded', { ...upstreams.config, worker: { leaseMs: ROLLING_PROFILE.leaseMs }, chat: { maxOutputTokens: 256 } });
    cleanups.push(() => stores.dispose());
    let current: GatewayProcess = await spawnGateway(stores, 'all', { LOG_LEVEL: 'warn' });
    cleanups.push(async () => {
      await Promise.race([current.stop(), sleep(10_000)]);
      await current.kill();
    });
    const port = Number(new URL(current.url).port);
    const front = await startFrontProxy(() => [current.url], { retryRefusedMs: 30_000 });
    cleanups.push(() => front.close());

    const admin = async <T>(path: string, body: unknown): Promise<T> => {
      const res = await fetch(front.url + path, { method: 'POST', headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (!res.ok) throw new Error(`admin ${path}: ${res.status} ${await res.text()}`);
      return (await res.json()) as T;
    };
    const user = await admin<{ id: string }>('/admin/v1/users', { balanceCents: 100_000 });
    const { key } = await admin<{ key: string }>(`/admin/v1/users/${user.id}/api-keys`, { name: 'rolling' });

    let phase = 'warm-up';
    const load = new ChaosLoad({ key, webhookUrl: receiver.url, phase: () => phase, ...ROLLING_PROFILE, via: front.url, requestTimeoutMs: 40_000 });
    load.start();
    await sleep(ROLLING_PROFILE.warmupMs);
    const drains: EmbeddedRestartRun['drains'] = [];
    for (let i = 0; i < restarts; i++) {
      phase = `restart-${i + 1}`;
      const signalledAt = Date.now();
      const pid = current.child.pid ?? -1;
      await current.stop();
      const drain = { pid, exitCode: current.child.exitCode, drainMs: Date.now() - signalledAt };
      drains.push(drain);
      current = await spawnGateway(stores, 'all', { LOG_LEVEL: 'warn' }, { port });
      log(`restart ${i + 1}: pid ${pid} drained in ${drain.drainMs} ms (exit ${drain.exitCode}), serving again after ${Date.now() - signalledAt} ms as pid ${current.child.pid}`);
      await sleep(ROLLING_PROFILE.settleMs);
    }
    phase = 'cool-down';
    await load.stop();
    log(`load stopped: ${load.creates.length} creates, ${load.chats.length} chat streams, ${load.agents.length} agent messages`);

    // Every accepted task ends (read through the API: the process holds the SQLite file).
    const taskIds = [...new Set(load.creates.map((c) => c.taskId).filter((id): id is string => id !== undefined))];
    const deadline = Date.now() + ROLLING_PROFILE.quiesceTimeoutMs;
    let unended = taskIds.map((id) => `${id}: unread`);
    while (unended.length > 0 && Date.now() < deadline) {
      // A few reads at a time, as a client would: hundreds at once from one address meet the
      // gateway's per-address connection cap, and a reset read is read again next round.
      const statuses: Array<{ id: string; status: string }> = [];
      for (let at = 0; at < taskIds.length; at += 16) {
        const batch = taskIds.slice(at, at + 16);
        statuses.push(
          ...(await Promise.all(
            batch.map(async (id) => {
              try {
                const res = await fetch(`${front.url}/api/v1/task/status/${id}`, { headers: { authorization: `Bearer ${key}` } });
                const status = ((await res.json()) as { data?: { status?: string } }).data?.status ?? `http ${res.status}`;
                return { id, status };
              } catch (error) {
                return { id, status: `unread (${error instanceof Error ? error.message : String(error)})` };
              }
            }),
          )),
        );
      }
      unended = statuses.filter((s) => !TERMINAL_TASK.has(s.status)).map((s) => `${s.id}: ${s.status}`);
      if (unended.length > 0) await sleep(500);
    }
    await current.stop();
    const handle = openDatabase({ databaseUrl: undefined, dataDir: stores.env.DATA_DIR ?? '', postgresPoolSize: 1 });
    let ledgerMismatches: LedgerMismatch[];
    try {
      ledgerMismatches = await verifyLedger(handle.db);
    } finally {
      await handle.close();
    }
    return { load, drains, unended, ledgerMismatches, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}
