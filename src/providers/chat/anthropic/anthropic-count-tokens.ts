/**
 * Anthropic's `POST /v1/messages/count_tokens` (the endpoint `client.messages.countTokens` calls):
 * the request rendered as for `/v1/messages`, keeping the fields the count endpoint takes
 * (`MessageCountTokensParams`: model, messages, system, tools, tool_choice, thinking, and the few
 * others below), with the provider's headers (key, `anthropic-version`, `anthropic-beta`). Free at
 * Anthropic, and free here.
 */
import type { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../../config/config.types.ts';
import { isAppError } from '../../../domain/errors.ts';
import { isObject } from '../../../domain/chat/json-input.ts';
import { renderAnthropicMessagesRequest } from '../../../protocols/anthropic-messages/anthropic-messages.request-renderer.ts';
import type { TokenCounter, TokenCountResult } from '../embedding-provider.ts';
import { readStringRecord } from '../provider-options.ts';
import { postForWholeAnswer, UpstreamAttempt, upstreamEndpoint } from '../upstream-call.ts';

const DEFAULT_BASE_URL = 'https://api.anthropic.com';
/** The body fields of MessageCountTokensParams (@anthropic-ai/sdk 1.12.0; `user_profile_id` travels as a header). */
const COUNT_FIELDS = ['model', 'messages', 'system', 'tools', 'tool_choice', 'thinking', 'cache_control', 'output_config', 'speed'];
const MAX_ANSWER_BYTES = 64 * 1024;

export function createAnthropicTokenCounter(config: ProviderConfig, http: UpstreamHttpClient): TokenCounter {
  const baseUrl = (config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const o = config.options;
  const headers = readStringRecord(o.headers);
  headers['anthropic-version'] = typeof o.version === 'string' ? o.version : '2023-06-01';
  if (typeof o.beta === 'string') headers['anthropic-beta'] = o.beta;
  if (config.apiKey) headers['x-api-key'] = config.apiKey;
  const endpoint = upstreamEndpoint(http, `${baseUrl}/v1/messages/count_tokens`, headers);
  return {
    async countTokens(request, target, signal): Promise<TokenCountResult> {
      let body: string;
      try {
        const rendered = renderAnthropicMessagesRequest(request, { model: target.upstreamModel, defaultMaxTokens: 1 });
        body = JSON.stringify(Object.fromEntries(COUNT_FIELDS.filter((k) => rendered[k] !== undefined).map((k) => [k, rendered[k]])));
      } catch (error) {
        if (isAppError(error)) return { ok: false, error: { status: 400, retryable: true, message: error.message, ...(error.param === undefined ? {} : { param: error.param }) } };
        throw error;
      }
      const attempt = new UpstreamAttempt(signal, config.timeoutMs);
      try {
        const answer = await postForWholeAnswer(http.dispatcher, endpoint, body, attempt, MAX_ANSWER_BYTES);
        if (!answer.ok) return answer;
        let parsed: unknown;
        try {
          parsed = JSON.parse(answer.text);
        } catch {
          parsed = undefined;
        }
        const tokens = isObject(parsed) ? parsed.input_tokens : undefined;
        if (typeof tokens !== 'number' || !Number.isInteger(tokens) || tokens < 0) {
          return { ok: false, error: { status: 502, retryable: true, message: 'The upstream answered with something that is not a token count.' } };
        }
        return { ok: true, inputTokens: tokens };
      } finally {
        attempt.dispose();
      }
    },
  };
}
