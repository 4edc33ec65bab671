/**
 * A fake Anthropic `/v1/messages` upstream, following the public API: the key (`x-api-key` or
 * `Authorization: Bearer`) and `anthropic-version` headers, the request checks Anthropic makes (model, max_tokens, messages,
 * roles, tool_result blocks answering the previous assistant turn's tool_use), Message objects with
 * usage split into input / cache read / cache creation, and event streams (message_start, ping,
 * content_block_start/delta/stop with text_delta, thinking_delta, signature_delta and
 * input_json_delta, message_delta, message_stop).
 *
 *   const fake = await AnthropicMessagesFake.start();
 *   fake.enqueue({ error: { status: 529 } });
 *   new Anthropic({ baseURL: fake.baseUrl, apiKey: fake.apiKey });
 */
import { randomBytes } from 'node:crypto';
import {
  argumentsText,
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

  async #handle(exchange: FakeExchange): Promise<void> {
    const { req, res, record, script } = exchange;
    const requestId = `req_${randomBytes(8).toString('hex')}`;
    const fail = (status: number, message: string, type = ERROR_TYPES[status] ?? 'api_error', headers: Record<string, string> = {}) =>
      sendJson(res, status, { type: 'error', error: { type, message }, request_id: requestId }, { 'request-id': requestId, ...headers });
    if (req.method !== 'POST' || record.path !== '/v1/messages') return fail(404, 'Not found');
    // The API takes the key as `x-api-key` or, as SDK 1.x sends it, `Authorization: Bearer`.
    if (req.headers['x-api-key'] !== this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return fail(401, 'invalid x-api-key');
    }
    if (typeof req.headers['anthropic-version'] !== 'string') return fail(400, 'anthropic-version: header is required');
    const invalid = validate(record.body, script);
    if (invalid) return fail(400, invalid);
    if (script.error) {
      const e = script.error;
      const headers: Record<string, string> = e.retryAfter === undefined ? {} : { 'retry-after': String(e.retryAfter) };
      if (e.body !== undefined) return sendJson(res, e.status, e.body, headers);
      return fail(e.status, e.message ?? `Fake error ${e.status}.`, e.type, headers);
    }
    const body = record.body as Record<string, unknown>;
    const answer = buildAnswer(body, script);
    if (body.stream === true) return writeSse(exchange, streamFrames(answer, script));
    sendJson(res, 200, {
      id: answer.id,
      type: 'message',
      role: 'assistant',
      model: answer.model,
      content: answer.content,
      stop_reason: answer.stopReason,
      stop_sequence: null,
      ...(script.omitUsage ? {} : { usage: answer.usage }),
    }, { 'request-id': requestId });
  }
}

function validate(body: unknown, script: FakeChatScript): string | undefined {
  if (!isRecord(body)) return 'Request body must be JSON.';
  for (const field of script.rejectFields ?? []) if (field in body) return `${field}: Extra inputs are not permitted`;
  if (typeof body.model !== 'string' || body.model === '') return 'model: Field required';
  if (typeof body.max_tokens !== 'number' || !Number.isInteger(body.max_tokens) || body.max_tokens < 1) return 'max_tokens: Field required';
  if (!Array.isArray(body.messages) || body.messages.length === 0) return 'messages: at least one message is required';
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

interface Answer {
  id: string;
  model: string;
  content: Array<Record<string, unknown>>;
  stopReason: string;
  usage: { input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number };
}

function buildAnswer(body: Record<string, unknown>, script: FakeChatScript): Answer {
  const content: Array<Record<string, unknown>> = [];
  if (script.reasoning) content.push({ type: 'thinking', thinking: script.reasoning, signature: `sig_${randomBytes(6).toString('hex')}` });
  const text = script.text ?? (script.toolCalls?.length ? undefined : 'Hello from the fake upstream.');
  if (text !== undefined) content.push({ type: 'text', text });
  for (const [i, call] of (script.toolCalls ?? []).entries()) {
    const args = argumentsText(call.arguments);
    content.push({ type: 'tool_use', id: call.id ?? `toolu_${randomBytes(6).toString('hex')}${i}`, name: call.name, input: JSON.parse(args) });
  }
  const cached = script.usage?.cached ?? 0;
  const creation = script.usage?.cacheCreation ?? 0;
  return {
    id: script.id ?? `msg_${randomBytes(8).toString('hex')}`,
    model: script.model ?? String(body.model),
    content,
    stopReason: script.stopReason ?? (script.toolCalls?.length ? 'tool_use' : 'end_turn'),
    usage: {
      input_tokens: script.usage?.input ?? fakeTokens([body.system, body.messages, body.tools]),
      output_tokens: script.usage?.output ?? fakeTokens(content),
      cache_read_input_tokens: cached,
      cache_creation_input_tokens: creation,
    },
  };
}

function streamFrames(answer: Answer, script: FakeChatScript): string[] {
  const frame = (name: string, data: Record<string, unknown>): string => `event: ${name}\ndata: ${JSON.stringify({ type: name, ...data })}\n\n`;
  const startUsage = script.omitUsage ? {} : { usage: { ...answer.usage, output_tokens: 1 } };
  const frames = [
    frame('message_start', {
      message: { id: answer.id, type: 'message', role: 'assistant', model: answer.model, content: [], stop_reason: null, stop_sequence: null, ...startUsage },
    }),
  ];
  answer.content.forEach((block, index) => {
    if (block.type === 'text') {
      frames.push(frame('content_block_start', { index, content_block: { type: 'text', text: '' } }));
      if (index === 0) frames.push(frame('ping', {}));
      for (const piece of textPieces(String(block.text))) frames.push(frame('content_block_delta', { index, delta: { type: 'text_delta', text: piece } }));
    } else if (block.type === 'thinking') {
      frames.push(frame('content_block_start', { index, content_block: { type: 'thinking', thinking: '', signature: '' } }));
      for (const piece of textPieces(String(block.thinking))) frames.push(frame('content_block_delta', { index, delta: { type: 'thinking_delta', thinking: piece } }));
      frames.push(frame('content_block_delta', { index, delta: { type: 'signature_delta', signature: block.signature } }));
    } else {
      frames.push(frame('content_block_start', { index, content_block: { type: 'tool_use', id: block.id, name: block.name, input: {} } }));
      // Anthropic opens every tool input with an empty partial_json.
      for (const piece of ['', ...jsonPieces(JSON.stringify(block.input))]) {
        frames.push(frame('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: piece } }));
      }
    }
    frames.push(frame('content_block_stop', { index }));
  });
  frames.push(frame('message_delta', {
    delta: { stop_reason: answer.stopReason, stop_sequence: null },
    ...(script.omitUsage ? {} : { usage: { output_tokens: answer.usage.output_tokens } }),
  }));
  frames.push(frame('message_stop', {}));
  if (script.errorAfterChunks) {
    const { chunks, message, type } = script.errorAfterChunks;
    frames.splice(chunks, frames.length, frame('error', { error: { type: type ?? 'overloaded_error', message: message ?? 'Overloaded' } }));
  }
  return frames;
}
