import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { before, test } from 'node:test';
import type { TaskStatus } from '../../src/domain/tasks/task-status.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

/**
 * GET /api/v1/stats against an independent sum: the test writes tasks and chat requests straight into
 * the store (through Kysely), keeps its own list of them, and recomputes every figure from that list.
 */
const DAY = 86_400_000;

interface TaskSeed {
  userId: string;
  createdAt: number;
  status: TaskStatus;
  costMicro: number;
  model: string;
  type: 'IMAGE' | 'VIDEO' | 'MUSIC';
}

interface ChatSeed {
  userId: string;
  createdAt: number;
  costMicro: number;
  model: string;
  inputTokens: number;
  outputTokens: number;
  status: string;
}

interface Bucket {
  key: string;
  count: number;
  cost: number;
}

interface Stats {
  from: string;
  to: string;
  totals: Record<'balance' | 'spent' | 'spentAllTime' | 'requests' | 'succeeded' | 'failed' | 'inProgress' | 'llmRequests' | 'llmTokens', number>;
  byDay: Bucket[];
  byModel: Bucket[];
  byType: Bucket[];
  byApiKey: Bucket[];
}

const id = (prefix: string) => `${prefix}_${randomBytes(8).toString('hex')}`;
const dayOf = (ms: number) => new Date(ms).toISOString().slice(0, 10);

async function insertTasks(gw: TestGateway, seeds: TaskSeed[]): Promise<void> {
  const db = gw.gateway.services.database.db;
  for (const s of seeds) {
    await db
      .insertInto('tasks')
      .values({
        id: id('task'),
        user_id: s.userId,
        model: s.model,
        family: 'I1',
        type: s.type,
        input_json: JSON.stringify({ prompt: `seed ${s.model}` }),
        measured_json: '[]',
        webhook_url: null,
        status: s.status,
        cost_micro: s.costMicro,
        price_tier: 'default',
        price_unit: 'generation',
        price_units: 1,
        routes_json: '[]',
        files_json: null,
        output_json: null,
        error_message: s.status === 'failed' ? 'every provider failed' : null,
        refunded_micro: s.status === 'failed' ? s.costMicro : 0,
        idempotency_key: null,
        request_hash: null,
        created_at: s.createdAt,
        updated_at: s.createdAt,
        started_at: null,
        finished_at: null,
        expires_at: null,
      })
      .execute();
  }
}

async function insertChats(gw: TestGateway, seeds: ChatSeed[]): Promise<void> {
  const db = gw.gateway.services.database.db;
  for (const s of seeds) {
    await db
      .insertInto('chat_requests')
      .values({
        id: id('chat'),
        user_id: s.userId,
        api_key_id: null,
        model: s.model,
        protocol: 'openai',
        provider: 'local',
        upstream_model: s.model,
        stream: 0,
        status: s.status,
        input_tokens: s.inputTokens,
        output_tokens: s.outputTokens,
        cached_tokens: 0,
        cache_creation_tokens: 0,
        usage_estimated: 0,
        hold_micro: s.costMicro,
        cost_micro: s.costMicro,
        latency_ms: 10,
        first_byte_ms: 5,
        error_code: null,
        error_message: null,
        created_at: s.createdAt,
        finished_at: s.createdAt + 10,
      })
      .execute();
  }
}

/** The expected statistics, from the seeds alone, for the period the response says it used. */
function expected(userId: string, tasks: TaskSeed[], chats: ChatSeed[], fromIso: string, toIso: string, balanceCents: number): Stats {
  const start = Date.parse(fromIso);
  const end = Date.parse(toIso) + 1;
  const inPeriod = (ms: number) => ms >= start && ms < end;
  const mine = tasks.filter((t) => t.userId === userId);
  const myChats = chats.filter((c) => c.userId === userId);
  const spend = (t: TaskSeed) => (t.status === 'failed' ? 0 : t.costMicro);
  const periodTasks = mine.filter((t) => inPeriod(t.createdAt));
  const periodChats = myChats.filter((c) => inPeriod(c.createdAt));
  const cents = (micro: number) => micro / 10_000;

  const buckets = (entries: Array<{ key: string; micro: number }>) => {
    const map = new Map<string, { count: number; micro: number }>();
    for (const e of entries) {
      const b = map.get(e.key) ?? { count: 0, micro: 0 };
      b.count += 1;
      b.micro += e.micro;
      map.set(e.key, b);
    }
    return map;
  };
  const entries = [
    ...periodTasks.map((t) => ({ day: dayOf(t.createdAt), model: t.model, type: t.type as string, micro: spend(t) })),
    ...periodChats.map((c) => ({ day: dayOf(c.createdAt), model: c.model, type: 'TEXT', micro: c.costMicro })),
  ];
  const byDayMap = buckets(entries.map((e) => ({ key: e.day, micro: e.micro })));
  const byDay: Bucket[] = [];
  for (let d = start; d < end; d += DAY) {
    const b = byDayMap.get(dayOf(d));
    byDay.push({ key: dayOf(d), count: b?.count ?? 0, cost: cents(b?.micro ?? 0) });
  }
  const order = (a: Bucket & { micro: number }, b: Bucket & { micro: number }) => b.micro - a.micro || b.count - a.count || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0);
  const toBuckets = (map: Map<string, { count: number; micro: number }>) =>
    [...map.entries()]
      .map(([key, v]) => ({ key, count: v.count, cost: cents(v.micro), micro: v.micro }))
      .sort(order)
      .map(({ key, count, cost }) => ({ key, count, cost }));
  const typeMap = buckets(entries.map((e) => ({ key: e.type, micro: e.micro })));
  for (const t of ['IMAGE', 'VIDEO', 'MUSIC', 'TEXT']) if (!typeMap.has(t)) typeMap.set(t, { count: 0, micro: 0 });

  return {
    from: fromIso,
    to: toIso,
    totals: {
      balance: balanceCents,
      spent: cents(periodTasks.reduce((s, t) => s + spend(t), 0) + periodChats.reduce((s, c) => s + c.costMicro, 0)),
      spentAllTime: cents(mine.reduce((s, t) => s + spend(t), 0) + myChats.reduce((s, c) => s + c.costMicro, 0)),
      requests: periodTasks.length,
      succeeded: periodTasks.filter((t) => t.status === 'finished' || t.status === 'expired').length,
      failed: periodTasks.filter((t) => t.status === 'failed').length,
      inProgress: periodTasks.filter((t) => t.status === 'not_started' || t.status === 'processing').length,
      llmRequests: periodChats.length,
      llmTokens: periodChats.reduce((s, c) => s + c.inputTokens + c.outputTokens, 0),
    },
    byDay,
    byModel: toBuckets(buckets(entries.map((e) => ({ key: e.model, micro: e.micro })))),
    byType: toBuckets(typeMap),
    // The seeds carry no API key: everything is the dashboard's.
    byApiKey: toBuckets(buckets(entries.map((e) => ({ key: 'dashboard', micro: e.micro })))),
  };
}

describeEachMode('usage statistics', (ctx) => {
  const tasks: TaskSeed[] = [];
  const chats: ChatSeed[] = [];
  let user: { userId: string; key: string };
  let other: { userId: string; key: string };
  let empty: { userId: string; key: string };
  const today = Math.floor(Date.now() / DAY) * DAY;

  before(async () => {
    user = await ctx.gw.createUser(1234);
    other = await ctx.gw.createUser(50);
    empty = await ctx.gw.createUser(0);
    const statuses: TaskStatus[] = ['finished', 'failed', 'processing', 'not_started', 'expired'];
    const models = [
      { model: 'nano-banana-2', type: 'IMAGE' as const, cost: 67_000 },
      { model: 'veo-3.1-fast', type: 'VIDEO' as const, cost: 1_234_567 },
      { model: 'suno', type: 'MUSIC' as const, cost: 105_001 },
      { model: 'z-image-turbo', type: 'IMAGE' as const, cost: 3_333 },
    ];
    // 40 days back, skipping some days (gaps), at awkward times of day, including the exact day edges.
    let n = 0;
    for (let back = 0; back < 40; back++) {
      if (back % 5 === 3) continue;
      const dayStart = today - back * DAY;
      const times = [dayStart, dayStart + DAY - 1, dayStart + 13 * 3600_000 + 7];
      for (const at of times) {
        const m = models[n % models.length]!;
        const status = statuses[n % statuses.length]!;
        // The last millisecond of today is still ahead: keep it out of "the future".
        if (at <= Date.now() || back > 0) tasks.push({ userId: user.userId, createdAt: at, status, costMicro: m.cost + n, model: m.model, type: m.type });
        if (n % 2 === 0) {
          chats.push({ userId: user.userId, createdAt: at, costMicro: 1_111 + 7 * n, model: n % 4 === 0 ? 'gpt-5.4-mini' : 'claude-haiku-4-5', inputTokens: 100 + n, outputTokens: 20 + n, status: 'succeeded' });
        }
        n++;
      }
    }
    // A chat that failed upstream: counted, nothing billed.
    chats.push({ userId: user.userId, createdAt: today + 1000, costMicro: 0, model: 'gpt-5.4', inputTokens: 0, outputTokens: 0, status: 'failed' });
    // Another user on the same days: never in this user's figures.
    for (let back = 0; back < 35; back++) {
      tasks.push({ userId: other.userId, createdAt: today - back * DAY + 5, status: 'finished', costMicro: 999_999, model: 'sora-2', type: 'VIDEO' });
      chats.push({ userId: other.userId, createdAt: today - back * DAY + 5, costMicro: 77_777, model: 'gpt-5.5', inputTokens: 5, outputTokens: 5, status: 'succeeded' });
    }
    await insertTasks(ctx.gw, tasks);
    await insertChats(ctx.gw, chats);
  });

  const fetchStats = async (who: { key: string }, query: string): Promise<Stats> => {
    const res = await ctx.gw.api(who.key, 'GET', `/api/v1/stats${query}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return res.body as Stats;
  };

  for (const [name, query, days] of [
    ['today (the default)', '', 1],
    ['today', '?range=today', 1],
    ['7d', '?range=7d', 7],
    ['30d', '?range=30d', 30],
  ] as const) {
    test(`${name}: every figure equals the independent sum, to the cent`, async () => {
      const before = Math.floor(Date.now() / DAY) * DAY;
      const stats = await fetchStats(user, query);
      // The period ends with today, UTC (the next day if the request straddled midnight).
      const lastDay = Date.parse(stats.to) + 1 - DAY;
      assert.ok(lastDay === before || lastDay === before + DAY, `to is the end of today: ${stats.to}`);
      assert.match(stats.to, /T23:59:59\.999Z$/);
      assert.equal(stats.from, new Date(lastDay - (days - 1) * DAY).toISOString());
      assert.equal(stats.byDay.length, days);
      assert.deepEqual(stats, expected(user.userId, tasks, chats, stats.from, stats.to, 1234));
      assert.ok(stats.totals.spent > 0);
    });
  }

  test('custom ranges: inclusive calendar days, gaps filled with zeroes, day edges in UTC', async () => {
    const from = dayOf(today - 39 * DAY);
    const to = dayOf(today - 3 * DAY);
    const stats = await fetchStats(user, `?range=custom&from=${from}&to=${to}`);
    assert.equal(stats.from, `${from}T00:00:00.000Z`);
    assert.equal(stats.to, `${to}T23:59:59.999Z`);
    assert.equal(stats.byDay.length, 37);
    assert.deepEqual(stats, expected(user.userId, tasks, chats, stats.from, stats.to, 1234));
    // Day 3 back had no data (a gap): present, zero.
    const gap = stats.byDay.find((b) => b.key === dayOf(today - 3 * DAY));
    assert.deepEqual(gap, { key: dayOf(today - 3 * DAY), count: 0, cost: 0 });
    // A single day holds its first and last millisecond and nothing of its neighbours.
    const one = dayOf(today - 2 * DAY);
    const single = await fetchStats(user, `?from=${one}&to=${one}`);
    assert.equal(single.byDay.length, 1);
    assert.equal(single.totals.requests, 3);
    assert.deepEqual(single, expected(user.userId, tasks, chats, single.from, single.to, 1234));
  });

  test('refunded failures cost nothing but are counted', async () => {
    const stats = await fetchStats(user, '?range=30d');
    const failed = tasks.filter((t) => t.userId === user.userId && t.status === 'failed' && t.createdAt >= Date.parse(stats.from));
    assert.ok(failed.length > 0);
    assert.equal(stats.totals.failed, failed.length);
    const withRefunds = stats.totals.spent + failed.reduce((s, t) => s + t.costMicro, 0) / 10_000;
    assert.notEqual(stats.totals.spent, withRefunds);
    assert.equal(stats.totals.requests, stats.totals.succeeded + stats.totals.failed + stats.totals.inProgress);
  });

  test('byDay sums to spent; byModel is most expensive first; byType holds IMAGE, VIDEO, MUSIC and TEXT', async () => {
    const stats = await fetchStats(user, '?range=30d');
    const micro = (cents: number) => Math.round(cents * 10_000);
    assert.equal(stats.byDay.reduce((s, b) => s + micro(b.cost), 0), micro(stats.totals.spent));
    assert.equal(stats.byModel.reduce((s, b) => s + micro(b.cost), 0), micro(stats.totals.spent));
    for (let i = 1; i < stats.byModel.length; i++) assert.ok(stats.byModel[i - 1]!.cost >= stats.byModel[i]!.cost);
    assert.deepEqual(stats.byType.map((b) => b.key).sort(), ['IMAGE', 'MUSIC', 'TEXT', 'VIDEO']);
    assert.equal(stats.byType.find((b) => b.key === 'TEXT')?.count, stats.totals.llmRequests);
    assert.ok(!stats.byModel.some((b) => b.key === 'sora-2' || b.key === 'gpt-5.5'), "another user's models never appear");
  });

  test("another user's figures are their own; a new user sees zeroes", async () => {
    const stats = await fetchStats(other, '?range=30d');
    assert.deepEqual(stats, expected(other.userId, tasks, chats, stats.from, stats.to, 50));
    const none = await fetchStats(empty, '?range=7d');
    assert.equal(none.totals.spent, 0);
    assert.equal(none.totals.spentAllTime, 0);
    assert.equal(none.byDay.length, 7);
    assert.ok(none.byDay.every((b) => b.count === 0 && b.cost === 0));
    assert.deepEqual(none.byModel, []);
  });

  test('all-time spend stays exact across the settled-days checkpoint: new rows, late refunds, running tasks', async () => {
    const fresh = await ctx.gw.createUser(0);
    const db = ctx.gw.gateway.services.database.db;
    const mine: TaskSeed[] = [];
    const myChats: ChatSeed[] = [];
    const seed = async (t: TaskSeed[], c: ChatSeed[]) => {
      mine.push(...t);
      myChats.push(...c);
      await insertTasks(ctx.gw, t);
      await insertChats(ctx.gw, c);
    };
    const allTime = async () => (await fetchStats(fresh, '?range=today')).totals.spentAllTime;
    const expectedAllTime = () => expected(fresh.userId, mine, myChats, new Date(today).toISOString(), new Date(today + DAY - 1).toISOString(), 0).totals.spentAllTime;
    // Settled history: 20 to 10 days ago, all finished or failed; one task still running 6 days ago.
    await seed(
      Array.from({ length: 11 }, (_, i) => ({ userId: fresh.userId, createdAt: today - (20 - i) * DAY + 3600_000, status: i % 4 === 0 ? 'failed' : 'finished', costMicro: 10_000 + i, model: 'nano-banana-2', type: 'IMAGE' }) as TaskSeed),
      [{ userId: fresh.userId, createdAt: today - 15 * DAY, costMicro: 4_321, model: 'gpt-5.4', inputTokens: 10, outputTokens: 10, status: 'succeeded' }],
    );
    await seed([{ userId: fresh.userId, createdAt: today - 6 * DAY, status: 'processing', costMicro: 500_000, model: 'veo-3.1-fast', type: 'VIDEO' }], []);
    assert.equal(await allTime(), expectedAllTime());
    const checkpoint = await db.selectFrom('stats_checkpoints').selectAll().where('user_id', '=', fresh.userId).executeTakeFirstOrThrow();
    assert.equal(checkpoint.through_day, Math.floor(today / DAY) - 7, 'the checkpoint stops before the day of the running task');
    // The running task fails (refunded): the figure follows, since its day is after the checkpoint.
    await db.updateTable('tasks').set({ status: 'failed', refunded_micro: 500_000 }).where('user_id', '=', fresh.userId).where('status', '=', 'processing').execute();
    mine[mine.length - 1] = { ...(mine.at(-1) as TaskSeed), status: 'failed' };
    assert.equal(await allTime(), expectedAllTime());
    const moved = await db.selectFrom('stats_checkpoints').selectAll().where('user_id', '=', fresh.userId).executeTakeFirstOrThrow();
    assert.equal(moved.through_day, Math.floor(today / DAY) - 2, 'with nothing running, it moves up to the day before yesterday');
    // A chat request still running since three days ago: its row is written when it settles, dated
    // then, so the checkpoint must not pass that day while it runs.
    const other = await ctx.gw.createUser(0);
    const running = { id: `chat_running_${other.userId}`, user_id: other.userId, api_key_id: null, model: 'gpt-5.4', protocol: 'openai', stream: 1, hold_micro: 0, created_at: today - 3 * DAY, last_seen_at: Date.now() };
    await db.insertInto('chat_holds').values(running).execute();
    await fetchStats(other, '?range=today');
    const held = await db.selectFrom('stats_checkpoints').selectAll().where('user_id', '=', other.userId).executeTakeFirstOrThrow();
    assert.equal(held.through_day, Math.floor(today / DAY) - 4, 'the checkpoint stops before the day of the running chat request');
    await db.deleteFrom('chat_holds').where('id', '=', running.id).execute();
    // New spend today and yesterday is added on top.
    await seed([{ userId: fresh.userId, createdAt: today - DAY + 5, status: 'finished', costMicro: 77_777, model: 'suno', type: 'MUSIC' }], [
      { userId: fresh.userId, createdAt: Math.min(Date.now(), today + 10), costMicro: 999, model: 'gpt-5.4-mini', inputTokens: 1, outputTokens: 1, status: 'succeeded' },
    ]);
    assert.equal(await allTime(), expectedAllTime());
    assert.equal((await fetchStats(fresh, '?range=30d')).totals.spentAllTime, (await fetchStats(fresh, '?range=30d')).totals.spent, 'all of it is in the last 30 days');
  });

  test('a bad, incomplete, reversed or too long range is a 400 naming the field', async () => {
    const cases: Array<[string, string]> = [
      ['?range=week', 'range'],
      ['?range=custom', 'from'],
      ['?range=custom&from=2026-01-01', 'to'],
      ['?range=custom&from=2026-02-30&to=2026-03-01', 'from'],
      ['?range=custom&from=2026-01-01&to=01/02/2026', 'to'],
      ['?range=custom&from=2026-03-01&to=2026-02-01', 'to'],
      ['?range=custom&from=2025-01-01&to=2026-01-02', 'to'],
      ['?range=7d&from=2026-01-01', 'from'],
    ];
    for (const [query, param] of cases) {
      const res = await ctx.gw.api(user.key, 'GET', `/api/v1/stats${query}`);
      assert.equal(res.status, 400, query);
      const error = (res.body as { error: { code: string; param: string } }).error;
      assert.equal(error.code, 'invalid_input', query);
      assert.equal(error.param, param, query);
    }
    // 366 days (a leap year) is the longest allowed.
    assert.equal((await ctx.gw.api(user.key, 'GET', '/api/v1/stats?range=custom&from=2024-01-01&to=2024-12-31')).status, 200);
    assert.equal((await ctx.gw.api(undefined, 'GET', '/api/v1/stats')).status, 401);
  });

  test('the generations list: filters, cost in cents and micro-USD, cursor pages, only the caller', async () => {
    const mine = tasks.filter((t) => t.userId === user.userId);
    const all: Array<{ taskId: string; status: string; model: string; costCents: number; costMicroUsd: string; refunded: boolean; type: string; createdTime: string }> = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = await ctx.gw.api(user.key, 'GET', `/api/v1/generations?limit=25${cursor ? `&cursor=${cursor}` : ''}`);
      assert.equal(page.status, 200, JSON.stringify(page.body));
      const data = (page.body as { data: { items: typeof all; nextCursor: string | null } }).data;
      all.push(...data.items);
      cursor = data.nextCursor;
      pages++;
    } while (cursor && pages < 20);
    assert.equal(all.length, mine.length);
    assert.equal(new Set(all.map((g) => g.taskId)).size, mine.length, 'no task twice across pages');
    for (let i = 1; i < all.length; i++) assert.ok(all[i - 1]!.createdTime >= all[i]!.createdTime, 'newest first');
    for (const g of all) {
      assert.equal(g.costCents, Number(g.costMicroUsd) / 10_000);
      assert.equal(g.refunded, g.status === 'failed');
    }

    const filtered = await ctx.gw.api(user.key, 'GET', `/api/v1/generations?status=failed,processing&type=IMAGE&limit=100`);
    const items = (filtered.body as { data: { items: typeof all } }).data.items;
    const want = mine.filter((t) => (t.status === 'failed' || t.status === 'processing') && t.type === 'IMAGE');
    assert.equal(items.length, want.length);
    assert.ok(items.every((g) => g.type === 'IMAGE' && (g.status === 'failed' || g.status === 'processing')));

    const day = dayOf(today - 1 * DAY);
    const ofDay = await ctx.gw.api(user.key, 'GET', `/api/v1/generations?from=${day}&to=${day}&model=suno`);
    const dayItems = (ofDay.body as { data: { items: typeof all } }).data.items;
    assert.equal(dayItems.length, mine.filter((t) => dayOf(t.createdAt) === day && t.model === 'suno').length);

    for (const [query, param] of [['status=done', 'status'], ['type=TEXT', 'type'], ['limit=0', 'limit'], ['cursor=bogus', 'cursor'], ['from=yesterday', 'from']]) {
      const res = await ctx.gw.api(user.key, 'GET', `/api/v1/generations?${query}`);
      assert.equal(res.status, 400, query);
      assert.equal((res.body as { error: { param: string } }).error.param, param);
    }
    const others = await ctx.gw.api(other.key, 'GET', '/api/v1/generations?limit=100');
    const otherItems = (others.body as { data: { items: typeof all } }).data.items;
    assert.ok(otherItems.every((g) => g.model === 'sora-2'));
  });
});
