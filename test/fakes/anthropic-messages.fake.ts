/**
 * A fake Anthropic `/v1/messages` upstream, following the public API: the key (`x-api-key` or
 * `Authorization: Bearer`) and `anthropic-version` headers; the body checked against the published
 * request type of that API version (test/fixtures/upstreams/anthropic/: `2023-06-01` from
 * @anthropic-ai/sdk 0.137.0, `2026-10-21` from 1.12.0; another version is refused): an unknown or
 * misspelt field at any depth, a missing required one or a value outside an enum gets Anthropic's 400
 * `invalid_request_error` naming it; the checks Anthropic makes beyond the type (tool_result blocks
 * answering the previous assistant turn's tool_use; the sampling fields and thinking budget each model
 * refuses, anthropic-model-rules.ts); Message objects with usage as Anthropic reports
 * it (input / cache read / cache creation with its split by lifetime, server tool use, service tier),
 * and event streams (message_start, ping, content_block_start/delta/stop with text_delta,
 * thinking_delta, signature_delta and input_json_delta, message_delta with the cumulative usage,
 * message_stop). `GET /v1/models` pages `models` with the same key and version checks.
 *
 *   const fake = await AnthropicMessagesFake.start();
 *   fake.enqueue({ error: { status: 529 } });
 *   new Anthropic({ baseURL: fake.baseUrl, apiKey: fake.apiKey });
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
import { anthropicModelRefusal } from './anthropic-model-rules.ts';
import { checkAgainstFixture, type SchemaViolation } from './upstream-schema.ts';

/** The published request type of each API version the fake answers. */
export const ANTHROPIC_REQUEST_FIXTURES: Readonly<Record<string, string>> = {
  '2023-06-01': 'anthropic/messages-2023-06-01.request.json',
  '2026-10-21': 'anthropic/messages-2026-10-21.request.json',
};

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export class AnthropicMessagesFake extends FakeUpstreamServer {
  readonly apiKey: string;

  private constructor(apiKey: string) {
    super((exchange) => this.#handle(exchange));
    this.apiKey = apiKey;
  }

  static async start(options: { apiKey?: string } = {}): Promise<AnthropicMessagesFake> {
    const fake = new AnthropicMessagesFake(options.apiKey ?? 'sk-ant-fake');
    await fake.listen();
    return fake;
  }

  /** The base URL as the Anthropic SDK and our `anthropic` provider take it. */
  get baseUrl(): string {
    return this.origin;
  }

  /** The models `GET /v1/models` lists, newest first (Anthropic's ModelInfo: id, display_name, created_at). */
  readonly models: Array<{ id: string; display_name: string; created_at: string }> = [
    { id: 'claude-sonnet-4-5', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
    { id: 'claude-haiku-4-5', display_name: 'Claude Haiku 4.5', created_at: '2025-10-15T00:00:00Z' },
  ];

  /** One page of `GET /v1/models` (`limit` 1 to 1000, default 20), as Anthropic pages it. */
  #modelPage(limit: number): Record<string, unknown> {
    const data = this.models.slice(0, Math.min(1000, Math.max(1, Number.isFinite(limit) ? limit : 20))).map((m) => ({ type: 'model', ...m }));
    return { data, has_more: data.length < this.models.length, first_id: data[0]?.id ?? null, last_id: data.at(-1)?.id ?? null };
  }

  async #handle(exchange: FakeExchange): Promise<void> {
    const { req, res, record, script } = exchange;
    const requestId = `req_${randomBytes(8).toString('hex')}`;
    const fail = (status: number, message: string, type = ERROR_TYPES[status] ?? 'api_error', headers: Record<string, string> = {}) =>
      sendJson(res, status, { type: 'error', error: { type, message }, request_id: requestId }, { 'request-id': requestId, ...headers });
    const url = new URL(record.path, 'http://fake');
    const listing = req.method === 'GET' && url.pathname === '/v1/models';
    if (!listing && (req.method !== 'POST' || record.path !== '/v1/messages')) return fail(404, 'Not found');
    // The API takes the key as `x-api-key` or, as SDK 1.x sends it, `Authorization: Bearer`.
    if (req.headers['x-api-key'] !== this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return fail(401, 'invalid x-api-key');
    }
    const version = req.headers['anthropic-version'];
    if (typeof version !== 'string') return fail(400, 'anthropic-version: header is required');
    const fixture = ANTHROPIC_REQUEST_FIXTURES[version];
    if (!fixture) return fail(400, `anthropic-version: ${JSON.stringify(version)} is not a valid version`);
    if (listing) {
      const e = script.error;
      if (e) return fail(e.status, e.message ?? `Fake error ${e.status}.`, e.type, e.retryAfter === undefined ? {} : { 'retry-after': String(e.retryAfter) });
      return sendJson(res, 200, this.#modelPage(Number(url.searchParams.get('limit') ?? 20)), { 'request-id': requestId });
    }
    const invalid = validate(record.body, script, fixture);
    if (invalid) return fail(400, invalid);
    if (script.error) {
      const e = script.error;
      const headers: Record<string, string> = e.retryAfter === undefined ? {} : { 'retry-after': String(e.retryAfter) };
      if (e.body !== undefined) return sendJson(res, e.status, e.body, headers);
      return fail(e.status, e.message ?? `Fake error ${e.status}.`, e.type, headers);
    }
    const body = record.body as Record<string, unknown>;
    const answer = buildAnswer(body, script);
    const bill = billOf(body, answer, script);
    if (body.stream === true) {
      const frames = streamFrames(answer, script);
      exchange.bill(bill);
      const written = await writeSse(exchange, frames);
      exchange.bill(billForFrames(bill, script.hiddenReasoningTokens ?? 0, written, frames.length));
      return;
    }
    // A whole answer is generated, and billed, whether or not the client is still there.
    exchange.bill(bill);
    sendJson(res, 200, {
      id: answer.id,
      type: 'message',
      role: 'assistant',
      model: answer.model,
      content: answer.content,
      stop_reason: answer.stopReason,
      stop_sequence: null,
      stop_details: null,
      container: null,
      diagnostics: null,
      ...(script.omitUsage ? {} : { usage: answer.usage }),
    }, { 'request-id': requestId });
  }
}

/** A schema finding as Anthropic words it (`messages.0.content.1.type: Input should be …`). */
export function anthropicViolation(v: SchemaViolation): string {
  const at = v.path.join('.');
  const field = (name: string | undefined) => (at === '' ? String(name) : `${at}.${name}`);
  const quote = (x: unknown) => (typeof x === 'string' ? `'${x}'` : JSON.stringify(x));
  switch (v.kind) {
    case 'unknown_field':
      return `${field(v.field)}: Extra inputs are not permitted`;
    case 'missing_field':
      return `${field(v.field)}: Field required`;
    case 'invalid_value': {
      const allowed = (v.allowed ?? []).filter((a) => a !== null).map(quote);
      const list = allowed.length > 1 ? `${allowed.slice(0, -1).join(', ')} or ${allowed.at(-1)}` : (allowed[0] ?? '');
      return `${at}: Input should be ${list}`;
    }
    case 'invalid_type':
      return `${at}: Input should be a valid ${v.expected}`;
  }
}

function validate(body: unknown, script: FakeChatScript, fixture: string): string | undefined {
  if (!isRecord(body)) return 'Request body must be JSON.';
  for (const field of script.rejectFields ?? []) if (field in body) return `${field}: Extra inputs are not permitted`;
  const violation = checkAgainstFixture(fixture, body);
  if (violation) return anthropicViolation(violation);
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
  const refused = anthropicModelRefusal(body);
  if (refused) return refused;
  let previousToolUses = new Set<string>();
  for (const [i, m] of body.messages.entries()) {
    if (!isRecord(m) || (m.role !== 'user' && m.role !== 'assistant')) return `messages.${i}.role: Input should be 'user' or 'assistant'`;
    const blocks = typeof m.content === 'string' ? [] : Array.isArray(m.content) ? m.content : undefined;
    if (!blocks) return `messages.${i}.content: Input should be a valid list`;
    const toolUses = new Set<string>();
    for (const block of blocks) {
      if (!isRecord(block)) return `messages.${i}.content: Input should be an object`;
      if (block.type === 'tool_use' && typeof block.id === 'string') toolUses.add(block.id);
      if (block.type === 'tool_result' && (m.role !== 'user' || !previousToolUses.has(String(block.tool_use_id)))) {
        return `messages.${i}.content: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${String(block.tool_use_id)}. Each \`tool_result\` block must have a corresponding \`tool_use\` block in the previous message.`;
      }
    }
    previousToolUses = toolUses;
  }
  return undefined;
}

/** Anthropic's `Usage` (@anthropic-ai/sdk 1.12.0): every field present, null when it does not apply. */
interface AnthropicUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
  cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
  server_tool_use: { web_search_requests: number; web_fetch_requests: number } | null;
  service_tier: string | null;
  speed: string | null;
  inference_geo: string | null;
  output_tokens_details: null;
}

interface Answer {
  id: string;
  model: string;
  content: Array<Record<string, unknown>>;
  stopReason: string;
  usage: AnthropicUsage;
}

function buildAnswer(body: Record<string, unknown>, script: FakeChatScript): Answer {
  const content: Array<Record<string, unknown>> = [];
  if (script.reasoning) content.push({ type: 'thinking', thinking: script.reasoning, signature: `sig_${randomBytes(6).toString('hex')}` });
  // Each web search the API ran is a server_tool_use block and its result, before the answer.
  for (let i = 0; i < (script.usage?.webSearches ?? 0); i++) {
    const id = `srvtoolu_${randomBytes(6).toString('hex')}${i}`;
    content.push({ type: 'server_tool_use', id, name: 'web_search', input: { query: `search ${i + 1}` }, caller: { type: 'direct' } });
    content.push({
      type: 'web_search_tool_result',
      tool_use_id: id,
      caller: { type: 'direct' },
      content: [{ type: 'web_search_result', url: `https://example.com/${i}`, title: `Result ${i + 1}`, encrypted_content: 'EqgfCioIARgBIiQ3', page_age: null }],
    });
  }
  const text = script.text ?? (script.toolCalls?.length ? undefined : 'Hello from the fake upstream.');
  if (text !== undefined) content.push({ type: 'text', text, citations: null });
  for (const [i, call] of (script.toolCalls ?? []).entries()) {
    const args = argumentsText(call.arguments);
    content.push({ type: 'tool_use', id: call.id ?? `toolu_${randomBytes(6).toString('hex')}${i}`, name: call.name, input: JSON.parse(args), caller: { type: 'direct' } });
  }
  const u = script.usage ?? {};
  const creation = u.cacheCreation ?? 0;
  const creation1h = u.cacheCreation1h ?? 0;
  const serverTools = u.webSearches !== undefined || u.webFetches !== undefined;
  return {
    id: script.id ?? `msg_${randomBytes(8).toString('hex')}`,
    model: script.model ?? String(body.model),
    content,
    stopReason: script.stopReason ?? (script.toolCalls?.length ? 'tool_use' : 'end_turn'),
    usage: {
      input_tokens: u.input ?? fakeTokens([body.system, body.messages, body.tools]),
      output_tokens: (u.output ?? fakeTokens(content)) + (script.hiddenReasoningTokens ?? 0),
      cache_read_input_tokens: u.cached ?? 0,
      cache_creation_input_tokens: creation,
      cache_creation: { ephemeral_5m_input_tokens: creation - creation1h, ephemeral_1h_input_tokens: creation1h },
      server_tool_use: serverTools ? { web_search_requests: u.webSearches ?? 0, web_fetch_requests: u.webFetches ?? 0 } : null,
      service_tier: u.serviceTier ?? 'standard',
      speed: typeof body.speed === 'string' ? body.speed : 'standard',
      inference_geo: typeof body.inference_geo === 'string' ? body.inference_geo : 'global',
      output_tokens_details: null,
      // A broken upstream's counts, as they are (the type says numbers; the wire carries anything).
      ...(script.rawUsage as Partial<AnthropicUsage> | undefined),
    },
  };
}

/** What Anthropic bills, from the script's counts (not `rawUsage`): `input_tokens` excludes cache reads and writes, the bill's input counts them. */
function billOf(body: Record<string, unknown>, answer: Answer, script: FakeChatScript): FakeBill {
  const input = script.usage?.input ?? fakeTokens([body.system, body.messages, body.tools]);
  const output = (script.usage?.output ?? fakeTokens(answer.content)) + (script.hiddenReasoningTokens ?? 0);
  const cached = script.usage?.cached ?? 0;
  const creation = script.usage?.cacheCreation ?? 0;
  return { inputTokens: input + cached + creation, outputTokens: output, cachedInputTokens: cached, cacheCreationTokens: creation };
}

function streamFrames(answer: Answer, script: FakeChatScript): string[] {
  const frame = (name: string, data: Record<string, unknown>): string => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  const startUsage = script.omitUsage ? {} : { usage: { ...answer.usage, output_tokens: 1 } };
  const frames = [
    frame('message_start', {
      message: { id: answer.id, type: 'message', role: 'assistant', model: answer.model, content: [], stop_reason: null, stop_sequence: null, stop_details: null, container: null, diagnostics: null, ...startUsage },
    }),
  ];
  answer.content.forEach((block, index) => {
    if (block.type === 'text') {
      frames.push(frame('content_block_start', { index, content_block: { type: 'text', text: '', citations: null } }));
      if (index === 0) frames.push(frame('ping', {}));
      for (const piece of textPieces(String(block.text))) frames.push(frame('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    } else if (block.type === 'thinking') {
      frames.push(frame('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      for (const piece of textPieces(String(block.thinking))) frames.push(frame('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }));
      frames.push(frame('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }));
    } else if (block.type === 'server_tool_use' || block.type === 'web_search_tool_result') {
      // Server tool blocks arrive whole in content_block_start.
      frames.push(frame('content_block_start', { index, content_block: block }));
    } else {
      frames.push(frame('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {}, caller: { type: 'direct' } } }));
      // Anthropic opens every tool input with an empty partial_json.
      for (const piece of ['', ...jsonPieces(JSON.stringify(block.input))]) {
        frames.push(frame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
      }
    }
    frames.push(frame('content_block_stop', { index }));
  });
  // message_delta's usage is cumulative (MessageDeltaUsage): the server tools' count arrives here.
  const u = answer.usage;
  frames.push(frame('message_delta', {
    delta: { stop_reason: answer.stopReason, stop_sequence: null, stop_details: null, container: null },
    ...(script.omitUsage
      ? {}
      : {
          usage: {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cache_read_input_tokens: u.cache_read_input_tokens,
            cache_creation_input_tokens: u.cache_creation_input_tokens,
            server_tool_use: u.server_tool_use,
            output_tokens_details: null,
          },
        }),
  }));
  frames.push(frame('message_stop', {}));
  if (script.errorAfterChunks) {
    const { chunks, message, type } = script.errorAfterChunks;
    frames.splice(chunks, frames.length, frame('error', { error: { type: type ?? 'overloaded_error', message: message ?? 'Overloaded' } }));
  }
  return frames;
}
