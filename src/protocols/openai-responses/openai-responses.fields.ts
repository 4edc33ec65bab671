/**
 * The top-level fields of a Responses request we accept (issue 20): the published request type,
 * `ResponseCreateParamsBase` of the `openai` package 7.57.0 (resources/responses/responses.d.ts, read
 * 2026-11-25). Each is read into the canonical request, translated to its chat-completions name (the
 * route's upstream is spoken to over chat completions or messages, decision of 2026-11-25), accepted
 * without effect, or refused with a 400 naming it. A field outside the type is refused as OpenAI
 * refuses it.
 */
import { invalidInput } from '../../domain/errors.ts';
import type { ChatPriceOptions } from '../../domain/chat/chat-request.types.ts';
import { expectArray, expectObject, expectString, type JsonObject } from '../../domain/chat/json-input.ts';
import { readOpenAiExtras } from '../openai-chat/openai-chat.fields.ts';

/** Read by the parser into the canonical request. */
const MODELLED = new Set([
  'model', 'input', 'instructions', 'stream', 'temperature', 'top_p', 'max_output_tokens', 'tools', 'tool_choice',
  'parallel_tool_calls', 'text', 'reasoning', 'user',
]);

/**
 * Accepted and without effect on the answer or the price. `store`: nothing is stored whatever it says
 * (the published `Response` type has no `store` field, so the answer does not claim either), so that clients which send `store: true` by habit still work;
 * what storing would offer (previous_response_id, item references, GET) is refused where it is asked
 * for. `metadata` is echoed in the answer. `include` asks for extra output we never produce (logprobs,
 * encrypted reasoning, hosted tools' results). `stream_options` only holds obfuscation padding.
 */
const WITHOUT_EFFECT = new Set(['store', 'metadata', 'include', 'stream_options']);

/** The Responses name → the chat-completions name, for the fields forwarded to an OpenAI-style upstream. */
const FORWARDED: Readonly<Record<string, string>> = {
  service_tier: 'service_tier',
  safety_identifier: 'safety_identifier',
  prompt_cache_key: 'prompt_cache_key',
  prompt_cache_retention: 'prompt_cache_retention',
};

/** What refusing each unsupported field says: the reason a client can act on. */
const REFUSED: Readonly<Record<string, string>> = {
  previous_response_id: 'responses are not stored (every response is store: false); send the whole conversation in input instead.',
  conversation: 'conversations are not stored; send the whole conversation in input instead.',
  prompt: 'stored prompt templates are not offered; send instructions and input instead.',
  background: 'background responses are not offered: they would have to be stored and polled.',
  context_management: 'server-side compaction is not offered: it needs stored responses.',
  max_tool_calls: 'hosted tools are not offered, so there are no built-in tool calls to limit.',
  top_logprobs: 'log probabilities are not offered on this route.',
  moderation: 'moderation settings are not offered on this route.',
  image: 'image generation settings are not offered on this route.',
  access_programs: 'access programs are not offered on this route.',
  prompt_cache_options: 'prompt cache options are not offered on this route.',
};

export interface ResponsesExtras {
  /** Chat-completions fields for an OpenAI-style upstream. */
  fields: JsonObject;
  /** Names as the client sent them (`reasoning.effort`) of the fields another protocol cannot honour. */
  keepAcross: string[];
  priceOptions: ChatPriceOptions | undefined;
}

/**
 * The fields beyond those the parser reads: each must be in the published type; those forwarded go
 * through the chat-completions checks (service tiers and their prices), so the two routes bill alike.
 */
export function readResponsesExtras(body: JsonObject): ResponsesExtras {
  const chatFields: JsonObject = {};
  const names: Record<string, string> = {};
  for (const [key, value] of Object.entries(body)) {
    if (MODELLED.has(key) || value === null || value === undefined) continue;
    if (WITHOUT_EFFECT.has(key)) {
      checkWithoutEffect(key, value);
      continue;
    }
    const refusal = REFUSED[key];
    if (refusal !== undefined) throw invalidInput(`${key} is not supported: ${refusal}`, key);
    if (key === 'truncation') {
      if (value === 'disabled') continue;
      if (value === 'auto') throw invalidInput('truncation "auto" is not offered: a conversation longer than the context window is refused, not cut.', key);
      throw invalidInput('truncation must be "auto" or "disabled".', key);
    }
    const chatName = FORWARDED[key];
    if (chatName === undefined) throw invalidInput(`Unrecognized request argument supplied: ${key} (not a field of OpenAI's Responses request).`, key);
    chatFields[chatName] = value;
    names[chatName] = key;
  }
  readNested(body, chatFields, names);
  const extras = readOpenAiExtras(chatFields);
  return { fields: extras.fields, keepAcross: extras.keepAcross.map((name) => names[name] ?? name), priceOptions: extras.priceOptions };
}

/** `reasoning.effort` and `text.verbosity`: nested here, top-level fields of chat completions. */
function readNested(body: JsonObject, chatFields: JsonObject, names: Record<string, string>): void {
  if (body.reasoning !== undefined && body.reasoning !== null) {
    const reasoning = expectObject(body.reasoning, 'reasoning');
    for (const [key, value] of Object.entries(reasoning)) {
      if (value === null || value === undefined) continue;
      if (key === 'effort') {
        chatFields.reasoning_effort = expectString(value, 'reasoning.effort');
        names.reasoning_effort = 'reasoning.effort';
      } else if (key !== 'summary' && key !== 'generate_summary') {
        // Summaries are a hint: the answer carries the reasoning the upstream returns, if any.
        throw invalidInput(`reasoning.${key} is not a field of OpenAI's Responses request.`, `reasoning.${key}`);
      }
    }
  }
  if (body.text !== undefined && body.text !== null) {
    const text = expectObject(body.text, 'text');
    for (const key of Object.keys(text)) {
      if (key !== 'format' && key !== 'verbosity') throw invalidInput(`text.${key} is not a field of OpenAI's Responses request.`, `text.${key}`);
    }
    if (text.verbosity !== undefined && text.verbosity !== null) {
      chatFields.verbosity = expectString(text.verbosity, 'text.verbosity');
      names.verbosity = 'text.verbosity';
    }
  }
}

function checkWithoutEffect(key: string, value: unknown): void {
  switch (key) {
    case 'store':
      if (typeof value !== 'boolean') throw invalidInput('store must be a boolean.', key);
      return;
    case 'metadata': {
      const metadata = expectObject(value, key);
      for (const [name, v] of Object.entries(metadata)) expectString(v, `metadata.${name}`);
      return;
    }
    case 'include':
      for (const [i, v] of expectArray(value, key).entries()) expectString(v, `include[${i}]`);
      return;
    default:
      expectObject(value, key);
  }
}
