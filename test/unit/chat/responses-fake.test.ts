/**
 * The strict fake Responses upstream (test/fakes/openai-responses.fake.ts) against the official openai
 * SDK and the published types, and the gateway's Responses stream decoder and answer parser against
 * the fake over HTTP: two independent readings of OpenAI's event list agree.
 */
import assert from 'node:assert/strict';
import { after, beforeEach, describe, test } from 'node:test';
import OpenAI from 'openai';
import type { ChatStreamEvent } from '../../../src/domain/chat/chat-response.types.ts';
import { parseOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.parser.ts';
import { parseResponsesAnswer } from '../../../src/protocols/openai-responses/openai-responses.answer-parser.ts';
import { renderResponsesRequest } from '../../../src/protocols/openai-responses/openai-responses.request-renderer.ts';
import { createResponsesStreamDecoder } from '../../../src/protocols/openai-responses/openai-responses-stream.decoder.ts';
import { OpenAiResponsesFake } from '../../fakes/openai-responses.fake.ts';
import { checkAgainstFixture } from '../../fakes/upstream-schema.ts';

const fake = await OpenAiResponsesFake.start();
after(() => fake.close());
const client = new OpenAI({ baseURL: fake.baseUrl, apiKey: fake.apiKey, maxRetries: 0 });

async function post(body: unknown): Promise<Response> {
  return fetch(`${fake.baseUrl}/responses`, { method: 'POST', headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
}

/** The fake's stream read by the gateway's decoder, frame by frame as an SSE reader hands them on; a broken connection is the decoder's `finish` cause. */
async function decode(res: Response): Promise<ChatStreamEvent[]> {
  const decoder = createResponsesStreamDecoder({ estimatedInputTokens: 100 });
  const events: ChatStreamEvent[] = [];
  const utf8 = new TextDecoder();
  let buffered = '';
  const frames = (): void => {
    let end = buffered.indexOf('\n\n');
    while (end >= 0) {
      const lines = buffered.slice(0, end).split('\n');
      buffered = buffered.slice(end + 2);
      const data = lines.find((l) => l.startsWith('data: '))?.slice(6) ?? '';
      assert.equal(checkAgainstFixture('openai/response-stream-event.response.json', JSON.parse(data)), undefined, data);
      events.push(...decoder.push(lines.find((l) => l.startsWith('event: '))?.slice(7), data));
      end = buffered.indexOf('\n\n');
    }
  };
  try {
    for await (const chunk of res.body ?? []) {
      buffered += utf8.decode(chunk, { stream: true });
      frames();
    }
  } catch {
    events.push(...decoder.finish({ status: 502, message: 'The connection broke.' }));
    return events;
  }
  events.push(...decoder.finish());
  return events;
}

describe('the fake Responses upstream', () => {
  beforeEach(() => fake.reset());

  test('the openai SDK reads its answers and streams; both follow the published types', async () => {
    fake.enqueue({ text: 'Hello there.', usage: { input: 11, output: 3 } }, {}, { reasoning: 'Think.', text: 'Streamed.' });
    const response = await client.responses.create({ model: 'gpt-up', input: 'hi' });
    assert.equal(response.output_text, 'Hello there.');
    assert.deepEqual([response.usage?.input_tokens, response.usage?.output_tokens], [11, 3]);
    const raw = await post({ model: 'gpt-up', input: 'again' });
    assert.equal(checkAgainstFixture('openai/response.response.json', await raw.json()), undefined);

    const stream = client.responses.stream({ model: 'gpt-up', input: 'hi' });
    const types: string[] = [];
    for await (const event of stream) types.push(event.type);
    assert.equal((await stream.finalResponse()).output_text, 'Streamed.');
    assert.deepEqual([types[0], types.at(-1)], ['response.created', 'response.completed']);
  });

  test('it refuses what OpenAI refuses: a field outside the published type, a wrong key', async () => {
    const res = await post({ model: 'gpt-up', input: 'hi', max_tokens: 5 });
    assert.equal(res.status, 400);
    assert.deepEqual(((await res.json()) as { error: { message: string } }).error.message, 'Unrecognized request argument supplied: max_tokens');
    const wrongKey = await fetch(`${fake.baseUrl}/responses`, { method: 'POST', headers: { authorization: 'Bearer nope' }, body: '{}' });
    assert.equal(wrongKey.status, 401);
  });

  test('the gateway\'s renderer, decoder and answer parser against the fake: a request it accepts, a stream and an answer read back', async () => {
    const { request } = parseOpenAiChatRequest({
      model: 'gpt-5.4',
      messages: [{ role: 'system', content: 'Be brief.' }, { role: 'user', content: 'Weather?' }],
      tools: [{ type: 'function', function: { name: 'weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } }],
      reasoning_effort: 'low',
      stream: true,
    });
    fake.enqueue({ reasoning: 'Need a tool.', text: 'Checking.', toolCalls: [{ id: 'call_1', name: 'weather', arguments: { city: 'Oslo' } }], usage: { input: 30, output: 12, cached: 4 }, fragment: true });
    const events = await decode(await post(renderResponsesRequest(request, { model: 'gpt-up' })));
    assert.equal(fake.requests[0]?.body && (fake.requests[0].body as { store: boolean }).store, false);
    const text = events.flatMap((e) => (e.type === 'text_delta' ? [e.text] : [])).join('');
    const reasoning = events.flatMap((e) => (e.type === 'reasoning_delta' ? [e.text] : [])).join('');
    const args = events.flatMap((e) => (e.type === 'tool_call_delta' ? [e.arguments] : [])).join('');
    assert.deepEqual([reasoning, text, JSON.parse(args)], ['Need a tool.', 'Checking.', { city: 'Oslo' }]);
    assert.ok(events.some((e) => e.type === 'reasoning_signature'));
    assert.deepEqual(events.find((e) => e.type === 'tool_call_start'), { type: 'tool_call_start', index: 0, id: 'call_1', name: 'weather' });
    assert.deepEqual(events.at(-1), { type: 'message_end', stopReason: 'tool_use', usage: { inputTokens: 30, outputTokens: 12, cachedInputTokens: 4, cacheCreationTokens: 0, reasoningTokens: 4, serviceTier: 'default' } });

    fake.enqueue({ text: 'Cut', stopReason: 'max_output_tokens', usage: { input: 5, output: 2 } });
    const answer = parseResponsesAnswer(await (await post(renderResponsesRequest({ ...request, stream: false }, { model: 'gpt-up' }))).json());
    assert.deepEqual([answer.response.content, answer.response.stopReason, answer.usage.outputTokens], [[{ type: 'text', text: 'Cut' }], 'max_tokens', 2]);
  });

  test('an error event mid-stream and a cut connection end the decoded stream with an error and the usage observed', async () => {
    fake.enqueue({ text: 'alpha beta gamma delta', errorAfterChunks: { chunks: 5, type: 'rate_limit_exceeded', message: 'Slow down.' } }, { text: 'alpha beta gamma delta', cutAfterChunks: 5 });
    const errored = await decode(await post({ model: 'gpt-up', input: 'hi', stream: true }));
    const last = errored.at(-1);
    assert.equal(last?.type, 'error');
    assert.deepEqual(last?.type === 'error' ? [last.error.status, last.error.message, last.usage.estimated] : [], [429, 'Slow down.', true]);
    const cut = await decode(await post({ model: 'gpt-up', input: 'hi', stream: true }));
    assert.deepEqual(cut.at(-1)?.type === 'error' ? cut.at(-1) : undefined, { type: 'error', error: { status: 502, message: 'The connection broke.' }, usage: { inputTokens: 100, outputTokens: 11, cachedInputTokens: 0, cacheCreationTokens: 0, estimated: true } });
  });
});
