/**
 * The chat lane against the Fastify path of the same gateway process, in many short alternating
 * rounds (the shared machine's speed drifts within seconds): CPU µs per request of the gateway process,
 * and requests/s, medians over the rounds.
 *
 *   node bench/chat/lane-ab.ts [--rounds 12] [--duration 3]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startChildGateway } from '../support/child-gateway.ts';
import { runLoad } from '../support/load.ts';

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const rounds = Number(arg('rounds', '12'));
const durationS = Number(arg('duration', '3'));

const fake = spawn(process.execPath, ['bench/chat/fake-upstream.ts'], { stdio: ['ignore', 'pipe', 'inherit'] });
const fakePort = await new Promise<number>((resolve) => {
  let out = '';
  fake.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
    const m = /PORT (\d+)/.exec(out);
    if (m) resolve(Number(m[1]));
  });
});
fake.stdout?.resume();
const dir = mkdtempSync(join(tmpdir(), 'sb-lane-ab-'));
const configFile = join(dir, 'switchboard.json');
writeFileSync(configFile, JSON.stringify({ providers: { fake: { type: 'openai', baseUrl: `http://127.0.0.1:${fakePort}/v1`, apiKey: 'sk-bench', timeoutMs: 600_000 } }, routes: { 'gpt-5.4-mini': [{ provider: 'fake', model: 'fast' }] } }));
const gw = await startChildGateway({ store: 'sqlite', env: { SWITCHBOARD_CONFIG: configFile } });
try {
  const { key } = await gw.createUser(100_000_000);
  const pid = gw.processes[0]?.pid ?? 0;
  const cpu = (): number => {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(f[11]) + Number(f[12])) / 100;
  };
  const headers = { 'content-type': 'application/json', authorization: `Bearer ${key}` };
  const body = (stream: boolean) => JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Say something short about foxes.' }], max_tokens: 256, ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}) });
  const paths = { lane: '/api/v1/chat/completions', fastify: '/api/v1/chat/completions?path=fastify' };
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
  for (const stream of [false, true]) {
    const samples: Record<string, { rps: number[]; us: number[] }> = { lane: { rps: [], us: [] }, fastify: { rps: [], us: [] } };
    const ratios: number[] = [];
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? (['lane', 'fastify'] as const) : (['fastify', 'lane'] as const);
      const us: Record<string, number> = {};
      for (const name of order) {
        const options = { url: `${gw.url}${paths[name]}`, method: 'POST' as const, headers, body: body(stream), connections: 32 };
        await runLoad({ ...options, durationS: 1 });
        const c0 = cpu();
        const r = await runLoad({ ...options, durationS });
        us[name] = ((cpu() - c0) * 1e6) / (r.requestsPerSecond * durationS);
        samples[name]?.rps.push(r.requestsPerSecond);
        samples[name]?.us.push(us[name] ?? 0);
        if (r.errors + r.non2xx > 0) console.log(`${name}: ${r.errors} errors, ${r.non2xx} non-2xx`);
      }
      ratios.push((us.fastify ?? 0) / (us.lane ?? 1));
    }
    const mode = stream ? 'streaming' : 'non-streaming';
    for (const name of ['lane', 'fastify']) {
      const s = samples[name];
      if (s) console.log(`${mode} ${name}: req/s median ${Math.round(median(s.rps))}, CPU µs/req median ${median(s.us).toFixed(1)} (rounds: ${s.us.map((x) => x.toFixed(0)).join(' ')})`);
    }
    console.log(`${mode} Fastify/lane CPU per request, per round: median ${median(ratios).toFixed(3)} (${ratios.map((x) => x.toFixed(2)).join(' ')})`);
  }
} finally {
  await gw.stop();
  fake.kill('SIGTERM');
}
