/**
 * bench/json-body (the event-loop rule on large JSON bodies): a gateway in its own process receives
 * 16 MiB bodies while /healthz is timed back to back from another connection; the figure is the
 * slowest health check minus the median, first with no payload (the idle baseline), then around each
 * payload. Payloads: 16 MiB of tiny arrays (`[],` five million times, refused) to /generation/estimate
 * and /chat/completions, and a legitimate chat with a 16 MiB base64 picture (accepted and answered).
 *
 * On a machine shared with other work the probe's figure is mostly the neighbours', so the gateway
 * also measures itself (support/loop-hold-meter.ts): the longest stretch of its main thread's CPU time
 * between two turns of its loop, which neighbours do not stretch. Both are printed; each row is the
 * median of the rounds, with the best and worst.
 *
 *   node bench/json-body.ts [--rounds 5] [--smoke]   (--smoke: one round, 1 MiB payloads)
 */
import { randomBytes } from 'node:crypto';
import { probeHealthz } from '../test/support/healthz-probe.ts';
import { tinyArrays } from '../test/support/hostile/file-payloads.ts';
import { startChildGateway } from './support/child-gateway.ts';
import { loopHoldMeter } from './support/loop-holds.ts';
import { SMOKE } from './support/smoke.ts';

const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = Number(roundsArg > 0 ? process.argv[roundsArg + 1] : SMOKE ? 1 : 5);
/** The payloads' size: 16 MiB (1 MiB under --smoke). */
const SIZE = `${SMOKE ? 1 : 16} MiB`;
const MIB16 = (SMOKE ? 1 : 16) * 1024 * 1024;

function pictureChat(bytes: number): Buffer {
  const head = '{"model":"gpt-5.4-mini","max_tokens":16,"messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,';
  const tail = '"}}]}]}';
  const base64Chars = Math.floor(((bytes - head.length - tail.length) / 4) * 3);
  return Buffer.from(head + randomBytes(base64Chars).toString('base64').slice(0, bytes - head.length - tail.length) + tail);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const meter = loopHoldMeter();
const gateway = await startChildGateway({ store: 'sqlite', env: { LOG_LEVEL: 'warn', ...meter.env } });
const child = gateway.processes[0];
/** The gateway's own longest hold since the last call (CPU ms of its main thread, and the wall-clock gap). */
const holds = async () => {
  if (!child) throw new Error('no gateway process');
  return meter.read(child);
};
try {
  const { key } = await gateway.createUser(10_000);
  const post = async (path: string, body: Buffer): Promise<string> => {
    const res = await fetch(gateway.url + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.length),
    });
    const text = await res.text();
    return `${res.status} ${text.slice(0, 90).replace(/\s+/g, ' ')}`;
  };
  // Warm up: JIT, the key cache, the CPU pool's thread.
  const small = Buffer.from(JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] }));
  for (let i = 0; i < 3; i++) await post('/api/v1/chat/completions', small);
  await post('/api/v1/chat/completions', pictureChat(2 * 1024 * 1024));

  // Every payload is built before any probe runs: the probe shares this process's loop.
  const payloads: Array<[string, string, Buffer]> = [
    [`${SIZE} tiny arrays → /generation/estimate`, '/api/v1/generation/estimate', Buffer.from(tinyArrays('{"model":"z-image-turbo","input":{"prompt":"a fox","junk":', MIB16, '}'))],
    [`${SIZE} tiny arrays → /chat/completions`, '/api/v1/chat/completions', Buffer.from(tinyArrays('{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"hi"}],"metadata":', MIB16))],
    [`${SIZE} base64 picture → /chat/completions`, '/api/v1/chat/completions', pictureChat(MIB16)],
  ];

  interface Round {
    added: number;
    cpu: number;
    wall: number;
  }
  const measure = async (send: () => Promise<string>): Promise<Round & { answer: string }> => {
    const probe = probeHealthz(gateway.url);
    await sleep(300);
    await holds();
    const answer = await send();
    await sleep(300);
    const held = await holds();
    const seen = await probe.stop();
    return { added: seen.maxMs - seen.medianMs, cpu: held.maxCpuMs, wall: held.maxWallMs, answer };
  };

  const rows: Array<[string, Round[], string]> = [];
  const idle: Round[] = [];
  for (let i = 0; i < ROUNDS; i++) idle.push(await measure(async () => 'idle'));
  rows.push(['idle (no payload)', idle, '']);
  for (const [name, path, body] of payloads) {
    const rounds: Round[] = [];
    let answer = '';
    for (let i = 0; i < ROUNDS; i++) {
      const seen = await measure(() => post(path, body));
      rounds.push(seen);
      answer = seen.answer;
      await sleep(200);
    }
    rows.push([name, rounds, answer]);
  }

  const figure = (values: number[]) => {
    const sorted = [...values].sort((a, b) => a - b);
    return `${(sorted[Math.floor(sorted.length / 2)] ?? 0).toFixed(1)} (${(sorted[0] ?? 0).toFixed(1)}–${(sorted.at(-1) ?? 0).toFixed(1)})`;
  };
  console.log(`\nms, median of ${ROUNDS} rounds (best–worst), node ${process.version}:\n`);
  console.log('| payload | slowest /healthz − median | longest loop hold, main-thread CPU | longest loop gap, wall clock | answer |');
  console.log('|---|---|---|---|---|');
  for (const [name, rounds, answer] of rows) {
    console.log(`| ${name} | ${figure(rounds.map((r) => r.added))} | ${figure(rounds.map((r) => r.cpu))} | ${figure(rounds.map((r) => r.wall))} | ${answer} |`);
  }
} finally {
  await gateway.stop();
  meter.dispose();
}
