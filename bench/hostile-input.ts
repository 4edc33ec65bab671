/**
 * bench/hostile-input: how long each hostile payload of issue 17 keeps the gateway's other requests
 * waiting, against the same gateway idle. The payloads are the tests' (test/support/hostile/): the
 * files and bodies, on an embedded gateway with no upstreams, and the `outputSchema`s, on one whose
 * model is a scripted orchestrator. Each gateway runs in its own process while this one times
 * GET /healthz back to back on its own connection; "added" is the slowest health check minus the
 * median of the same window. Every payload is sent `--rounds` times: one that holds the event loop
 * does so every time, while a slow check caused by the machine is chance, so the verdict uses the
 * smallest figure. Prints a table and exits 1 when a payload's smallest figure passes the 50 ms rule or
 * a payload was answered wrongly. Run it on a quiet machine:
 *
 *   node bench/hostile-input.ts [--rounds 3] [--only files|schemas]
 */
import { ScriptedOrchestrator } from '../test/fakes/scripted-orchestrator.ts';
import { clientFor } from '../test/support/agent.ts';
import { ADMIN_TOKEN, type TestGateway } from '../test/support/gateway.ts';
import { filePayloads } from '../test/support/hostile/file-payloads.ts';
import { type HostilePayload, type LoopFigure, measureLoop } from '../test/support/hostile/measure.ts';
import { schemaPayloads } from '../test/support/hostile/schema-payloads.ts';
import { call, createSharedStores, type GatewayProcess, spawnGateway } from '../test/support/processes.ts';
import { table } from './support/load.ts';

/** The rule of the guide: no request holds the loop for more than about 50 ms. */
const BOUND_MS = 50;

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const ROUNDS = Number(arg('rounds') ?? 3);
const ONLY = arg('only');

interface Row {
  payload: string;
  figures: LoopFigure[];
  wrong?: string;
}

async function measureSet(gateway: GatewayProcess, payloads: HostilePayload[]): Promise<{ idle: LoopFigure[]; rows: Row[] }> {
  const pid = gateway.child.pid as number;
  const idle: LoopFigure[] = [];
  for (let round = 0; round < ROUNDS; round++) idle.push(await measureLoop(gateway.url, pid, 'idle'));
  const rows: Row[] = [];
  for (const payload of payloads) {
    const row: Row = { payload: payload.name, figures: [] };
    for (let round = 0; round < ROUNDS; round++) {
      try {
        row.figures.push(await measureLoop(gateway.url, pid, payload.name, payload.send));
      } catch (error) {
        row.wrong = error instanceof Error ? error.message.split('\n')[0] : String(error);
        break;
      }
      process.stderr.write(`${payload.name}, round ${round + 1}: +${row.figures.at(-1)?.addedMs.toFixed(0)} ms\n`);
    }
    rows.push(row);
  }
  return { idle, rows };
}

async function newUser(url: string): Promise<{ id: string; key: string }> {
  const user = (await call(url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 100_000 })).body as { id: string };
  const key = ((await call(url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
  return { id: user.id, key };
}

async function filesSet(): Promise<{ idle: LoopFigure[]; rows: Row[] }> {
  const stores = await createSharedStores('embedded', {});
  const gateway = await spawnGateway(stores);
  try {
    const user = await newUser(gateway.url);
    const c = clientFor({ url: gateway.url } as TestGateway, user.key, user.id);
    // Warm up: JIT, the key cache, the first run of each path.
    for (let i = 0; i < 3; i++) await c.call('POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
    return await measureSet(gateway, await filePayloads(c, gateway.url));
  } finally {
    await gateway.kill();
    await stores.dispose();
  }
}

async function schemasSet(): Promise<{ idle: LoopFigure[]; rows: Row[] }> {
  const orchestrator = await ScriptedOrchestrator.start('openai');
  const stores = await createSharedStores('embedded', { providers: { orch: orchestrator.provider() }, routes: { 'gpt-5.4-mini': ['orch'] } });
  const gateway = await spawnGateway(stores);
  try {
    const user = await newUser(gateway.url);
    return await measureSet(gateway, schemaPayloads(gateway.url, user.key, orchestrator));
  } finally {
    await gateway.kill();
    await stores.dispose();
    await orchestrator.close();
  }
}

const ms = (n: number) => n.toFixed(0);
const smallest = (figures: LoopFigure[]) => Math.min(...figures.map((f) => f.addedMs));
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const sets: Array<[string, () => Promise<{ idle: LoopFigure[]; rows: Row[] }>]> = [
  ['files', filesSet],
  ['schemas', schemasSet],
];
let failed = false;
for (const [name, run] of sets) {
  if (ONLY && ONLY !== name) continue;
  const { idle, rows } = await run();
  const idleAdded = median(idle.map((f) => f.addedMs));
  console.log(`\n${name}: idle gateway, slowest /healthz minus median over ${ROUNDS} windows of 2 s: ${idle.map((f) => ms(f.addedMs)).join(', ')} ms (median ${ms(idleAdded)} ms)\n`);
  console.log(
    table(
      rows.map((row) => {
        const least = row.figures.length ? smallest(row.figures) : Number.NaN;
        const over = row.wrong !== undefined || !(least <= BOUND_MS);
        failed ||= over;
        return {
          payload: row.payload,
          'added, each round (ms)': row.figures.map((f) => ms(f.addedMs)).join(', '),
          'smallest (ms)': ms(least),
          'smallest / idle': idleAdded > 0 ? (least / idleAdded).toFixed(1) : '-',
          'peak RSS (MB)': row.figures.length ? ms(Math.max(...row.figures.map((f) => f.peakRssBytes)) / 1e6) : '-',
          verdict: row.wrong !== undefined ? `wrong answer: ${row.wrong}` : over ? `over ${BOUND_MS} ms` : 'ok',
        };
      }),
    ),
  );
}
process.exitCode = failed ? 1 : 0;
