import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usdToMicro } from '../../src/domain/money.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';
import { waitForTask } from '../support/tasks.ts';

// Issue 21, item 19: the ledger and the generations of a range of days as CSV.

/** An RFC 4180 reader, independent of the writer under test. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  assert.equal(field + record.join(''), '', 'the file ends with CRLF');
  return records;
}

async function download(gw: TestGateway, key: string, query: string) {
  const response = await fetch(`${gw.url}/api/v1/usage/export${query}`, { headers: { authorization: `Bearer ${key}` } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const today = () => new Date().toISOString().slice(0, 10);

describeEachMode('usage export as CSV', (ctx) => {
  test('the ledger of a range: every entry once, exact amounts that add up to the balance, formulas defused', async () => {
    const { userId, key } = await ctx.gw.createUser(500);
    await ctx.gw.admin('POST', `/admin/v1/users/${userId}/credits`, { amountCents: 125, note: '=HYPERLINK("http://evil.example","click"), and more' }, { 'idempotency-key': `export-${userId}` });
    const prompts = ['a lighthouse, at dusk', 'say "cheese"', 'two\nlines'];
    for (const prompt of prompts) {
      const created = await ctx.gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      await waitForTask(ctx.gw, key, (created.body as { data: { taskId: string } }).data.taskId);
    }
    const ledger = await download(ctx.gw, key, `?type=ledger&from=${today()}&to=${today()}`);
    assert.equal(ledger.status, 200);
    assert.equal(ledger.headers.get('content-type'), 'text/csv; charset=utf-8');
    assert.equal(ledger.headers.get('content-disposition'), `attachment; filename="switchboard-ledger-${today()}-to-${today()}.csv"`);
    const [header, ...rows] = parseCsv(ledger.text);
    assert.deepEqual(header, ['time', 'entry_id', 'kind', 'amount_usd', 'balance_after_usd', 'reference', 'note', 'member']);
    const stored = await ctx.gw.gateway.services.database.db.selectFrom('ledger_entries').selectAll().where('user_id', '=', userId).orderBy('created_at', 'desc').orderBy('id', 'desc').execute();
    assert.deepEqual(
      rows.map((r) => r[1]),
      stored.map((e) => e.id),
      'every entry once, newest first',
    );
    const sum = rows.reduce((n, r) => n + usdToMicro((r[3] ?? '').replace('-', '')) * ((r[3] ?? '').startsWith('-') ? -1 : 1), 0);
    const user = await ctx.gw.gateway.services.database.db.selectFrom('users').select('balance_micro').where('id', '=', userId).executeTakeFirstOrThrow();
    assert.equal(sum, user.balance_micro, 'the amounts add up to the balance');
    assert.equal(rows[0]?.[4], (user.balance_micro / 1e6).toString().replace(/\.?0+$/, '') || '0');
    const credit = rows.find((r) => r[2] === 'credit');
    assert.ok(credit, 'the credit is there');
    assert.equal(credit[6], `'=HYPERLINK("http://evil.example","click"), and more`);

    const generations = await download(ctx.gw, key, `?type=generations&from=${today()}&to=${today()}`);
    assert.equal(generations.status, 200);
    const [gHeader, ...gRows] = parseCsv(generations.text);
    assert.deepEqual(gHeader, ['created_time', 'generation_id', 'model', 'type', 'status', 'cost_usd', 'refunded', 'api_key', 'finished_time', 'error', 'prompt']);
    assert.deepEqual(gRows.map((r) => r[10]).sort(), [...prompts].sort(), 'prompts with commas, quotes and line breaks come back whole');
    for (const r of gRows) {
      assert.equal(r[2], 'z-image-turbo');
      assert.equal(r[4], 'finished');
      assert.equal(r[6], 'false');
      assert.equal(r[7], 'test');
    }
  });

  test('another user sees none of it; days outside the range are left out', async () => {
    const a = await ctx.gw.createUser(100);
    const b = await ctx.gw.createUser(200);
    const [, ...rowsOfB] = parseCsv((await download(ctx.gw, b.key, '')).text);
    assert.equal(rowsOfB.length, 1, 'only b’s opening balance');
    assert.equal(rowsOfB[0]?.[3], '2');
    const [, ...past] = parseCsv((await download(ctx.gw, a.key, '?from=2025-01-01&to=2025-01-31')).text);
    assert.equal(past.length, 0);
  });

  test('a bad query is a 400 naming the field, before any of the file', async () => {
    const { key } = await ctx.gw.createUser(0);
    for (const [query, param] of [
      ['?type=keys', 'type'],
      ['?from=2026-02-30&to=2026-03-01', 'from'],
      ['?from=2026-03-02&to=2026-03-01', 'to'],
      ['?from=2024-01-01&to=2025-12-31', 'to'],
      ['?from=2026-01-01', 'to'],
    ] as const) {
      const res = await download(ctx.gw, key, query);
      assert.equal(res.status, 400, query);
      assert.equal((JSON.parse(res.text) as { error: { param: string } }).error.param, param, query);
    }
    assert.equal((await download(ctx.gw, 'sk-nope', '')).status, 401);
  });
});
