/**
 * A fake Anthropic `POST /v1/messages/count_tokens` upstream, following the public API: the key
 * (`x-api-key` or bearer), an `anthropic-version` header, the body checked against the published
 * `MessageCountTokensParams` (@anthropic-ai/sdk 1.12.0, test/fixtures/upstreams/anthropic/
 * count-tokens.request.json; an unknown field, a missing one or a value outside an enum gets
 * Anthropic's 400 `invalid_request_error` naming it), and a `MessageTokensCount` answer: one token
 * per word and per punctuation mark of every text, 3 per message (a script's `usage.input` replaces it).
 */
import { type FakeExchange, FakeUpstreamServer, isRecord, sendJson } from './fake-upstream.ts';
import { anthropicViolation } from './anthropic-messages.fake.ts';
import { wordTokens } from './openai-embeddings.fake.ts';
import { checkAgainstFixture } from './upstream-schema.ts';

export const ANTHROPIC_COUNT_TOKENS_FIXTURE = 'anthropic/count-tokens.request.json';
export const ANTHROPIC_TOKENS_COUNT_RESPONSE_FIXTURE = 'anthropic/message-tokens-count.response.json';

export class AnthropicCountTokensFake extends FakeUpstreamServer {
  readonly apiKey: string;

  private constructor(apiKey: string) {
    super((exchange) => this.#handle(exchange));
    this.apiKey = apiKey;
  }

  static async start(options: { apiKey?: string } = {}): Promise<AnthropicCountTokensFake> {
    const fake = new AnthropicCountTokensFake(options.apiKey ?? 'sk-ant-fake-count');
    await fake.listen();
    return fake;
  }

  get baseUrl(): string {
    return this.origin;
  }

  async #handle(exchange: FakeExchange): Promise<void> {
    const { req, res, record, script } = exchange;
    const fail = (status: number, type: string, message: string, headers: Record<string, string> = {}) =>
      sendJson(res, status, { type: 'error', error: { type, message }, request_id: 'req_fake' }, headers);
    if (req.method !== 'POST' || record.path !== '/v1/messages/count_tokens') return fail(404, 'not_found_error', 'Not found');
    if (req.headers['x-api-key'] !== this.apiKey && req.headers.authorization !== `Bearer ${this.apiKey}`) return fail(401, 'authentication_error', 'invalid x-api-key');
    if (typeof req.headers['anthropic-version'] !== 'string') return fail(400, 'invalid_request_error', 'anthropic-version: header is required');
    if (!isRecord(record.body)) return fail(400, 'invalid_request_error', 'Request body must be JSON.');
    const violation = checkAgainstFixture(ANTHROPIC_COUNT_TOKENS_FIXTURE, record.body);
    if (violation) return fail(400, 'invalid_request_error', anthropicViolation(violation));
    if (script.error) {
      const e = script.error;
      const headers: Record<string, string> = e.retryAfter === undefined ? {} : { 'retry-after': String(e.retryAfter) };
      return fail(e.status, e.type ?? (e.status === 529 ? 'overloaded_error' : e.status === 429 ? 'rate_limit_error' : 'api_error'), e.message ?? `Fake error ${e.status}.`, headers);
    }
    sendJson(res, 200, { input_tokens: script.usage?.input ?? countBody(record.body) });
  }
}

/** Words and marks of every string in the body, plus 3 per message. */
function countBody(body: Record<string, unknown>): number {
  let total = 0;
  const walk = (value: unknown): void => {
    if (typeof value === 'string') total += wordTokens(value);
    else if (Array.isArray(value)) for (const v of value) walk(v);
    else if (isRecord(value)) for (const [k, v] of Object.entries(value)) if (k !== 'type' && k !== 'role') walk(v);
  };
  walk(body.system);
  walk(body.tools);
  for (const message of Array.isArray(body.messages) ? body.messages : []) {
    total += 3;
    walk(message);
  }
  return total;
}
