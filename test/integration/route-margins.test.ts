/**
 * Upstream cost and margin (issue 32, item 6): every chat request and media result records what its
 * route entry's upstream charged us at settlement, and GET /admin/v1/reports/routes answers per day,
 * model and entry the revenue, upstream cost, margin, failover rate and error rate, exactly as the
 * rows and the ledger say, flagging an entry whose cost is above the price.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { expectedCost, openAiClient, prices, settledRow, startChatFakes } from '../support/chat-gateway.ts';
import { ADMIN_TOKEN, describeEachMode } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());
const GOOD_KEY = 'sk-live-margins-good-000000001111';
const REVOKED_KEY = 'sk-live-margins-revoked-0000002222';

interface ReportRow {
  date: string;
  model: string;
  kind: string;
  provider: string | null;
  upstreamModel: string | null;
  requests: number;
  failed: number;
  failovers: number;
  revenueMicroUsd: string;
  upstreamCostMicroUsd: string;
  marginMicroUsd: string | null;
  uncosted: number;
  failoverRate: number;
  errorRate: number;
  atLoss: boolean;
}
interface Report {
  from: string;
  to: string;
  data: ReportRow[];
  totals: Omit<ReportRow, 'date' | 'model' | 'kind' | 'provider' | 'upstreamModel' | 'failoverRate' | 'errorRate' | 'atLoss'>;
}

/** USD per 1M tokens as micro-USD per token, times the tokens, rounded up once: the entry's cost formula. */
function upstreamCost(usage: { input: number; output: number; cached: number }, cost: { input: number; output: number; cached: number }): number {
  const total = BigInt(usage.input - usage.cached) * BigInt(cost.input) + BigInt(usage.cached) * BigInt(cost.cached) + BigInt(usage.output) * BigInt(cost.output);
  return Number((total + 999_999n) / 1_000_000n);
}

describeEachMode('upstream cost and margins per day, model and route', (ctx) => {
  const admin = (method: string, path: string, body?: unknown) => ctx.gw.api(ADMIN_TOKEN, method, path, body);
  const report = async (query: string): Promise<Report> => {
    const answer = await admin('GET', `/admin/v1/reports/routes?${query}`);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body as Report;
  };
  const today = new Date().toISOString().slice(0, 10);

  beforeEach(() => {
    fakes.reset();
    fakes.openai.moreKeys.clear();
    fakes.openai.moreKeys.add(GOOD_KEY);
  });

  test('chat: each request records its entry’s upstream cost; the report sums revenue and cost exactly, counts the failover and the failed request, and flags a loss', async () => {
    const { key, userId } = await ctx.gw.createUser(500);
    for (const [name, secret] of [['margin-good', GOOD_KEY], ['margin-revoked', REVOKED_KEY]] as const) {
      const put = await admin('PUT', `/admin/v1/providers/${name}`, { type: 'openai', baseUrl: fakes.openai.baseUrl, timeoutMs: 5000, keys: [{ secret }] });
      assert.equal(put.status, 200, JSON.stringify(put.body));
    }
    // USD per 1M tokens: 0.10 input, 0.01 cached input, 0.50 output (micro-USD per 1M: 100,000 / 10,000 / 500,000).
    const cost = { inputPrice: '0.10', cachedInputPrice: '0.01', outputPrice: '0.50' };
    const route = await admin('PUT', '/admin/v1/routes/gpt-5.4-mini', {
      entries: [
        { provider: 'margin-revoked', model: 'up-mini', priority: 0, cost },
        { provider: 'margin-good', model: 'up-mini', priority: 1, cost },
      ],
    });
    assert.equal(route.status, 200, JSON.stringify(route.body));
    const published = await prices(ctx.gw, key, 'gpt-5.4-mini');
    const usage = { input: 1000, output: 500, cached: 200 };
    const client = openAiClient(ctx.gw, key);
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      fakes.openai.enqueue({ text: `answer ${i}`, usage });
      // The revoked key's 401 comes first on the first request (then it is disabled): one failover.
      if (i === 0) fakes.openai.enqueue({ text: 'never sent', usage });
      const answer = await client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: `hello ${i}` }], max_tokens: 600 });
      ids.push(answer.id);
    }
    fakes.openai.enqueue({ error: { status: 400, message: 'Invalid value for messages.' } });
    const refused = await ctx.gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'refused' }], max_tokens: 10 });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));

    const perRequest = upstreamCost(usage, { input: 100_000, cached: 10_000, output: 500_000 });
    assert.equal(perRequest, 332, '800 × 0.10 + 200 × 0.01 + 500 × 0.50 micro-USD');
    const charged = expectedCost(published, usage);
    const rows = await Promise.all(ids.map((id) => settledRow(ctx.gw, id)));
    assert.deepEqual(
      rows.map((r) => [r.provider, Number(r.upstream_cost_micro), Number(r.cost_micro), r.attempts]),
      [
        ['margin-good', perRequest, charged, 2],
        ['margin-good', perRequest, charged, 1],
        ['margin-good', perRequest, charged, 1],
      ],
    );

    const day = await report('range=today&model=gpt-5.4-mini');
    assert.deepEqual([day.from, day.to], [today, today]);
    const good = day.data.find((r) => r.provider === 'margin-good');
    assert.ok(good, JSON.stringify(day.data));
    assert.deepEqual(
      { ...good },
      {
        date: today,
        model: 'gpt-5.4-mini',
        kind: 'chat',
        provider: 'margin-good',
        upstreamModel: 'up-mini',
        requests: 4,
        failed: 1,
        failovers: 1,
        revenueMicroUsd: String(3 * charged),
        upstreamCostMicroUsd: String(3 * perRequest),
        marginMicroUsd: String(3 * charged - 3 * perRequest),
        uncosted: 0,
        failoverRate: 0.25,
        errorRate: 0.25,
        atLoss: false,
      },
    );
    assert.equal(day.totals.revenueMicroUsd, String(3 * charged));
    assert.equal(day.totals.requests, 4);
    // The revenue is what the ledger took.
    const taken = await ctx.gw.gateway.services.database.db.selectFrom('ledger_entries').select('amount_micro').where('user_id', '=', userId).where('kind', '=', 'chat_charge').execute();
    assert.equal(-taken.reduce((a, e) => a + Number(e.amount_micro), 0), 3 * charged);

    // The entry's output now costs more than the price: flagged, and the next request's cost follows the new one.
    const dear = { ...cost, outputPrice: String((Number(published.output) / 1e6) * 2) };
    assert.equal((await admin('PUT', '/admin/v1/routes/gpt-5.4-mini', { entries: [{ provider: 'margin-good', model: 'up-mini', cost: dear }] })).status, 200);
    fakes.openai.enqueue({ text: 'dear', usage });
    const last = await client.chat.completions.create({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'dear' }], max_tokens: 600 });
    const lastRow = await settledRow(ctx.gw, last.id);
    const dearCost = upstreamCost(usage, { input: 100_000, cached: 10_000, output: Number(published.output) * 2 });
    assert.equal(Number(lastRow.upstream_cost_micro), dearCost);
    const flagged = (await report('range=today&model=gpt-5.4-mini')).data.find((r) => r.provider === 'margin-good');
    assert.equal(flagged?.atLoss, true);
    assert.equal(flagged?.upstreamCostMicroUsd, String(3 * perRequest + dearCost));
    assert.ok(Number(flagged?.marginMicroUsd) < 3 * charged - 3 * perRequest, 'the loss-making request lowers the margin');
    assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    await admin('DELETE', '/admin/v1/routes/gpt-5.4-mini');
  });

  test('media: a result records its entry’s cost for the task’s tier; an entry without a cost leaves the margin unknown, not zero', async () => {
    const { key } = await ctx.gw.createUser(100);
    const catalog = (await ctx.gw.api(undefined, 'GET', '/api/v1/catalog/z-image-turbo')).body as { pricing: Array<{ key: string; price: string; isDefault?: boolean }> };
    const tier = catalog.pricing.find((t) => t.isDefault) ?? catalog.pricing[0];
    assert.ok(tier);
    for (const name of ['studio-costed', 'studio-plain']) assert.equal((await admin('PUT', `/admin/v1/providers/${name}`, { type: 'local', options: { latencyMs: 5 } })).status, 200);
    const run = async (): Promise<{ id: string; cost: number }> => {
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'a margin' } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const id = (created.body as { data: { taskId: string } }).data.taskId;
      for (const deadline = Date.now() + 20_000; Date.now() < deadline; await new Promise((resolve) => setTimeout(resolve, 50))) {
        const detail = ((await ctx.gw.api(key, 'GET', `/api/v1/generation/${id}`)).body as { data: { status: string } }).data;
        if (detail.status === 'finished') break;
        assert.notEqual(detail.status, 'failed');
      }
      const task = await ctx.gw.gateway.services.database.db.selectFrom('tasks').select(['cost_micro', 'status']).where('id', '=', id).executeTakeFirstOrThrow();
      assert.equal(task.status, 'finished');
      return { id, cost: Number(task.cost_micro) };
    };
    assert.equal((await admin('PUT', '/admin/v1/routes/z-image-turbo', { entries: [{ provider: 'studio-costed', cost: { pricing: [{ key: tier.key, price: '0.0015' }] } }] })).status, 200);
    const first = await run();
    const second = await run();
    assert.equal((await admin('PUT', '/admin/v1/routes/z-image-turbo', { entries: [{ provider: 'studio-plain' }] })).status, 200);
    const third = await run();
    const attempts = await ctx.gw.gateway.services.database.db.selectFrom('task_attempts').select(['task_id', 'upstream_cost_micro']).where('task_id', 'in', [first.id, second.id, third.id]).execute();
    const costOf = new Map(attempts.map((a) => [a.task_id, a.upstream_cost_micro === null || a.upstream_cost_micro === undefined ? null : Number(a.upstream_cost_micro)]));
    assert.deepEqual([costOf.get(first.id), costOf.get(second.id), costOf.get(third.id)], [1500, 1500, null]);

    const rows = (await report(`range=custom&from=${today}&to=${today}&model=z-image-turbo`)).data;
    const costed = rows.find((r) => r.provider === 'studio-costed');
    const plain = rows.find((r) => r.provider === 'studio-plain');
    assert.deepEqual(
      costed && [costed.kind, costed.requests, costed.failed, costed.failovers, costed.revenueMicroUsd, costed.upstreamCostMicroUsd, costed.marginMicroUsd, costed.uncosted],
      ['media', 2, 0, 0, String(first.cost + second.cost), '3000', String(first.cost + second.cost - 3000), 0],
    );
    assert.deepEqual(plain && [plain.requests, plain.revenueMicroUsd, plain.upstreamCostMicroUsd, plain.marginMicroUsd, plain.uncosted], [1, String(third.cost), '0', null, 1]);
    await admin('DELETE', '/admin/v1/routes/z-image-turbo');
    for (const name of ['studio-costed', 'studio-plain']) await admin('DELETE', `/admin/v1/providers/${name}`);
  });

  test('the report takes the period GET /stats takes, refuses a bad one, and is the operator’s only', async () => {
    const week = await report('');
    assert.equal(week.to, today);
    assert.equal((Date.parse(week.to) - Date.parse(week.from)) / 86_400_000, 6, 'seven days by default');
    for (const [query, param] of [
      ['range=custom', 'from'],
      ['range=custom&from=2026-05-02&to=2026-05-01', 'to'],
      ['range=custom&from=2026-02-30&to=2026-03-01', 'from'],
      ['range=custom&from=2024-01-01&to=2026-01-01', 'to'],
      ['range=week', 'range'],
    ] as const) {
      const answer = await admin('GET', `/admin/v1/reports/routes?${query}`);
      assert.equal(answer.status, 400, `${query}: ${JSON.stringify(answer.body)}`);
      assert.match(JSON.stringify(answer.body), new RegExp(param));
    }
    assert.equal((await admin('GET', '/admin/v1/reports/routes?limit=5')).status, 400);
    const { key } = await ctx.gw.createUser(1);
    assert.equal((await ctx.gw.api(key, 'GET', '/admin/v1/reports/routes')).status, 401);
    assert.equal((await ctx.gw.api(undefined, 'GET', '/admin/v1/reports/routes')).status, 401);
  });
});
