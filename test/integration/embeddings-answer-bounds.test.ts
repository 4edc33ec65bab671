/**
 * The bound on an embeddings answer (issue 29, item 8): more than 3,145,728 values (inputs ×
 * dimensions) is a 400 in OpenAI's shape naming `input`, before anything is held, charged or
 * recorded; the largest answer allowed is still answered whole and right, its floats written in the
 * CPU pool (the pool's count of answered tasks), while base64 and small answers are not sent there.
 * A large upstream answer (base64 or floats) is read in the pool too. The built-in local provider
 * answers text-embedding-3-large (no route configured), a strict fake OpenAI upstream the others; on
 * SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, test } from 'node:test';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import { fakeVector, OpenAiEmbeddingsFake } from '../fakes/openai-embeddings.fake.ts';
import { balanceMicro, heldMicro, openAiClient } from '../support/chat-gateway.ts';
import { describeEachMode } from '../support/gateway.ts';

const fake = await OpenAiEmbeddingsFake.start();
after(() => fake.close());
const upstream = { type: 'openai', baseUrl: fake.baseUrl, apiKey: fake.apiKey, timeoutMs: 20_000 };
const config = {
  providers: { emb: upstream, 'emb-float': { ...upstream, options: { embeddingsEncoding: 'float' } } },
  routes: { 'text-embedding-3-small': ['emb'], 'bge-m3': [{ provider: 'emb-float', model: 'BAAI/bge-m3' }] },
};

describeEachMode('embeddings: the bound on inputs × dimensions, large answers in the CPU pool', (ctx) => {
  beforeEach(() => fake.reset());

  test('2,048 inputs × 3,072 dimensions is refused on input, and changes nothing', async () => {
    const { key, userId } = await ctx.gw.createUser(100);
    const inputs = Array.from({ length: 2048 }, (_, i) => `word ${i}`);
    for (const body of [{ model: 'text-embedding-3-large', input: inputs }, { model: 'text-embedding-3-large', input: inputs, dimensions: 1537 }]) {
      const res = await ctx.gw.api(key, 'POST', '/api/v1/embeddings', body);
      assert.equal(res.status, 400);
      const error = (res.body as { error: { code: string; param: string; type: string; message: string } }).error;
      assert.deepEqual([error.code, error.param, error.type], ['invalid_input', 'input', 'invalid_request_error']);
      assert.match(error.message, /at most 3145728/);
    }
    const rows = await ctx.gw.gateway.services.database.db.selectFrom('chat_requests').select('id').where('user_id', '=', userId).execute();
    assert.deepEqual(rows, []);
    assert.equal(await balanceMicro(ctx.gw, userId), 1_000_000);
    assert.equal(await heldMicro(ctx.gw, userId), 0);
  });

  test('the largest answer allowed (1,024 × 3,072 floats) is whole and right, written in the CPU pool; base64 is not', async () => {
    const { key, userId } = await ctx.gw.createUser(100);
    const client = openAiClient(ctx.gw, key);
    const cpu = ctx.gw.gateway.services.cpu;
    const inputs = Array.from({ length: 1024 }, (_, i) => `text number ${i}`);
    const before = cpu.answered('encodeEmbeddings');
    const large = await client.embeddings.create({ model: 'text-embedding-3-large', input: inputs, encoding_format: 'float' });
    assert.equal(cpu.answered('encodeEmbeddings'), before + 1, 'the float answer was written in the pool');
    assert.deepEqual(large.data.map((d) => d.index), inputs.map((_, i) => i));
    assert.deepEqual(large.usage, { prompt_tokens: 3 * 1024, total_tokens: 3 * 1024 });
    // The same vectors as when asked one at a time (a small answer, written on the loop).
    for (const i of [0, 511, 1023]) {
      const one = await client.embeddings.create({ model: 'text-embedding-3-large', input: inputs[i] as string, encoding_format: 'float' });
      assert.deepEqual(large.data[i]?.embedding, one.data[0]?.embedding, `vector ${i}`);
    }
    const base64 = await ctx.gw.api(key, 'POST', '/api/v1/embeddings', { model: 'text-embedding-3-large', input: inputs, encoding_format: 'base64' });
    assert.equal(base64.status, 200);
    const last = Buffer.from((base64.body as { data: Array<{ embedding: string }> }).data[1023]?.embedding ?? '', 'base64');
    assert.deepEqual(Array.from(new Float32Array(new Uint8Array(last).buffer)), large.data[1023]?.embedding.map((x) => Math.fround(x)));
    assert.equal(cpu.answered('encodeEmbeddings'), before + 1, 'small and base64 answers stay on the loop');
    assert.equal(await heldMicro(ctx.gw, userId), 0);
    assert.deepEqual(await verifyLedger(ctx.gw.gateway.services.database.db), []);
  });

  test('a large upstream answer, base64 or floats, is read in the CPU pool and answered right', async () => {
    const { key } = await ctx.gw.createUser(100);
    const client = openAiClient(ctx.gw, key);
    const cpu = ctx.gw.gateway.services.cpu;
    const inputs = Array.from({ length: 600 }, (_, i) => `passage ${i}`);
    for (const [model, dimensions, asked] of [['text-embedding-3-small', 1536, 'base64'], ['bge-m3', 1024, 'float']] as const) {
      const before = cpu.answered('decodeEmbeddings');
      const response = await client.embeddings.create({ model, input: inputs, encoding_format: 'float' });
      assert.equal(cpu.answered('decodeEmbeddings'), before + 1, `${model}: the upstream's answer was read in the pool`);
      assert.equal((fake.requests.at(-1)?.body as { encoding_format?: string } | undefined)?.encoding_format, asked);
      assert.equal(response.data.length, 600);
      for (const i of [0, 299, 599]) {
        const expected = fakeVector(JSON.stringify(inputs[i]), dimensions);
        assert.deepEqual(response.data[i]?.embedding.map((x) => Math.fround(x)), Array.from(expected), `${model} vector ${i}`);
      }
    }
    // A small answer is read on the loop.
    const before = cpu.answered('decodeEmbeddings');
    await client.embeddings.create({ model: 'text-embedding-3-small', input: 'one' });
    assert.equal(cpu.answered('decodeEmbeddings'), before);
  });
}, { configFile: config });
