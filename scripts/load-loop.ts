/**
 * A small load for trying scale-out on one machine (docs/deploy.md, "Try it on one machine without
 * containers"): media creates (the built-in local provider's image model) each polled until its task
 * ends, and streamed chat completions, spread over several API processes in turn. A refused
 * connection (nothing listens: a process restarting) never reached a process, so it is sent again to
 * the next address, as a load balancer would; anything else that goes wrong counts as failed.
 *
 *   node scripts/load-loop.ts --urls http://127.0.0.1:8080,http://127.0.0.1:8081 --key sb_… \
 *     [--seconds 60] [--creates 2] [--chats 2]
 *
 * Runs for --seconds (0: until SIGINT or SIGTERM), lets what is in flight finish, then prints the
 * totals: requests, failed, tasks finished. Exits 1 when anything failed.
 */
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    urls: { type: 'string' },
    key: { type: 'string', default: process.env.SB_KEY ?? '' },
    seconds: { type: 'string', default: '60' },
    creates: { type: 'string', default: '2' },
    chats: { type: 'string', default: '2' },
    'image-model': { type: 'string', default: 'nano-banana-2' },
    'chat-model': { type: 'string', default: 'gpt-5.4-mini' },
  },
});

function count(name: string, value: string | undefined, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > max) {
    process.stderr.write(`--${name} must be a whole number from 0 to ${max}, got ${value}\n`);
    process.exit(2);
  }
  return n;
}

const urls = (values.urls ?? '').split(',').map((u) => u.trim().replace(/\/+$/, '')).filter(Boolean);
if (urls.length === 0 || urls.some((u) => !URL.canParse(u))) {
  process.stderr.write('--urls must be one or more base URLs separated by commas (http://127.0.0.1:8080,…)\n');
  process.exit(2);
}
if (!values.key) {
  process.stderr.write('--key (or SB_KEY) must be a Switchboard API key\n');
  process.exit(2);
}
const seconds = count('seconds', values.seconds, 86_400);
const createLoops = count('creates', values.creates, 64);
const chatLoops = count('chats', values.chats, 64);

/** A refused request goes to the next address; after this many refusals in a row it has failed. */
const MAX_REFUSALS = 100;
const REFUSED_PAUSE_MS = 100;
const REQUEST_TIMEOUT_MS = 60_000;
/** A task not ended after this long counts as failed (the local provider takes a second or two). */
const TASK_PATIENCE_MS = 120_000;
const POLL_MS = 500;
/** Failures are counted all; the first few are printed with their reason. */
const FAILURES_SHOWN = 20;

const totals = { requests: 0, failed: 0, refusedAndResent: 0, creates: 0, tasksFinished: 0, tasksFailed: 0, chats: 0, chatsCompleted: 0 };
const failures: string[] = [];
let turn = 0;
let running = true;

function fail(what: string): void {
  totals.failed += 1;
  if (failures.length < FAILURES_SHOWN) failures.push(what);
}

/** A body's JSON, or undefined when it is not JSON (a proxy's error page, say). */
function json<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function refused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } }).cause;
  return cause?.code === 'ECONNREFUSED';
}

/** One request, to the addresses in turn; a refused connection is sent to the next one. */
async function send(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ res: Response; url: string } | undefined> {
  totals.requests += 1;
  for (let refusals = 0; ; refusals++) {
    const url = urls[turn++ % urls.length] ?? '';
    try {
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${values.key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      return { res, url };
    } catch (error) {
      if (refused(error) && refusals < MAX_REFUSALS) {
        totals.refusedAndResent += 1;
        // Every address refused in this round: give the restarting processes a moment.
        if ((refusals + 1) % urls.length === 0) await sleep(REFUSED_PAUSE_MS);
        continue;
      }
      const cause = (error as { cause?: { message?: string } }).cause;
      fail(`${method} ${url}${path}: ${(error as Error).message}${cause?.message ? ` (${cause.message})` : ''}`);
      return undefined;
    }
  }
}

async function createAndWait(n: number): Promise<void> {
  totals.creates += 1;
  const created = await send('POST', '/api/v1/generation/create', { model: values['image-model'], input: { prompt: `load-loop image ${n}`, size: '1:1' } }, { 'idempotency-key': randomUUID() });
  if (!created) return;
  const text = await created.res.text();
  const taskId = json<{ data?: { taskId?: string } }>(text)?.data?.taskId;
  if (!created.res.ok || !taskId) return fail(`create on ${created.url}: ${created.res.status} ${text.slice(0, 200)}`);
  const deadline = Date.now() + TASK_PATIENCE_MS;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    const polled = await send('GET', `/api/v1/task/status/${taskId}`);
    if (!polled) return;
    const body = await polled.res.text();
    if (!polled.res.ok) return fail(`status of ${taskId} on ${polled.url}: ${polled.res.status} ${body.slice(0, 200)}`);
    const status = json<{ data?: { status?: string } }>(body)?.data?.status;
    if (status === 'finished') {
      totals.tasksFinished += 1;
      return;
    }
    if (status === 'failed' || status === 'expired') {
      totals.tasksFailed += 1;
      return fail(`task ${taskId} ended ${status}`);
    }
  }
  fail(`task ${taskId} did not end within ${TASK_PATIENCE_MS / 1000} s`);
}

async function streamChat(n: number): Promise<void> {
  totals.chats += 1;
  const sent = await send('POST', '/api/v1/chat/completions', {
    model: values['chat-model'],
    stream: true,
    max_tokens: 64,
    messages: [{ role: 'user', content: `load-loop chat ${n}: say something short` }],
  });
  if (!sent) return;
  if (!sent.res.ok || !sent.res.body) return fail(`chat on ${sent.url}: ${sent.res.status} ${(await sent.res.text()).slice(0, 200)}`);
  let tail = '';
  try {
    for await (const chunk of sent.res.body.pipeThrough(new TextDecoderStream())) {
      // Only the end matters: keep a short tail rather than the whole stream.
      tail = (tail + chunk).slice(-256);
    }
  } catch (error) {
    return fail(`chat stream on ${sent.url} broke: ${(error as Error).message}`);
  }
  if (!tail.includes('data: [DONE]')) return fail(`chat stream on ${sent.url} ended without [DONE]: …${tail.slice(-120)}`);
  totals.chatsCompleted += 1;
}

async function loop(step: (n: number) => Promise<void>): Promise<void> {
  for (let n = 0; running; n++) await step(n);
}

const startedAt = Date.now();
const stop = () => {
  running = false;
};
process.once('SIGINT', stop);
process.once('SIGTERM', stop);
if (seconds > 0) setTimeout(stop, seconds * 1000).unref();

// Progress on stderr every 5 s, so a rolling restart can be watched.
const progress = setInterval(() => {
  process.stderr.write(`${Math.round((Date.now() - startedAt) / 1000)} s: ${JSON.stringify(totals)}\n`);
}, 5_000);
await Promise.all([...Array.from({ length: createLoops }, () => loop(createAndWait)), ...Array.from({ length: chatLoops }, () => loop(streamChat))]);
clearInterval(progress);

for (const failure of failures) process.stdout.write(`failed: ${failure}\n`);
process.stdout.write(
  `${Math.round((Date.now() - startedAt) / 1000)} s against ${urls.length} addresses: requests ${totals.requests}, failed ${totals.failed}, ` +
    `refused and resent ${totals.refusedAndResent}, creates ${totals.creates}, tasks finished ${totals.tasksFinished}, tasks failed ${totals.tasksFailed}, ` +
    `chat streams ${totals.chats} (${totals.chatsCompleted} completed)\n`,
);
process.exit(totals.failed > 0 ? 1 : 0);
