/**
 * bench/foundation: requests/s of GET /api/v1/user/me and POST /api/v1/generation/estimate as ratios to
 * the same server's /healthz, on SQLite and on PostgreSQL. The gateway runs in its own process with
 * production logging (info, one line per request); autocannon drives it from this process.
 *
 *   node bench/foundation.ts [--duration 4] [--connections 32] [--smoke]   (three alternating rounds, medians)
 *
 * `--smoke`: one round of 0.5 s per endpoint, no warm-up.
 */
import { postgresReachable, startChildGateway } from './support/child-gateway.ts';
import { type LoadResult, loadGenerator, median, runLoad, table } from './support/load.ts';
import { SMOKE } from './support/smoke.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const durationS = arg('duration', SMOKE ? 0.5 : 4);
const ROUNDS = SMOKE ? 1 : 3;
const WARM_UP_S = SMOKE ? 0 : 2;
const connections = arg('connections', 32);

const rows: Array<Record<string, string | number>> = [];
const stores: Array<'sqlite' | 'postgres'> = ['sqlite'];
if (await postgresReachable()) stores.push('postgres');
else console.log('PostgreSQL not reachable: measuring SQLite only');

for (const store of stores) {
  const gw = await startChildGateway({ store });
  try {
    const { key } = await gw.createUser(100_000);
    const auth = { authorization: `Bearer ${key}` };
    const estimateBody = JSON.stringify({ model: 'nano-banana-2', input: { prompt: 'a lighthouse at dusk', size: '16:9', resolution: '1K' } });
    const check = await fetch(`${gw.url}/api/v1/generation/estimate`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: estimateBody });
    if (!check.ok) throw new Error(`estimate failed: ${check.status} ${await check.text()}`);
    // Warm up JIT and caches.
    if (WARM_UP_S > 0) {
      await runLoad({ url: `${gw.url}/healthz`, durationS: WARM_UP_S, connections });
      await runLoad({ url: `${gw.url}/api/v1/user/me`, headers: auth, durationS: WARM_UP_S, connections });
    }

    // Three alternating rounds, medians: on a shared virtual machine one measurement can be off by a third.
    const rounds: Array<{ health: LoadResult; me: LoadResult; estimate: LoadResult }> = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push({
        health: await runLoad({ url: `${gw.url}/healthz`, durationS, connections }),
        me: await runLoad({ url: `${gw.url}/api/v1/user/me`, headers: auth, durationS, connections }),
        estimate: await runLoad({
          url: `${gw.url}/api/v1/generation/estimate`,
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: estimateBody,
          durationS,
          connections,
        }),
      });
    }
    const health = median(rounds.map((r) => r.health));
    const me = median(rounds.map((r) => r.me));
    const estimate = median(rounds.map((r) => r.estimate));
    for (const [name, r] of [['GET /healthz', health], ['GET /api/v1/user/me', me], ['POST /api/v1/generation/estimate', estimate]] as const) {
      rows.push({
        store,
        endpoint: name,
        'req/s': Math.round(r.requestsPerSecond),
        'ratio to /healthz': (r.requestsPerSecond / health.requestsPerSecond).toFixed(2),
        'p50 ms': r.p50Ms,
        'p99 ms': r.p99Ms,
        'errors+non2xx': r.errors + r.non2xx,
      });
    }
  } finally {
    await gw.stop();
  }
}
console.log(`\nbench/foundation (${loadGenerator}, ${connections} connections, ${durationS} s per endpoint)\n`);
console.log(table(rows));
