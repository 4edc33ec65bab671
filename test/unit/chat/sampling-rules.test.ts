import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Catalog } from '../../../src/domain/catalog/catalog.ts';
import { applySamplingRules } from '../../../src/domain/chat/sampling-rules.ts';
import { isAppError } from '../../../src/domain/errors.ts';
import { parseAnthropicMessagesRequest } from '../../../src/protocols/anthropic-messages/anthropic-messages.parser.ts';
import { parseOpenAiChatRequest } from '../../../src/protocols/openai-chat/openai-chat.parser.ts';

const catalog = Catalog.build();
const rules = (id: string) => catalog.chat(id)?.sampling;
const openAi = (body: Record<string, unknown>) => parseOpenAiChatRequest({ messages: [{ role: 'user', content: 'x' }], ...body }).request;
const anthropic = (body: Record<string, unknown>) => parseAnthropicMessagesRequest({ max_tokens: 8, messages: [{ role: 'user', content: 'x' }], ...body });
const refusedNaming = (param: string) => (e: unknown) => isAppError(e) && e.code === 'invalid_input' && e.param === param;

test('the catalog records which sampling fields each Claude model takes; the others take them all', () => {
  assert.deepEqual(rules('claude-opus-4-7'), { refused: ['temperature', 'top_p', 'top_k'], budgetThinkingRefused: true });
  assert.deepEqual(rules('claude-sonnet-4-6'), { exclusive: ['temperature', 'top_p'] });
  assert.deepEqual(rules('claude-haiku-4-5'), { exclusive: ['temperature', 'top_p'] });
  for (const id of ['gpt-5.5', 'gemini-3.1-pro', 'deepseek-v4-pro']) assert.equal(rules(id), undefined, id);
});

test('OpenAI-protocol requests: refused fields are dropped and named, the rest kept', () => {
  const request = openAi({ model: 'claude-opus-4-7', temperature: 0.7, top_p: 0.5, seed: 3 });
  assert.deepEqual(applySamplingRules(rules('claude-opus-4-7'), request, 'openai'), ['temperature', 'top_p']);
  assert.deepEqual([request.temperature, request.topP], [undefined, undefined]);
  assert.equal(request.passthrough?.fields.seed, 3);
  const both = openAi({ model: 'claude-haiku-4-5', temperature: 0.3, top_p: 0.5 });
  assert.deepEqual(applySamplingRules(rules('claude-haiku-4-5'), both, 'openai'), ['top_p']);
  assert.equal(both.temperature, 0.3);
  assert.equal(applySamplingRules(rules('claude-haiku-4-5'), openAi({ model: 'claude-haiku-4-5', top_p: 0.5 }), 'openai'), undefined);
  assert.equal(applySamplingRules(undefined, openAi({ model: 'gpt-5.5', temperature: 2 }), 'openai'), undefined);
});

test('messages-protocol requests: refused before anything, naming the field; the default temperature is dropped', () => {
  const opus = rules('claude-opus-4-7');
  assert.throws(() => applySamplingRules(opus, anthropic({ model: 'claude-opus-4-7', temperature: 0.7 }), 'anthropic'), refusedNaming('temperature'));
  assert.throws(() => applySamplingRules(opus, anthropic({ model: 'claude-opus-4-7', top_k: 4 }), 'anthropic'), refusedNaming('top_k'));
  assert.throws(() => applySamplingRules(opus, anthropic({ model: 'claude-opus-4-7', thinking: { type: 'enabled', budget_tokens: 1024 } }), 'anthropic'), refusedNaming('thinking.type'));
  assert.throws(() => applySamplingRules(rules('claude-sonnet-4-6'), anthropic({ model: 'claude-sonnet-4-6', temperature: 0.2, top_p: 0.4 }), 'anthropic'), refusedNaming('top_p'));
  const plain = anthropic({ model: 'claude-opus-4-7', temperature: 1, thinking: { type: 'adaptive' } });
  assert.deepEqual(applySamplingRules(opus, plain, 'anthropic'), ['temperature']);
  assert.equal(plain.temperature, undefined);
  const withTopK = anthropic({ model: 'claude-haiku-4-5', top_k: 4 });
  assert.equal(applySamplingRules(rules('claude-haiku-4-5'), withTopK, 'anthropic'), undefined);
});
