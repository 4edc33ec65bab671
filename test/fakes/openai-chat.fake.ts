/**
 * A fake OpenAI `/v1/chat/completions` upstream, following the public API: bearer auth, the request
 * checked against OpenAI's published request type (openai@7.57.0 `ChatCompletionCreateParamsBase`,
 * test/fixtures/upstreams/openai/: an unknown or misspelt field at any depth, a missing required one
 * or a value outside an enum gets OpenAI's 400 `invalid_request_error` naming it), the checks OpenAI
 * makes beyond the type (messages not empty, tool messages answering a preceding tool call,
 * stream_options only with stream), chat.completion objects with `service_tier` (the tier asked for,
 * or `default`), and chunk streams with the role first, indexed tool-call deltas, the finish chunk,
 * the usage chunk (with include_usage) and `[DONE]`. `GET /v1/models` lists `models` with the same
 * key checks (`moreKeys`, `failingKeys`) and the scripted `error`.
 *
 *   const fake = await OpenAiChatFake.start();
 *   fake.enqueue({ toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
 *   new OpenAI({ baseURL: fake.baseUrl, apiKey: fake.apiKey });
 */
import { randomBytes } from 'node:crypto';
import {
  argumentsText,
  billForFrames,
  type FakeBill,
  type FakeChatScript,
  type FakeExchange,
  FakeUpstreamServer,
  fakeTokens,
  isRecord,
  jsonPieces,
  sendJson,
  textPieces,
  writeSse,
} from './fake-upstream.ts';
import { checkAgainstFixture, type SchemaViolation } from './upstream-schema.ts';

/**
 * A recorded Gemini usage with thinking (gemini-2.5-flash, mozilla-ai/any-llm#1290; the same shape in
 * router-for-me/CLIProxyAPI#5733): `usage_metadata` prompt 20, candidates 198, thoughts 405, total 623.
 * Gemini bills the thoughts as output; its OpenAI-compatible usage maps candidates to
 * `completion_tokens` and counts the thoughts only in `total_tokens`. Scripted as
 * `usage: { input: 20, output: 198, thoughtsOutsideCompletion: 405 }`.
 */
export const GEMINI_THINKING_USAGE = { prompt_tokens: 20, completion_tokens: 198, total_tokens: 623 } as const;

/** OpenAI's published request type, as the strict fake checks it. */
export const OPENAI_CHAT_REQUEST_FIXTURE = 'openai/chat-completions.request.json';

const ROLES = new Set(['system', 'developer', 'user', 'assistant', 'tool', 'function']);

export class OpenAiChatFake extends FakeUpstreamServer {
  readonly apiKey: string;
  /** More keys of the same account (OpenAI accepts every key a project has); one removed from here is refused with 401, as a revoked key is. */
  readonly moreKeys = new Set<string>();
  /** Keys whose calls fail with this status (OpenAI's `server_error` body), as when that key's project is overloaded. */
  readonly failingKeys = new Map<string, number>();

  private constructor(apiKey: string) {
    super((exchange) => this.#handle(exchange));
    this.apiKey = apiKey;
  }

  static async start(options: { apiKey?: string } = {}): Promise<OpenAiChatFake> {
    const fake = new OpenAiChatFake(options.apiKey ?? 'sk-fake-openai');
    await fake.listen();
    return fake;
  }

  /** The base URL as the OpenAI SDK and our `openai` provider take it. */
  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** The models `GET /v1/models` lists (OpenAI's `{object: 'list', data: [Model]}`). */
  readonly models: string[] = ['gpt-4o-mini', 'gpt-4.1', 'text-embedding-3-small'];

  async #handle(exchange: FakeExchange): Promise<void> {
    const { req, res, record, script } = exchange;
    const listing = req.method === 'GET' && record.path === '/v1/models';
    if (!listing && (req.method !== 'POST' || record.path !== '/v1/chat/completions')) {
      return sendJson(res, 404, errorBody(`Unknown request URL: ${req.method} ${record.path}.`, 'invalid_request_error', null, 'unknown_url'));
    }
    const bearer = req.headers.authorization?.startsWith('Bearer ') ? req.headers.authorization.slice(7) : undefined;
    if (bearer === undefined || (bearer !== this.apiKey && !this.moreKeys.has(bearer))) {
      return sendJson(res, 401, errorBody('Incorrect API key provided.', 'invalid_request_error', null, 'invalid_api_key'));
    }
    const failing = this.failingKeys.get(bearer);
    if (failing !== undefined) return sendJson(res, failing, errorBody('The server had an error while processing your request. Sorry about that!', 'server_error', null, null));
    if (listing) return this.#listModels(exchange);
    const invalid = validate(record.body, script);
    if (invalid) return sendJson(res, 400, errorBody(invalid.message, 'invalid_request_error', invalid.param, invalid.code ?? null));
    if (script.error) {
      const e = script.error;
      const headers: Record<string, string> = e.retryAfter === undefined ? {} : { 'retry-after': String(e.retryAfter) };
      const type = e.type ?? (e.status === 429 ? 'requests' : e.status >= 500 ? 'server_error' : 'invalid_request_error');
      return sendJson(res, e.status, e.body ?? errorBody(e.message ?? `Fake error ${e.status}.`, type, null, null), headers);
    }
    const body = record.body as Record<string, unknown>;
    const answer = buildAnswer(body, script);
    if (body.stream === true) {
      const options = isRecord(body.stream_options) ? body.stream_options : {};
      const frames = streamFrames(answer, script, options.include_usage === true);
      exchange.bill(answer.bill);
      const written = await writeSse(exchange, frames);
      exchange.bill(billForFrames(answer.bill, script.hiddenReasoningTokens ?? 0, written, frames.length));
      return;
    }
    // A whole answer is generated, and billed, whether or not the client is still there.
    exchange.bill(answer.bill);
    sendJson(res, 200, {
      id: answer.id,
      object: 'chat.completion',
      created: answer.created,
      model: answer.model,
      service_tier: answer.serviceTier,
      system_fingerprint: 'fp_fake',
      choices: [{
        index: 0,
        message: {
          role: 'assistant',
          content: answer.text,
          refusal: null,
          ...(answer.toolCalls.length > 0 ? { tool_calls: answer.toolCalls } : {}),
          ...(answer.reasoning ? { reasoning_content: answer.reasoning } : {}),
        },
        logprobs: null,
        finish_reason: answer.finishReason,
      }],
      ...(script.omitUsage ? {} : { usage: answer.usage }),
    });
  }

  /** `GET /v1/models` (openai-node `models.list()`): a scripted error answers instead, as on chat. */
  #listModels(exchange: FakeExchange): void {
    const { res, script } = exchange;
    if (script.error) {
      const e = script.error;
      const headers: Record<string, string> = e.retryAfter === undefined ? {} : { 'retry-after': String(e.retryAfter) };
      const type = e.type ?? (e.status === 429 ? 'requests' : e.status >= 500 ? 'server_error' : 'invalid_request_error');
      sendJson(res, e.status, e.body ?? errorBody(e.message ?? `Fake error ${e.status}.`, type, null, null), headers);
      return;
    }
    sendJson(res, 200, { object: 'list', data: this.models.map((id) => ({ id, object: 'model', created: 1_715_367_049, owned_by: 'system' })) });
  }
}

function errorBody(message: string, type: string, param: string | null, code: string | null) {
  return { error: { message, type, param, code } };
}

/** `messages[0].content[1].type`: how OpenAI names a field in its errors. */
function openAiPath(path: Array<string | number>): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : i === 0 ? p : `.${p}`)).join('');
}

/** A schema finding as OpenAI words it. */
export function openAiViolation(v: SchemaViolation): { message: string; param: string | null; code: string | null } {
  const at = openAiPath(v.path);
  const quote = (x: unknown) => `'${typeof x === 'string' ? x : JSON.stringify(x)}'`;
  switch (v.kind) {
    case 'unknown_field':
      return v.path.length === 0
        ? { message: `Unrecognized request argument supplied: ${v.field}`, param: null, code: null }
        : { message: `Unknown parameter: '${at}.${v.field}'.`, param: `${at}.${v.field}`, code: 'unknown_parameter' };
    case 'missing_field': {
      const param = at === '' ? String(v.field) : `${at}.${v.field}`;
      return { message: `Missing required parameter: '${param}'.`, param, code: 'missing_required_parameter' };
    }
    case 'invalid_value':
      return { message: `Invalid value: ${quote(v.value)}. Supported values are: ${(v.allowed ?? []).filter((a) => a !== null).map(quote).join(', ')}.`, param: at, code: 'invalid_value' };
    case 'invalid_type':
      return { message: `Invalid type for '${at}': expected ${v.expected}, but got ${v.value === null ? 'null' : Array.isArray(v.value) ? 'an array' : typeof v.value} instead.`, param: at, code: 'invalid_type' };
  }
}

function validate(body: unknown, script: FakeChatScript): { message: string; param: string | null; code?: string | null } | undefined {
  if (!isRecord(body)) return { message: 'We could not parse the JSON body of your request.', param: null };
  for (const field of script.rejectFields ?? []) {
    if (field in body) return { message: `Unrecognized request argument supplied: ${field}`, param: null };
  }
  const violation = checkAgainstFixture(OPENAI_CHAT_REQUEST_FIXTURE, body);
  if (violation) return openAiViolation(violation);
  if (typeof body.model !== 'string' || body.model === '') return { message: 'you must provide a model parameter', param: null };
  if (!Array.isArray(body.messages) || body.messages.length === 0) {
    return { message: "Invalid 'messages': empty array. Expected an array with minimum length 1.", param: 'messages' };
  }
  if (body.stream_options !== undefined && body.stream !== true) {
    return { message: "The 'stream_options' parameter is only allowed when 'stream' is enabled.", param: 'stream_options' };
  }
  const open = new Set<string>();
  for (const [i, m] of body.messages.entries()) {
    if (!isRecord(m) || typeof m.role !== 'string' || !ROLES.has(m.role)) {
      return { message: `Invalid value for 'messages[${i}].role'.`, param: `messages[${i}].role` };
    }
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      for (const call of m.tool_calls) if (isRecord(call) && typeof call.id === 'string') open.add(call.id);
    } else if (m.role === 'tool') {
      if (typeof m.tool_call_id !== 'string' || !open.has(m.tool_call_id)) {
        return { message: "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", param: `messages[${i}]` };
      }
    }
  }
  return undefined;
}

interface Answer {
  id: string;
  created: number;
  model: string;
  text: string | null;
  reasoning: string | undefined;
  toolCalls: Array<{ id: string; type: 'function'; function: { name: string; arguments: string } }>;
  finishReason: string;
  usage: Record<string, unknown>;
  /** What OpenAI bills for the whole generation (reported or not). */
  bill: FakeBill;
  serviceTier: string;
}

function buildAnswer(body: Record<string, unknown>, script: FakeChatScript): Answer {
  const toolCalls = (script.toolCalls ?? []).map((call, i) => ({
    id: call.id ?? `call_${randomBytes(6).toString('hex')}${i}`,
    type: 'function' as const,
    function: { name: call.name, arguments: argumentsText(call.arguments) },
  }));
  const text = script.text ?? (toolCalls.length > 0 ? null : 'Hello from the fake upstream.');
  const input = script.usage?.input ?? fakeTokens([body.messages, body.tools]);
  const hidden = script.hiddenReasoningTokens ?? 0;
  const output = (script.usage?.output ?? fakeTokens([text, toolCalls, script.reasoning])) + hidden;
  const cached = script.usage?.cached ?? 0;
  // OpenAI reports the tier that served the request: priority for `priority` and `fast`.
  const asked = typeof body.service_tier === 'string' ? body.service_tier : undefined;
  const serviceTier = script.usage?.serviceTier ?? (asked === 'priority' || asked === 'fast' ? 'priority' : asked === 'flex' || asked === 'scale' ? asked : 'default');
  return {
    serviceTier,
    id: script.id ?? `chatcmpl-${randomBytes(8).toString('hex')}`,
    created: Math.floor(Date.now() / 1000),
    model: script.model ?? String(body.model),
    text,
    reasoning: script.reasoning,
    toolCalls,
    finishReason: script.stopReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
    bill: { inputTokens: input, outputTokens: output + (script.usage?.thoughtsOutsideCompletion ?? 0), cachedInputTokens: cached, cacheCreationTokens: script.usage?.cacheCreation ?? 0 },
    usage: {
      prompt_tokens: input,
      completion_tokens: output,
      total_tokens: input + output + (script.usage?.thoughtsOutsideCompletion ?? 0),
      prompt_tokens_details: { cached_tokens: cached, audio_tokens: 0, ...(script.usage?.cacheCreation !== undefined ? { cache_write_tokens: script.usage.cacheCreation } : {}) },
      // Gemini's compatible usage has no completion details; OpenAI's counts reasoning inside completion_tokens.
      ...(script.usage?.thoughtsOutsideCompletion === undefined ? { completion_tokens_details: { reasoning_tokens: hidden, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } } : {}),
      ...script.rawUsage,
    },
  };
}

function streamFrames(answer: Answer, script: FakeChatScript, includeUsage: boolean): string[] {
  const frame = (data: unknown): string => `data: ${JSON.stringify(data)}\n\n`;
  const chunk = (delta: Record<string, unknown>, finishReason: string | null = null): string =>
    frame({
      id: answer.id,
      object: 'chat.completion.chunk',
      created: answer.created,
      model: answer.model,
      service_tier: answer.serviceTier,
      system_fingerprint: 'fp_fake',
      choices: [{ index: 0, delta, logprobs: null, finish_reason: finishReason }],
      ...(includeUsage ? { usage: null } : {}),
    });
  const frames = [chunk({ role: 'assistant', content: '', refusal: null })];
  if (answer.reasoning) for (const piece of textPieces(answer.reasoning)) frames.push(chunk({ reasoning_content: piece }));
  if (answer.text) for (const piece of textPieces(answer.text)) frames.push(chunk({ content: piece }));
  answer.toolCalls.forEach((call, index) => {
    frames.push(chunk({ tool_calls: [{ index, id: call.id, type: 'function', function: { name: call.function.name, arguments: '' } }] }));
    for (const piece of jsonPieces(call.function.arguments)) frames.push(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }));
  });
  frames.push(chunk({}, answer.finishReason));
  if (includeUsage && !script.omitUsage) {
    frames.push(frame({ id: answer.id, object: 'chat.completion.chunk', created: answer.created, model: answer.model, service_tier: answer.serviceTier, system_fingerprint: 'fp_fake', choices: [], usage: answer.usage }));
  }
  frames.push('data: [DONE]\n\n');
  if (script.errorAfterChunks) {
    const { chunks, message, type } = script.errorAfterChunks;
    frames.splice(chunks, frames.length, frame({ error: { message: message ?? 'The server had an error while processing your request.', type: type ?? 'server_error', param: null, code: null } }));
  }
  return frames;
}
