/**
 * POST /api/v1/embeddings through the official openai SDK (`embeddings.create`), against whole
 * gateways (SQLite and PostgreSQL): a strict fake OpenAI upstream for text-embedding-3-small and
 * bge-m3 (an open model on an OpenAI-compatible route), the built-in local provider for
 * text-embedding-3-large (no route configured), float and base64, `dimensions`, token arrays,
 * refusals before any charge, and each call charged usage × price to the micro-USD, exactly once.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import OpenAI from 'openai';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { OPENAI_EMBEDDING_RESPONSE_FIXTURE, OPENAI_EMBEDDINGS_REQUEST_FIXTURE, OpenAiEmbeddingsFake, fakeVector } from '../fakes/openai-embeddings.fake.ts';
import { conforms } from '../fakes/upstream-schema.ts';
import { balanceMicro, chatLedger, heldMicro, openAiClient, settledRow } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fake = await OpenAiEmbeddingsFake.start();
after(() => fake.close());

const upstream = { type: 'openai', baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs: 5000 };
const config = {
  providers: { emb: upstream, 'emb-backup': upstream },
  routes: {
    'text-embedding-3-small': ['emb'],
    'bge-m3': [{ provider: 'emb', model: 'BAAI/bge-m3' }],
  },
};

/** The body of the fake's `index`-th request. */
function sent(index: number): Record<string, unknown> {
  const request = fake.requests[index];
  assert.ok(request, `upstream request ${index} was made`);
  return request.body as Record<string, unknown>;
}

/** Published input price in micro-USD per 1M tokens, read as a client reads it. */
async function inputPrice(gw: TestGateway, key: string, model: string): Promise<bigint> {
  const list = (await gw.api(key, 'GET', '/api/v1/models')).body as { data: Array<{ id: string; pricing: { input: string } }> };
  const entry = list.data.find((m) => m.id === model);
  assert.ok(entry, `${model} is listed`);
  const [whole, fraction = ''] = entry.pricing.input.split('.');
  return BigInt(whole ?? '0') * 1_000_000n + BigInt((fraction + '000000').slice(0, 6));
}

/** tokens × price / 1,000,000, rounded up once: the documented formula, written out apart from the code. */
function cost(tokens: number, price: bigint): number {
  return Number((BigInt(tokens) * price + 999_999n) / 1_000_000n);
}

async function lastEmbeddingRow(gw: TestGateway, userId: string) {
  const row = await gw.gateway.services.database.db.selectFrom('chat_requests').select('id').where('user_id', '=', userId).where('protocol', '=', 'embeddings').orderBy('id', 'desc').executeTakeFirst();
  assert.ok(row, 'the request is recorded');
  return settledRow(gw, row.id);
}

async function assertCharged(gw: TestGateway, userId: string, expected: number, startBalance: number): Promise<void> {
  const row = await lastEmbeddingRow(gw, userId);
  assert.equal(row.status, 'succeeded');
  assert.equal(Number(row.cost_micro), expected);
  const lines = (await chatLedger(gw, userId)).filter((l) => l.reference === row.id);
  assert.deepEqual(lines, expected > 0 ? [{ kind: 'chat_charge', reference: row.id, amount: -expected }] : []);
  assert.equal(await balanceMicro(gw, userId), startBalance - expected);
  assert.equal(await heldMicro(gw, userId), 0);
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
}

function close(actual: ArrayLike<number>, expected: Float32Array): void {
  assert.equal(actual.length, expected.length);
  for (let i = 0; i < expected.length; i++) assert.equal(Math.fround(actual[i] as number), expected[i], `component ${i}`);
}

describeEachMode(
  'embeddings (openai SDK)',
  (ctx) => {
    beforeEach(() => fake.reset());

    test('a string, as the SDK sends it (base64 asked, floats returned): the upstream body is OpenAI\'s type, usage × price charged once', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const response = await openAiClient(ctx.gw, key).embeddings.create({ model: 'text-embedding-3-small', input: 'The quick brown fox.' });
      assert.equal(response.object, 'list');
      assert.equal(response.model, 'text-embedding-3-small');
      assert.equal(response.data.length, 1);
      close(response.data[0]?.embedding ?? [], fakeVector('"The quick brown fox."', 1536));
      assert.deepEqual(response.usage, { prompt_tokens: 5, total_tokens: 5 });
      const sent = fake.requests[0]?.body as Record<string, unknown>;
      assert.deepEqual(conforms(OPENAI_EMBEDDINGS_REQUEST_FIXTURE, sent), { ok: true });
      assert.deepEqual(sent, { model: 'text-embedding-3-small', input: 'The quick brown fox.', encoding_format: 'base64' });
      await assertCharged(ctx.gw, userId, cost(5, await inputPrice(ctx.gw, key, 'text-embedding-3-small')), 1_000_000);
    });

    test('strings with dimensions and float: vectors in input order, the size asked, a large usage charged to the micro-USD', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const inputs = ['alpha '.repeat(5000), 'beta '.repeat(5000), 'gamma '.repeat(5000)];
      fake.enqueue({ usage: { input: 12_345 } });
      const response = await openAiClient(ctx.gw, key).embeddings.create({ model: 'text-embedding-3-small', input: inputs, dimensions: 256, encoding_format: 'float' });
      assert.deepEqual(response.data.map((d) => d.index), [0, 1, 2]);
      for (const [i, text] of inputs.entries()) close(response.data[i]?.embedding ?? [], fakeVector(JSON.stringify(text), 256));
      assert.equal(sent(0).dimensions, 256);
      const price = await inputPrice(ctx.gw, key, 'text-embedding-3-small');
      // 12,345 × 0.02 USD / 1M = 246.9 micro-USD: rounded up once.
      assert.equal(cost(12_345, price), 247);
      await assertCharged(ctx.gw, userId, 247, 1_000_000);
    });

    test('base64 to the client: little-endian float32; a float answer matches OpenAI\'s response type', async () => {
      const { key } = await ctx.gw.createUser(100);
      const floats = await ctx.gw.api(key, 'POST', '/api/v1/embeddings', { model: 'bge-m3', input: 'un' });
      assert.equal(floats.status, 200);
      assert.deepEqual(conforms(OPENAI_EMBEDDING_RESPONSE_FIXTURE, floats.body), { ok: true });
      const res = await ctx.gw.api(key, 'POST', '/api/v1/embeddings', { model: 'bge-m3', input: ['un', 'deux'], encoding_format: 'base64' });
      assert.equal(res.status, 200);
      const body = res.body as { data: Array<{ embedding: string }>; model: string };
      assert.equal(body.model, 'bge-m3');
      for (const [i, text] of ['un', 'deux'].entries()) {
        const bytes = Buffer.from(body.data[i]?.embedding ?? '', 'base64');
        close(new Float32Array(new Uint8Array(bytes).buffer), fakeVector(JSON.stringify(text), 1024));
      }
      assert.equal(sent(1).model, 'BAAI/bge-m3');
    });

    test('token arrays reach the upstream as they are and are billed by their length', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const response = await openAiClient(ctx.gw, key).embeddings.create({ model: 'text-embedding-3-small', input: [[1, 2, 3], [40_000, 5]] });
      assert.equal(response.data.length, 2);
      assert.deepEqual(sent(0).input, [[1, 2, 3], [40_000, 5]]);
      assert.equal(response.usage.prompt_tokens, 5);
      await assertCharged(ctx.gw, userId, cost(5, await inputPrice(ctx.gw, key, 'text-embedding-3-small')), 1_000_000);
    });

    test('the local provider answers offline: deterministic unit vectors of any size up to the model\'s, local tokens billed', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const client = openAiClient(ctx.gw, key);
      const response = await client.embeddings.create({ model: 'text-embedding-3-large', input: ['hello world', 'hello world', 'goodbye'], dimensions: 64 });
      const [a, b, c] = response.data.map((d) => d.embedding);
      assert.ok(a && b && c);
      assert.equal(a.length, 64);
      assert.deepEqual(a, b, 'the same input gives the same vector');
      assert.notDeepEqual(a, c);
      const norm = Math.sqrt(a.reduce((s, x) => s + x * x, 0));
      assert.ok(Math.abs(norm - 1) < 1e-5, `unit length, got ${norm}`);
      assert.equal(response.usage.prompt_tokens, 5);
      const again = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'hello world', dimensions: 64 });
      assert.deepEqual(again.data[0]?.embedding, a);
      const full = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'hello world' });
      assert.equal(full.data[0]?.embedding.length, 3072);
      assert.equal(fake.requests.length, 0, 'nothing went upstream');
      const price = await inputPrice(ctx.gw, key, 'text-embedding-3-large');
      const rows = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select(['cost_micro', 'provider']).where('user_id', '=', userId).execute();
      assert.deepEqual(rows.map((r) => [Number(r.cost_micro), r.provider]), [[cost(5, price), 'local'], [cost(2, price), 'local'], [cost(2, price), 'local']]);
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000 - cost(5, price) - 2 * cost(2, price));
    });

    test('refused before any charge or upstream call, with a 400 naming the field', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ model: 'bge-m3', input: 'x', dimensions: 512 }, 'dimensions'],
        [{ model: 'text-embedding-3-small', input: 'x', dimensions: 4096 }, 'dimensions'],
        [{ model: 'text-embedding-3-small', input: 'x', extra: true }, 'extra'],
        [{ model: 'text-embedding-3-small', input: '' }, 'input'],
        [{ model: 'text-embedding-3-small', input: [] }, 'input'],
        [{ model: 'text-embedding-3-small', input: ['a', 3] }, 'input[1]'],
        [{ model: 'text-embedding-3-small', input: [[1, -2]] }, 'input[0][1]'],
        [{ model: 'text-embedding-3-small', input: Array.from({ length: 2049 }, () => 'a') }, 'input'],
        [{ model: 'text-embedding-3-small', input: [Array.from({ length: 8192 }, () => 1)] }, 'input[0]'],
        [{ model: 'text-embedding-3-small', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
        [{ model: 'gpt-5.4', input: 'x' }, 'model'],
        [{ model: 'nope', input: 'x' }, 'model'],
      ];
      for (const [body, param] of cases) {
        const res = await ctx.gw.api(key, 'POST', '/api/v1/embeddings', body);
        assert.equal(res.status, 400, JSON.stringify(body).slice(0, 80));
        const error = (res.body as { error: { code: string; param: string; type: string } }).error;
        assert.deepEqual([error.code, error.param, error.type], ['invalid_input', param, 'invalid_request_error'], JSON.stringify(body).slice(0, 80));
      }
      assert.equal(fake.requests.length, 0);
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000);
      assert.equal((await ctx.gw.api(undefined, 'POST', '/api/v1/embeddings', { model: 'bge-m3', input: 'x' })).status, 401);
      // The body bound (4 MiB): refused before it is parsed.
      const large = await ctx.gw.api(key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'x'.repeat(5 * 1024 * 1024) });
      assert.equal(large.status, 413);
      assert.equal((large.body as { error: { code: string } }).error.code, 'payload_too_large');
    });

    test('402 before anything is sent when the hold does not fit; an upstream failure charges nothing', async () => {
      const { key, userId } = await ctx.gw.createUser(0);
      const poor = await ctx.gw.api(key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-small', input: 'x'.repeat(100_000) });
      assert.equal(poor.status, 402);
      assert.equal((poor.body as { error: { code: string } }).error.code, 'insufficient_balance');
      assert.equal(fake.requests.length, 0);
      const { key: rich, userId: richId } = await ctx.gw.createUser(100);
      fake.enqueue({ error: { status: 500, message: 'boom' } });
      await assert.rejects(openAiClient(ctx.gw, rich).embeddings.create({ model: 'text-embedding-3-small', input: 'x' }), (e: unknown) => e instanceof OpenAI.APIError && e.status === 502);
      const row = await lastEmbeddingRow(ctx.gw, richId);
      assert.deepEqual([row.status, Number(row.cost_micro)], ['failed', 0]);
      assert.equal(await balanceMicro(ctx.gw, richId), 1_000_000);
      assert.equal(await heldMicro(ctx.gw, richId), 0);
      assert.equal(await balanceMicro(ctx.gw, userId), 0);
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('concurrent calls: each charged once, the sum exact, the ledger verified', async () => {
      const { key, userId } = await ctx.gw.createUser(100);
      fake.setDefault({ usage: { input: 777 } });
      const client = openAiClient(ctx.gw, key);
      await Promise.all(Array.from({ length: 12 }, (_, i) => client.embeddings.create({ model: 'text-embedding-3-small', input: `text number ${i} `.repeat(100) })));
      const price = await inputPrice(ctx.gw, key, 'text-embedding-3-small');
      const rows = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select(['id', 'cost_micro']).where('user_id', '=', userId).execute();
      assert.equal(rows.length, 12);
      for (const row of rows) assert.equal(Number(row.cost_micro), cost(777, price));
      const charges = (await chatLedger(ctx.gw, userId)).filter((l) => l.kind === 'chat_charge');
      assert.equal(new Set(charges.map((c) => c.reference)).size, 12);
      assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000 - 12 * cost(777, price));
      assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
    });

    test('GET /models lists the embedding models with their input price and sizes', async () => {
      const { key } = await ctx.gw.createUser(1);
      const models = await openAiClient(ctx.gw, key).models.list();
      const ids = models.data.map((m) => m.id);
      for (const id of ['text-embedding-3-small', 'text-embedding-3-large', 'bge-m3']) assert.ok(ids.includes(id), id);
      const large = models.data.find((m) => m.id === 'text-embedding-3-large') as unknown as { dimensions: number; dimensions_range: unknown; pricing: { input: string } };
      assert.deepEqual([large.dimensions, large.dimensions_range, large.pricing.input], [3072, { min: 1, max: 3072 }, '0.13']);
    });
  },
  { configFile: config },
);
