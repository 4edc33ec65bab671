/**
 * A fake OpenAI `/v1/responses` upstream, following the public API (issue 20): bearer auth, the body
 * checked against OpenAI's published request type (openai@7.57.0 `ResponseCreateParamsBase`,
 * test/fixtures/upstreams/openai/responses.request.json: an unknown or misspelt field at any depth, a
 * missing required one or a value outside an enum gets OpenAI's 400 naming it), `response` objects, and
 * typed event streams in OpenAI's order with `sequence_number` (created, in_progress, per item added →
 * deltas → done, completed or incomplete). Written by hand from the published types, independently of
 * the gateway's encoder, so that each can be checked against the other. No provider speaks to it yet
 * (docs/decisions.md, 2026-11-25); it takes the same scripts as the chat fakes.
 *
 *   const fake = await OpenAiResponsesFake.start();
 *   fake.enqueue({ reasoning: 'Hmm.', toolCalls: [{ name: 'get_weather', arguments: { city: 'Paris' } }] });
 *   new OpenAI({ baseURL: fake.baseUrl, apiKey: fake.apiKey }).responses.create({ model: 'x', input: 'hi' });
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
import { openAiViolation } from './openai-chat.fake.ts';
import { checkAgainstFixture } from './upstream-schema.ts';

export const OPENAI_RESPONSES_REQUEST_FIXTURE = 'openai/responses.request.json';

type Item = Record<string, unknown> & { type: string; id: string };

export class OpenAiResponsesFake extends FakeUpstreamServer {
  readonly apiKey: string;

  private constructor(apiKey: string) {
    super((exchange) => this.#handle(exchange));
    this.apiKey = apiKey;
  }

  static async start(options: { apiKey?: string } = {}): Promise<OpenAiResponsesFake> {
    const fake = new OpenAiResponsesFake(options.apiKey ?? 'sk-fake-openai');
    await fake.listen();
    return fake;
  }

  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  async #handle(exchange: FakeExchange): Promise<void> {
    const { req, res, record, script } = exchange;
    if (req.method !== 'POST' || record.path !== '/v1/responses') {
      return sendJson(res, 404, errorBody(`Unknown request URL: ${req.method} ${record.path}.`, 'invalid_request_error', null, 'unknown_url'));
    }
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) {
      return sendJson(res, 401, errorBody('Incorrect API key provided.', 'invalid_request_error', null, 'invalid_api_key'));
    }
    const body = record.body;
    if (!isRecord(body)) return sendJson(res, 400, errorBody('We could not parse the JSON body of your request.', 'invalid_request_error', null, null));
    const violation = checkAgainstFixture(OPENAI_RESPONSES_REQUEST_FIXTURE, body);
    if (violation) {
      const v = openAiViolation(violation);
      return sendJson(res, 400, errorBody(v.message, 'invalid_request_error', v.param, v.code));
    }
    for (const field of script.rejectFields ?? []) {
      if (field in body) return sendJson(res, 400, errorBody(`Unrecognized request argument supplied: ${field}`, 'invalid_request_error', null, null));
    }
    if (script.error) {
      const e = script.error;
      const headers: Record<string, string> = e.retryAfter === undefined ? {} : { 'retry-after': String(e.retryAfter) };
      const type = e.type ?? (e.status === 429 ? 'requests' : e.status >= 500 ? 'server_error' : 'invalid_request_error');
      return sendJson(res, e.status, e.body ?? errorBody(e.message ?? `Fake error ${e.status}.`, type, null, null), headers);
    }
    const answer = buildAnswer(body, script);
    if (body.stream === true) {
      const frames = streamFrames(answer, script);
      exchange.bill(answer.bill);
      const written = await writeSse(exchange, frames);
      exchange.bill(billForFrames(answer.bill, script.hiddenReasoningTokens ?? 0, written, frames.length));
      return;
    }
    // A whole answer is generated, and billed, whether or not the client is still there.
    exchange.bill(answer.bill);
    sendJson(res, 200, answer.response(answer.incomplete ? 'incomplete' : 'completed'));
  }
}

function errorBody(message: string, type: string, param: string | null, code: string | null) {
  return { error: { message, type, param, code } };
}

interface Answer {
  reasoning: string | undefined;
  text: string | undefined;
  calls: Array<{ id: string; call_id: string; name: string; arguments: string }>;
  incomplete: boolean;
  /** What OpenAI bills for the whole generation (reported or not). */
  bill: FakeBill;
  /** The final items: reasoning, message, function calls. */
  items: Item[];
  response(status: 'in_progress' | 'completed' | 'incomplete'): Record<string, unknown>;
}

function buildAnswer(body: Record<string, unknown>, script: FakeChatScript): Answer {
  const suffix = randomBytes(8).toString('hex');
  const calls = (script.toolCalls ?? []).map((call, i) => ({ id: `fc_${suffix}${i}`, call_id: call.id ?? `call_${suffix}${i}`, name: call.name, arguments: argumentsText(call.arguments) }));
  const text = script.text ?? (calls.length > 0 ? undefined : 'Hello from the fake upstream.');
  const incomplete = script.stopReason === 'max_output_tokens';
  const itemStatus = incomplete ? 'incomplete' : 'completed';
  const items: Item[] = [];
  if (script.reasoning) items.push({ type: 'reasoning', id: `rs_${suffix}`, summary: [{ type: 'summary_text', text: script.reasoning }], encrypted_content: `enc_${suffix}` });
  if (text !== undefined) items.push({ type: 'message', id: `msg_${suffix}`, role: 'assistant', status: itemStatus, content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] });
  for (const call of calls) items.push({ type: 'function_call', status: 'completed', ...call });
  const input = script.usage?.input ?? fakeTokens([body.input, body.instructions, body.tools]);
  const hidden = script.hiddenReasoningTokens ?? 0;
  const output = (script.usage?.output ?? fakeTokens([text, calls, script.reasoning])) + hidden;
  const cached = script.usage?.cached ?? 0;
  const usage = {
    input_tokens: input,
    input_tokens_details: { cached_tokens: cached, cache_write_tokens: script.usage?.cacheCreation ?? 0 },
    output_tokens: output,
    output_tokens_details: { reasoning_tokens: hidden + (script.reasoning ? Math.min(output - hidden, fakeTokens(script.reasoning)) : 0) },
    total_tokens: input + output,
  };
  const asked = typeof body.service_tier === 'string' ? body.service_tier : undefined;
  const serviceTier = script.usage?.serviceTier ?? (asked === 'priority' ? 'priority' : 'default');
  const created = Math.floor(Date.now() / 1000);
  const id = script.id ?? `resp_${suffix}`;
  const model = script.model ?? String(body.model);
  return {
    reasoning: script.reasoning,
    text,
    calls,
    incomplete,
    bill: { inputTokens: input, outputTokens: output, cachedInputTokens: cached, cacheCreationTokens: script.usage?.cacheCreation ?? 0 },
    items,
    response(status) {
      const done = status !== 'in_progress';
      return {
        id,
        object: 'response',
        access_programs: null,
        created_at: created,
        status,
        error: null,
        incomplete_details: status === 'incomplete' ? { reason: 'max_output_tokens' } : null,
        instructions: typeof body.instructions === 'string' ? body.instructions : null,
        max_output_tokens: typeof body.max_output_tokens === 'number' ? body.max_output_tokens : null,
        metadata: isRecord(body.metadata) ? body.metadata : {},
        model,
        output: done ? items : [],
        parallel_tool_calls: body.parallel_tool_calls !== false,
        temperature: typeof body.temperature === 'number' ? body.temperature : 1,
        tool_choice: body.tool_choice ?? 'auto',
        tools: Array.isArray(body.tools) ? body.tools : [],
        top_p: typeof body.top_p === 'number' ? body.top_p : 1,
        service_tier: serviceTier,
        ...(done && !script.omitUsage ? { usage } : {}),
      };
    },
  };
}

function streamFrames(answer: Answer, script: FakeChatScript): string[] {
  let sequence = 0;
  const frame = (type: string, data: Record<string, unknown>): string => `event: ${type}\ndata: ${JSON.stringify({ type, ...data, sequence_number: sequence++ })}\n\n`;
  const frames = [frame('response.created', { response: answer.response('in_progress') }), frame('response.in_progress', { response: answer.response('in_progress') })];
  answer.items.forEach((item, output_index) => {
    const at = { item_id: item.id, output_index };
    if (item.type === 'reasoning') {
      frames.push(frame('response.output_item.added', { output_index, item: { ...item, summary: [], encrypted_content: null } }));
      frames.push(frame('response.reasoning_summary_part.added', { ...at, summary_index: 0, part: { type: 'summary_text', text: '' } }));
      for (const piece of textPieces(answer.reasoning ?? '')) frames.push(frame('response.reasoning_summary_text.delta', { ...at, summary_index: 0, delta: piece }));
      frames.push(frame('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: answer.reasoning }));
      frames.push(frame('response.reasoning_summary_part.done', { ...at, summary_index: 0, part: { type: 'summary_text', text: answer.reasoning } }));
    } else if (item.type === 'message') {
      frames.push(frame('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } }));
      frames.push(frame('response.content_part.added', { ...at, content_index: 0, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } }));
      for (const piece of textPieces(answer.text ?? '')) frames.push(frame('response.output_text.delta', { ...at, content_index: 0, delta: piece, logprobs: [] }));
      frames.push(frame('response.output_text.done', { ...at, content_index: 0, text: answer.text, logprobs: [] }));
      frames.push(frame('response.content_part.done', { ...at, content_index: 0, part: { type: 'output_text', text: answer.text, annotations: [], logprobs: [] } }));
    } else {
      frames.push(frame('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } }));
      for (const piece of jsonPieces(String(item.arguments))) frames.push(frame('response.function_call_arguments.delta', { ...at, delta: piece }));
      frames.push(frame('response.function_call_arguments.done', { ...at, arguments: item.arguments }));
    }
    frames.push(frame('response.output_item.done', { output_index, item }));
  });
  const status = answer.incomplete ? 'incomplete' : 'completed';
  frames.push(frame(`response.${status}`, { response: answer.response(status) }));
  if (script.errorAfterChunks) {
    const { chunks, message, type } = script.errorAfterChunks;
    frames.splice(chunks, frames.length, frame('error', { code: type ?? 'server_error', message: message ?? 'The server had an error while processing your request.', param: null }));
  }
  return frames;
}
