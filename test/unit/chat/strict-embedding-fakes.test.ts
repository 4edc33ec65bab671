/**
 * The embeddings and count_tokens fakes are strict like the chat fakes (issue 18): a body is checked
 * against the vendor's published request type (openai@7.57.0 `EmbeddingCreateParams`,
 * @anthropic-ai/sdk 1.12.0 `MessageCountTokensParams`) and refused with the vendor's 400 naming the
 * field; the vendors' own SDKs talk to them unchanged, and their answers follow the published
 * response types.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { ANTHROPIC_COUNT_TOKENS_FIXTURE, ANTHROPIC_TOKENS_COUNT_RESPONSE_FIXTURE, AnthropicCountTokensFake } from '../../fakes/anthropic-count-tokens.fake.ts';
import { fakeVector, OPENAI_EMBEDDING_RESPONSE_FIXTURE, OPENAI_EMBEDDINGS_REQUEST_FIXTURE, OpenAiEmbeddingsFake } from '../../fakes/openai-embeddings.fake.ts';
import { conforms, loadFixture } from '../../fakes/upstream-schema.ts';

let embeddings: OpenAiEmbeddingsFake;
let counts: AnthropicCountTokensFake;

before(async () => {
  [embeddings, counts] = await Promise.all([OpenAiEmbeddingsFake.start(), AnthropicCountTokensFake.start()]);
});

after(async () => {
  await Promise.all([embeddings.close(), counts.close()]);
});

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

test('the fixtures name their source and the date they were read', () => {
  for (const file of [OPENAI_EMBEDDINGS_REQUEST_FIXTURE, OPENAI_EMBEDDING_RESPONSE_FIXTURE, ANTHROPIC_COUNT_TOKENS_FIXTURE, ANTHROPIC_TOKENS_COUNT_RESPONSE_FIXTURE]) {
    const fixture = loadFixture(file);
    assert.match(fixture.source, /^(openai@7\.57\.0|@anthropic-ai\/sdk@1\.12\.0) /, file);
    assert.equal(fixture.retrieved, '2026-11-25', file);
  }
});

test('the openai SDK embeds against the embeddings fake, floats and base64', async () => {
  const client = new OpenAI({ baseURL: embeddings.baseUrl, apiKey: embeddings.apiKey, maxRetries: 0 });
  const viaBase64 = await client.embeddings.create({ model: 'text-embedding-3-small', input: ['a', 'b'], dimensions: 8 });
  assert.deepEqual(Array.from(viaBase64.data[1]?.embedding ?? []), Array.from(fakeVector('"b"', 8)));
  const floats = await client.embeddings.create({ model: 'text-embedding-3-large', input: 'hello world', encoding_format: 'float' });
  assert.equal(floats.data[0]?.embedding.length, 3072);
  assert.deepEqual(floats.usage, { prompt_tokens: 2, total_tokens: 2 });
  const raw = await post(`${embeddings.baseUrl}/embeddings`, { authorization: `Bearer ${embeddings.apiKey}` }, { model: 'text-embedding-3-small', input: 'x' });
  assert.deepEqual(conforms(OPENAI_EMBEDDING_RESPONSE_FIXTURE, raw.body), { ok: true });
});

test('the embeddings fake refuses what OpenAI refuses, naming the field', async () => {
  const auth = { authorization: `Bearer ${embeddings.apiKey}` };
  const url = `${embeddings.baseUrl}/embeddings`;
  const cases: Array<[unknown, string | null]> = [
    [{ model: 'text-embedding-3-small', input: 'x', extra: 1 }, null],
    [{ model: 'text-embedding-3-small' }, 'input'],
    [{ model: 'text-embedding-3-small', input: 'x', encoding_format: 'int8' }, 'encoding_format'],
    [{ model: 'text-embedding-ada-002', input: 'x', dimensions: 8 }, 'dimensions'],
    [{ model: 'text-embedding-3-small', input: 'x', dimensions: 4000 }, 'dimensions'],
    [{ model: 'text-embedding-3-small', input: '' }, 'input'],
  ];
  for (const [body, param] of cases) {
    const res = await post(url, auth, body);
    assert.equal(res.status, 400, JSON.stringify(body));
    const error = res.body.error as { type: string; param: string | null; message: string };
    assert.equal(error.type, 'invalid_request_error');
    if (param === null) assert.match(error.message, /Unrecognized request argument supplied: extra/);
    else assert.equal(error.param, param, JSON.stringify(body));
  }
  assert.equal((await post(url, { authorization: 'Bearer nope' }, { model: 'text-embedding-3-small', input: 'x' })).status, 401);
});

test('the Anthropic SDK counts against the count_tokens fake; a field of messages.create only is refused', async () => {
  const client = new Anthropic({ baseURL: counts.baseUrl, apiKey: counts.apiKey, maxRetries: 0 });
  const count = await client.messages.countTokens({ model: 'claude-sonnet-4-6', system: 'Be brief.', messages: [{ role: 'user', content: 'Hello there' }] });
  // system: Be brief . (3); the message: 3 + Hello there (2).
  assert.deepEqual(count, { input_tokens: 8 });
  assert.deepEqual(conforms(ANTHROPIC_TOKENS_COUNT_RESPONSE_FIXTURE, count), { ok: true });
  const headers = { 'x-api-key': counts.apiKey, 'anthropic-version': '2023-06-01' };
  const refused = await post(`${counts.baseUrl}/v1/messages/count_tokens`, headers, { model: 'm', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] });
  assert.equal(refused.status, 400);
  assert.deepEqual(refused.body.error, { type: 'invalid_request_error', message: 'max_tokens: Extra inputs are not permitted' });
  const missing = await post(`${counts.baseUrl}/v1/messages/count_tokens`, headers, { model: 'm' });
  assert.deepEqual(missing.body.error, { type: 'invalid_request_error', message: 'messages: Field required' });
});
