/**
 * bench/stats: latency of GET /api/v1/stats over a large history. Loads one million media tasks and
 * one million chat requests (2,000 users with a Zipf-like spread of activity, a year of history that
 * grows towards today, busier during the UTC day, mostly finished, some failed and refunded) straight
 * into the store, then times sequential requests of a gateway in its own process, on SQLite and on
 * PostgreSQL (when reachable), and prints p50/p99 per scenario. The target is p99 <= 100 ms for a 30-day
 * range on SQLite.
 *
 *   node bench/stats.ts [--tasks 1000000] [--chats 1000000] [--requests 300] [--smoke]   (--smoke: 5,000 of each, 5 requests)
 */
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import pg from 'pg';
import { Catalog } from '../src/domain/catalog/catalog.ts';
import { usdToMicro } from '../src/domain/money.ts';
import { type ChildGateway, postgresReachable, startChildGateway } from './support/child-gateway.ts';
import { table } from './support/load.ts';
import { SMOKE } from './support/smoke.ts';

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const TASKS = arg('tasks', SMOKE ? 5_000 : 1_000_000);
const CHATS = arg('chats', SMOKE ? 5_000 : 1_000_000);
const REQUESTS = arg('requests', SMOKE ? 5 : 300);
const USERS = 2_000;
const HISTORY_DAYS = 365;
const DAY = 86_400_000;

// A small deterministic generator, so both stores get the same history.
let seed = 42;
const random = () => {
  // mulberry32
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
};
const pick = <T>(items: readonly T[], cdf: number[]): T => {
  const r = random() * (cdf.at(-1) ?? 1);
  let lo = 0;
  let hi = cdf.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((cdf[mid] ?? 0) < r) lo = mid + 1;
    else hi = mid;
  }
  return items[lo] as T;
};
const cumulative = (weights: number[]) => {
  let sum = 0;
  return weights.map((w) => (sum += w));
};

const catalog = Catalog.build({ models: {}, addedChatModels: [], addedMediaModels: [] } as unknown as Parameters<typeof Catalog.build>[0]);
const media = catalog.list().filter((m) => m.kind === 'media');
const chatModels = catalog.list().filter((m) => m.kind === 'llm');
// Images are the bulk of requests, videos the bulk of the money.
const mediaCdf = cumulative(media.map((m) => (m.type === 'IMAGE' ? 10 : m.type === 'VIDEO' ? 3 : 1)));
const chatCdf = cumulative(chatModels.map((_, i) => 1 / (i + 1)));
const userIds = Array.from({ length: USERS }, (_, i) => `usr_bench${String(i).padStart(6, '0')}`);
const userCdf = cumulative(userIds.map((_, i) => 1 / (i + 1) ** 1.05));
// Growth towards today and a daily rhythm (busier in the UTC afternoon).
const dayCdf = cumulative(Array.from({ length: HISTORY_DAYS }, (_, d) => 0.3 + (d / HISTORY_DAYS) ** 2));
const hourCdf = cumulative(Array.from({ length: 24 }, (_, h) => 1 + Math.sin(((h - 8) / 24) * 2 * Math.PI) * 0.8));
const days = Array.from({ length: HISTORY_DAYS }, (_, d) => d);
const hours = Array.from({ length: 24 }, (_, h) => h);

const now = Date.now();
const firstDay = Math.floor(now / DAY) - HISTORY_DAYS + 1;
const randomTime = () => {
  const t = (firstDay + pick(days, dayCdf)) * DAY + pick(hours, hourCdf) * 3_600_000 + Math.floor(random() * 3_600_000);
  return Math.min(t, now - 1);
};

interface TaskRowLite {
  id: string;
  user_id: string;
  model: string;
  family: string;
  type: string;
  input_json: string;
  status: string;
  cost_micro: number;
  price_tier: string;
  price_unit: string;
  files_json: string | null;
  refunded_micro: number;
  created_at: number;
  finished_at: number | null;
  expires_at: number | null;
}

interface ChatRowLite {
  id: string;
  user_id: string;
  model: string;
  status: string;
  input_tokens: number;
  output_tokens: number;
  cost_micro: number;
  created_at: number;
}

const PROMPT = 'a cinematic shot of a lighthouse at dusk, waves crashing, volumetric light, 35mm film grain, ';

function makeTask(n: number): TaskRowLite {
  const createdAt = randomTime();
  const model = pick(media, mediaCdf);
  const tier = model.pricing.find((p) => p.isDefault) ?? model.pricing[0];
  const units = model.priceUnit === 'second' ? 5 + Math.floor(random() * 10) : 1;
  const cost = usdToMicro(tier?.price ?? '0.05') * units;
  const age = now - createdAt;
  const r = random();
  const status = age < 120_000 && r < 0.5 ? 'processing' : r < 0.04 ? 'failed' : age > 3 * DAY ? 'expired' : 'finished';
  return {
    id: `task_${createdAt.toString(36)}${n.toString(36).padStart(8, '0')}`,
    user_id: pick(userIds, userCdf),
    model: model.id,
    family: 'bench',
    type: model.type,
    input_json: JSON.stringify({ prompt: PROMPT.repeat(1 + (n % 3)), size: '16:9' }),
    status,
    cost_micro: cost,
    price_tier: tier?.key ?? 'default',
    price_unit: model.priceUnit,
    files_json: status === 'finished' ? JSON.stringify([{ blobKey: `bench${n}/out.png`, fileType: 'image', contentType: 'image/png', bytes: 123456 }]) : null,
    refunded_micro: status === 'failed' ? cost : 0,
    created_at: createdAt,
    finished_at: status === 'processing' ? null : createdAt + 20_000,
    expires_at: status === 'finished' || status === 'expired' ? createdAt + 3 * DAY : null,
  };
}

function makeChat(n: number): ChatRowLite {
  const createdAt = randomTime();
  const model = pick(chatModels, chatCdf);
  const input = 50 + Math.floor(random() ** 3 * 20_000);
  const output = 10 + Math.floor(random() ** 2 * 2_000);
  const failed = random() < 0.02;
  const inputPrice = usdToMicro(model.priceFrom ?? '1');
  return {
    id: `chat_${createdAt.toString(36)}${n.toString(36).padStart(8, '0')}`,
    user_id: pick(userIds, userCdf),
    model: model.id,
    status: failed ? 'failed' : 'succeeded',
    input_tokens: failed ? 0 : input,
    output_tokens: failed ? 0 : output,
    cost_micro: failed ? 0 : Math.round((input * inputPrice + output * inputPrice * 4) / 1_000_000),
    created_at: createdAt,
  };
}

/** Rows in batches sorted by time, as a live system appends them. */
function* batches<T extends { created_at: number }>(count: number, make: (n: number) => T, size: number): Generator<T[]> {
  for (let start = 0; start < count; start += size) {
    const batch = Array.from({ length: Math.min(size, count - start) }, (_, i) => make(start + i));
    batch.sort((a, b) => a.created_at - b.created_at);
    yield batch;
  }
}

const TASK_COLUMNS = ['id', 'user_id', 'model', 'family', 'type', 'input_json', 'measured_json', 'status', 'cost_micro', 'price_tier', 'price_unit', 'price_units', 'routes_json', 'files_json', 'refunded_micro', 'created_at', 'updated_at', 'finished_at', 'expires_at'];
const taskValues = (t: TaskRowLite) => [t.id, t.user_id, t.model, t.family, t.type, t.input_json, '[]', t.status, t.cost_micro, t.price_tier, t.price_unit, 1, '[{"provider":"local","model":"x"}]', t.files_json, t.refunded_micro, t.created_at, t.finished_at ?? t.created_at, t.finished_at, t.expires_at];
const CHAT_COLUMNS = ['id', 'user_id', 'model', 'protocol', 'provider', 'upstream_model', 'stream', 'status', 'input_tokens', 'output_tokens', 'hold_micro', 'cost_micro', 'latency_ms', 'created_at', 'finished_at'];
const chatValues = (c: ChatRowLite) => [c.id, c.user_id, c.model, 'openai', 'local', c.model, 1, c.status, c.input_tokens, c.output_tokens, c.cost_micro + 1000, c.cost_micro, 900, c.created_at, c.created_at + 900];
const USER_COLUMNS = ['id', 'email', 'password_hash', 'is_admin', 'balance_micro', 'webhook_secret', 'created_at'];
const userValues = (id: string, i: number) => [id, `bench${i}@example.com`, null, 0, 10_000_000, 'whsec_bench', now - HISTORY_DAYS * DAY];

async function loadSqlite(dataDir: string): Promise<void> {
  const db = new DatabaseSync(join(dataDir, 'switchboard.db'));
  db.exec('PRAGMA busy_timeout = 10000');
  const insert = (tableName: string, columns: string[]) => db.prepare(`INSERT INTO ${tableName} (${columns.join(',')}) VALUES (${columns.map(() => '?').join(',')})`);
  const users = insert('users', USER_COLUMNS);
  const tasks = insert('tasks', TASK_COLUMNS);
  const chats = insert('chat_requests', CHAT_COLUMNS);
  db.exec('BEGIN');
  for (const [i, id] of userIds.entries()) users.run(...(userValues(id, i) as Array<string | number | null>));
  db.exec('COMMIT');
  for (const batch of batches(TASKS, makeTask, 50_000)) {
    db.exec('BEGIN');
    for (const t of batch) tasks.run(...(taskValues(t) as Array<string | number | null>));
    db.exec('COMMIT');
  }
  for (const batch of batches(CHATS, makeChat, 50_000)) {
    db.exec('BEGIN');
    for (const c of batch) chats.run(...(chatValues(c) as Array<string | number | null>));
    db.exec('COMMIT');
  }
  db.close();
}

async function loadPostgres(databaseUrl: string): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query('SET synchronous_commit = off');
  const types = (tableName: string): Promise<Map<string, string>> =>
    client
      .query<{ column_name: string; data_type: string }>('SELECT column_name, data_type FROM information_schema.columns WHERE table_name = $1 AND table_schema = current_schema()', [tableName])
      .then((r) => new Map(r.rows.map((row) => [row.column_name, row.data_type])));
  // One INSERT … SELECT FROM unnest($1::type[], …) per batch: one round trip for thousands of rows.
  const bulk = async (tableName: string, columns: string[], rows: unknown[][]) => {
    const columnTypes = await types(tableName);
    const casts = columns.map((c, i) => `$${i + 1}::${columnTypes.get(c) === 'text' ? 'text' : columnTypes.get(c) === 'double precision' ? 'float8' : columnTypes.get(c) === 'integer' ? 'int4' : 'int8'}[]`);
    const arrays = columns.map((_, i) => rows.map((r) => r[i]));
    await client.query(`INSERT INTO ${tableName} (${columns.join(',')}) SELECT * FROM unnest(${casts.join(',')})`, arrays);
  };
  await bulk('users', USER_COLUMNS, userIds.map(userValues));
  for (const batch of batches(TASKS, makeTask, 10_000)) await bulk('tasks', TASK_COLUMNS, batch.map(taskValues));
  for (const batch of batches(CHATS, makeChat, 10_000)) await bulk('chat_requests', CHAT_COLUMNS, batch.map(chatValues));
  // What autovacuum does shortly after a bulk load: statistics and the visibility map (index-only scans).
  await client.query('VACUUM ANALYZE tasks');
  await client.query('VACUUM ANALYZE chat_requests');
  await client.end();
}

async function time(url: string, key: string, count: number): Promise<{ p50: number; p99: number; mean: number }> {
  const samples: number[] = [];
  for (let i = 0; i < count + 20; i++) {
    const start = performance.now();
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    if (!res.ok) throw new Error(`${url}: ${res.status} ${await res.text()}`);
    await res.arrayBuffer();
    if (i >= 20) samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (q: number) => samples[Math.min(samples.length - 1, Math.floor(q * samples.length))] ?? 0;
  return { p50: at(0.5), p99: at(0.99), mean: samples.reduce((s, v) => s + v, 0) / samples.length };
}

/** With --explain: the plans of the 30-day queries of the heaviest user (they should read the covering indexes only). */
async function explain(store: 'sqlite' | 'postgres', gw: ChildGateway, userId: string): Promise<void> {
  const today = Math.floor(now / DAY);
  const queries = [
    `SELECT created_at / 86400000 AS day, model, type, status, count(*), sum(cost_micro) FROM tasks WHERE user_id = '${userId}' AND created_at / 86400000 >= ${today - 29} AND created_at / 86400000 <= ${today} GROUP BY created_at / 86400000, model, type, status`,
    `SELECT created_at / 86400000 AS day, model, count(*), sum(cost_micro), sum(input_tokens + output_tokens) FROM chat_requests WHERE user_id = '${userId}' AND created_at / 86400000 >= ${today - 29} AND created_at / 86400000 <= ${today} GROUP BY created_at / 86400000, model`,
    `SELECT sum(cost_micro) FROM tasks WHERE user_id = '${userId}' AND created_at / 86400000 > ${today - 2} AND created_at / 86400000 <= 1000000000 AND status != 'failed'`,
  ];
  if (store === 'sqlite') {
    const db = new DatabaseSync(join(gw.env.DATA_DIR ?? '', 'switchboard.db'));
    for (const q of queries) console.log(q.slice(0, 60), '\n ', db.prepare(`EXPLAIN QUERY PLAN ${q}`).all().map((r) => (r as { detail: string }).detail).join('\n  '));
    db.close();
    return;
  }
  const client = new pg.Client({ connectionString: gw.env.DATABASE_URL });
  await client.connect();
  for (const q of queries) console.log(q.slice(0, 60), '\n ', (await client.query(`EXPLAIN (ANALYZE, BUFFERS) ${q}`)).rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n  '));
  await client.end();
}

const rows: Array<Record<string, string | number>> = [];
const stores: Array<'sqlite' | 'postgres'> = ['sqlite'];
if (await postgresReachable()) stores.push('postgres');
else console.log('PostgreSQL not reachable: measuring SQLite only');

for (const store of stores) {
  seed = 42;
  let gw: ChildGateway | undefined;
  try {
    gw = await startChildGateway({ store, env: { LOG_LEVEL: 'warn', SWITCHBOARD_DEMO_USER: '0' } });
    const loadStart = performance.now();
    if (store === 'sqlite') await loadSqlite(gw.env.DATA_DIR ?? '');
    else await loadPostgres(gw.env.DATABASE_URL ?? '');
    const loadS = (performance.now() - loadStart) / 1000;
    console.log(`${store}: loaded ${TASKS.toLocaleString('en')} tasks and ${CHATS.toLocaleString('en')} chat requests in ${loadS.toFixed(1)} s (${Math.round((TASKS + CHATS) / loadS).toLocaleString('en')} rows/s)`);

    const heavy = userIds[0] ?? '';
    const median = userIds[USERS / 2] ?? '';
    const keys = new Map<string, string>();
    for (const id of [heavy, median]) keys.set(id, (await gw.admin<{ key: string }>('POST', `/admin/v1/users/${id}/api-keys`, { name: 'bench' })).key);
    const stats = async (id: string, query: string) => (await fetch(`${gw?.url}/api/v1/stats${query}`, { headers: { authorization: `Bearer ${keys.get(id)}` } })).json() as Promise<{ totals: { requests: number; llmRequests: number } }>;
    const allTime = await stats(heavy, `?range=custom&from=${new Date(firstDay * DAY).toISOString().slice(0, 10)}&to=${new Date(now).toISOString().slice(0, 10)}`);
    const medianAllTime = await stats(median, `?range=custom&from=${new Date(firstDay * DAY).toISOString().slice(0, 10)}&to=${new Date(now).toISOString().slice(0, 10)}`);

    if (process.argv.includes('--explain')) await explain(store, gw, heavy);
    const today = new Date(now).toISOString().slice(0, 10);
    const yearAgo = new Date(now - 365 * DAY).toISOString().slice(0, 10);
    const scenarios: Array<[string, string, string]> = [
      [`heaviest user (${allTime.totals.requests} tasks, ${allTime.totals.llmRequests} chats)`, heavy, '?range=30d'],
      ['heaviest user', heavy, '?range=today'],
      ['heaviest user', heavy, `?range=custom&from=${yearAgo}&to=${today}`],
      [`median user (${medianAllTime.totals.requests} tasks, ${medianAllTime.totals.llmRequests} chats)`, median, '?range=30d'],
    ];
    for (const [who, id, query] of scenarios) {
      const r = await time(`${gw.url}/api/v1/stats${query}`, keys.get(id) ?? '', REQUESTS);
      rows.push({ store, user: who, query: query.replace(/&from.*/, ' (366 days)'), requests: REQUESTS, 'p50 ms': r.p50.toFixed(1), 'p99 ms': r.p99.toFixed(1), 'mean ms': r.mean.toFixed(1) });
    }
  } finally {
    await gw?.stop();
  }
}

console.log(`\nbench/stats: GET /api/v1/stats, sequential requests over ${TASKS.toLocaleString('en')} tasks + ${CHATS.toLocaleString('en')} chat requests of ${USERS} users\n`);
console.log(table(rows));
