/**
 * The chat fakes are strict (issue 18): they check a body against the vendor's published request type
 * (test/fixtures/upstreams/) and answer the vendor's own 400 for an unknown or misspelt field, a
 * missing required field and a value outside an enum; what they answer follows the vendor's published
 * response types, usage included (cache writes by lifetime, server tool use, service tier).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { AnthropicMessagesFake } from '../../fakes/anthropic-messages.fake.ts';
import { OpenAiChatFake } from '../../fakes/openai-chat.fake.ts';
import { conforms, loadFixture } from '../../fakes/upstream-schema.ts';

let openai: OpenAiChatFake;
let anthropic: AnthropicMessagesFake;

before(async () => {
  [openai, anthropic] = await Promise.all([OpenAiChatFake.start(), AnthropicMessagesFake.start()]);
});

after(async () => {
  await Promise.all([openai.close(), anthropic.close()]);
});

async function post(url: string, headers: Record<string, string>, body: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

describe('fixtures name their source', () => {
  test('every fixture has a source and the date it was read', () => {
    for (const file of [
      'openai/chat-completions.request.json',
      'openai/chat-completion.response.json',
      'openai/chat-completion-chunk.response.json',
      'anthropic/messages-2023-06-01.request.json',
      'anthropic/messages-2026-10-21.request.json',
      'anthropic/message.response.json',
      'anthropic/message-stream-event.response.json',
    ]) {
      const fixture = loadFixture(file);
      assert.match(fixture.source, /^(openai|@anthropic-ai\/sdk)@\d+\.\d+\.\d+ \(npm/, file);
      assert.equal(fixture.retrieved, '2026-11-25', file);
    }
  });
});

describe('strict OpenAI fake', () => {
  const call = (body: Record<string, unknown>) => post(`${openai.baseUrl}/chat/completions`, { authorization: `Bearer ${openai.apiKey}` }, body);
  const ok = { model: 'gpt-x', messages: [{ role: 'user', content: 'hi' }] };

  test('an unknown field, a misspelt nested one, a value outside an enum and a missing field get OpenAI 400s', async () => {
    const cases: Array<[Record<string, unknown>, string | null, RegExp]> = [
      [{ ...ok, servce_tier: 'priority' }, null, /^Unrecognized request argument supplied: servce_tier$/],
      [{ ...ok, service_tier: 'turbo' }, 'service_tier', /^Invalid value: 'turbo'\. Supported values are: 'auto', 'default', 'flex', 'scale', 'priority', 'fast'\.$/],
      [{ ...ok, web_search_options: { search_context_size: 'huge' } }, 'web_search_options.search_context_size', /^Invalid value: 'huge'/],
      [{ ...ok, messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'https://x.test/a.png', detial: 'low' } }] }] }, 'messages[0].content[0].image_url.detial', /^Unknown parameter/],
      [{ model: 'gpt-x' }, 'messages', /^Missing required parameter: 'messages'\.$/],
      [{ ...ok, stream: true, stream_options: { include_usage: true, include_cost: true } }, 'stream_options.include_cost', /^Unknown parameter/],
    ];
    for (const [body, param, message] of cases) {
      const res = await call(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      const error = res.body.error as { message: string; type: string; param: string | null };
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.param, param);
      assert.match(error.message, message);
    }
  });

  test('what the published type allows passes, and the SDK reads the refusal as a BadRequestError', async () => {
    assert.equal((await call({ ...ok, service_tier: 'priority', seed: 3, reasoning_effort: 'low', verbosity: 'low', prompt_cache_key: 'k' })).status, 200);
    const client = new OpenAI({ baseURL: openai.baseUrl, apiKey: openai.apiKey, maxRetries: 0 });
    await assert.rejects(
      client.chat.completions.create({ ...ok, service_tier: 'turbo' } as unknown as OpenAI.ChatCompletionCreateParamsNonStreaming),
      (error: unknown) => error instanceof OpenAI.BadRequestError && error.param === 'service_tier',
    );
  });

  test('answers follow the published response types; the tier asked for is reported', async () => {
    const whole = await call({ ...ok, service_tier: 'priority' });
    assert.deepEqual(conforms('openai/chat-completion.response.json', whole.body), { ok: true });
    assert.equal(whole.body.service_tier, 'priority');
    openai.enqueue({ usage: { input: 10, output: 3, cached: 4 } });
    const res = await fetch(`${openai.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${openai.apiKey}` },
      body: JSON.stringify({ ...ok, stream: true, stream_options: { include_usage: true } }),
    });
    const chunks = (await res.text()).split('\n\n').filter((f) => f.startsWith('data: {')).map((f) => JSON.parse(f.slice(6)) as Record<string, unknown>);
    for (const chunk of chunks) assert.deepEqual(conforms('openai/chat-completion-chunk.response.json', chunk), { ok: true });
    const last = chunks.at(-1) as { usage: { prompt_tokens_details: unknown } };
    assert.deepEqual(last.usage.prompt_tokens_details, { cached_tokens: 4, audio_tokens: 0 });
  });
});

describe('strict Anthropic fake', () => {
  const headers = (version = '2023-06-01') => ({ 'x-api-key': anthropic.apiKey, 'anthropic-version': version });
  const call = (body: Record<string, unknown>, version?: string) => post(`${anthropic.baseUrl}/v1/messages`, headers(version), body);
  const ok = { model: 'claude-x', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] };

  test('an unknown field, a misspelt nested one, a value outside an enum and a missing field get Anthropic 400s', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ ...ok, mcp_servers: [] }, 'mcp_servers: Extra inputs are not permitted'],
      [{ ...ok, service_tier: 'priority' }, "service_tier: Input should be 'auto' or 'standard_only'"],
      [{ ...ok, messages: [{ role: 'user', content: [{ type: 'text', text: 'a', cache_control: { type: 'ephemeral', ttl: '2h' } }] }] }, "messages.0.content.0.cache_control.ttl: Input should be '5m' or '1h'"],
      [{ ...ok, tools: [{ type: 'web_search_20250305', name: 'web_search', max_usess: 2 }] }, 'tools.0.max_usess: Extra inputs are not permitted'],
      [{ model: 'claude-x', messages: ok.messages }, 'max_tokens: Field required'],
      [{ ...ok, speed: 'ludicrous' }, "speed: Input should be 'standard' or 'fast'"],
    ];
    for (const [body, message] of cases) {
      const res = await call(body);
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.deepEqual(res.body.error, { type: 'invalid_request_error', message });
      assert.equal(res.body.type, 'error');
    }
  });

  test('each API version has its own type: temperature is gone from 2026-10-21; unknown versions are refused', async () => {
    assert.equal((await call({ ...ok, temperature: 0.5, top_k: 3 }, '2023-06-01')).status, 200);
    const newer = await call({ ...ok, temperature: 0.5 }, '2026-10-21');
    assert.equal(newer.status, 400);
    assert.equal((newer.body.error as { message: string }).message, 'temperature: Extra inputs are not permitted');
    assert.equal((await call(ok, '2024-01-01')).status, 400);
    // The 1.x SDK sends 2026-10-21 and gets the refusal as a BadRequestError.
    const client = new Anthropic({ baseURL: anthropic.baseUrl, apiKey: anthropic.apiKey, maxRetries: 0 });
    await assert.rejects(client.messages.create({ ...ok, inference_geos: 'us' } as unknown as Anthropic.MessageCreateParamsNonStreaming), Anthropic.BadRequestError);
  });

  test('answers follow the published response types, with cache writes by lifetime, server tool use and service tier', async () => {
    anthropic.enqueue({ usage: { input: 50, output: 7, cached: 10, cacheCreation: 30, cacheCreation1h: 20, webSearches: 2, serviceTier: 'standard' } });
    const whole = await call(ok);
    assert.deepEqual(conforms('anthropic/message.response.json', whole.body), { ok: true });
    const usage = whole.body.usage as Record<string, unknown>;
    assert.deepEqual(usage.cache_creation, { ephemeral_5m_input_tokens: 10, ephemeral_1h_input_tokens: 20 });
    assert.deepEqual(usage.server_tool_use, { web_search_requests: 2, web_fetch_requests: 0 });
    assert.equal(usage.service_tier, 'standard');

    anthropic.enqueue({ usage: { input: 50, output: 7, webSearches: 1 } });
    const res = await fetch(`${anthropic.baseUrl}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers() },
      body: JSON.stringify({ ...ok, stream: true }),
    });
    const events = (await res.text()).split('\n\n').filter((f) => f.includes('data: ')).map((f) => JSON.parse(f.slice(f.indexOf('data: ') + 6)) as Record<string, unknown>);
    // `ping` is documented on the streaming page but is not a member of the SDK's event type.
    for (const event of events.filter((e) => e.type !== 'ping')) assert.deepEqual(conforms('anthropic/message-stream-event.response.json', event), { ok: true }, JSON.stringify(event));
    const delta = events.find((e) => e.type === 'message_delta') as { usage: { server_tool_use: unknown } } | undefined;
    assert.deepEqual(delta?.usage.server_tool_use, { web_search_requests: 1, web_fetch_requests: 0 });
  });
});
