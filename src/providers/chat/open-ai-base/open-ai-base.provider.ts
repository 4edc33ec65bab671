/**
 * One base for every OpenAI-compatible `/chat/completions` upstream (as Portkey's `open-ai-base`): the
 * request cycle, the body and the stream are OpenAI's; a vendor differs only by the data of its entry
 * in `openai-compatible.vendors.ts` (default base URL, how the key is sent, fixed headers, which name
 * the output limit takes). `baseUrl` is written as the OpenAI SDK takes it, e.g.
 * `https://api.openai.com/v1`.
 *
 * options (every vendor):
 * - `maxTokensField`: `max_tokens` or `max_completion_tokens`; default `max_completion_tokens` for
 *   api.openai.com (its reasoning models refuse the old name), else the vendor's (`max_tokens`, the
 *   name every compatible server knows).
 * - `totalIncludesReasoning`: the vendor reports reasoning tokens in `total_tokens` but not in
 *   `completion_tokens`, so output is billed as max(completion_tokens, total_tokens − prompt_tokens);
 *   default true for Gemini's OpenAI-compatible endpoint (generativelanguage.googleapis.com), whose
 *   thoughts tokens are billed as output but left out of completion_tokens, false elsewhere.
 * - `headers`: extra request headers (OpenRouter's `HTTP-Referer`, an organisation header, …).
 * - `api`: `chat` (default: `/chat/completions`) or `responses` (`/responses`, OpenAI's Responses API,
 *   always with `store: false`), for an upstream that has it; what reaches the gateway in any protocol
 *   is translated to it.
 */
import type { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../../config/config.types.ts';
import { renderOpenAiChatRequest } from '../../../protocols/openai-chat/openai-chat.request-renderer.ts';
import { type OpenAiUsageRules, parseOpenAiChatResponse } from '../../../protocols/openai-chat/openai-chat.response.ts';
import { createOpenAiStreamDecoder } from '../../../protocols/openai-chat/openai-stream.decoder.ts';
import { parseResponsesAnswer } from '../../../protocols/openai-responses/openai-responses.answer-parser.ts';
import { renderResponsesRequest } from '../../../protocols/openai-responses/openai-responses.request-renderer.ts';
import { createResponsesStreamDecoder } from '../../../protocols/openai-responses/openai-responses-stream.decoder.ts';
import type { ChatProvider } from '../chat-provider.ts';
import { createHttpChatProvider } from '../http-chat.provider.ts';
import { readStringRecord } from '../provider-options.ts';

export type MaxTokensField = 'max_tokens' | 'max_completion_tokens';

/** What makes one OpenAI-compatible vendor different from another: data, never code. */
export interface OpenAiCompatibleVendor {
  /** Used when the provider's config gives no `baseUrl`. */
  defaultBaseUrl: string;
  /** How the API key is sent: `Authorization: Bearer …` (the default), or in a header of this name. */
  apiKeyHeader?: string;
  /** Sent with every request, under the operator's `options.headers`. */
  headers?: Readonly<Record<string, string>>;
  /** The output limit's name when the option does not say; api.openai.com always takes `max_completion_tokens`. */
  maxTokensField?: MaxTokensField;
}

function maxTokensFieldOf(config: ProviderConfig, vendor: OpenAiCompatibleVendor, baseUrl: string): MaxTokensField {
  const option = config.options.maxTokensField;
  if (option === 'max_tokens' || option === 'max_completion_tokens') return option;
  if (new URL(baseUrl).hostname === 'api.openai.com') return 'max_completion_tokens';
  return vendor.maxTokensField ?? 'max_tokens';
}

/** Hosts whose OpenAI-shaped usage leaves reasoning out of completion_tokens (counted in total_tokens). */
const REASONING_IN_TOTAL_HOSTS = new Set(['generativelanguage.googleapis.com']);

function usageRulesOf(config: ProviderConfig, baseUrl: string): OpenAiUsageRules {
  const option = config.options.totalIncludesReasoning;
  if (option !== undefined && typeof option !== 'boolean') throw new Error(`options.totalIncludesReasoning of an ${config.type} provider must be a boolean, got ${JSON.stringify(option)}`);
  return { totalIncludesReasoning: option ?? REASONING_IN_TOTAL_HOSTS.has(new URL(baseUrl).hostname) };
}

export function createOpenAiBaseProvider(vendor: OpenAiCompatibleVendor, config: ProviderConfig, http: UpstreamHttpClient): ChatProvider {
  const baseUrl = (config.baseUrl ?? vendor.defaultBaseUrl).replace(/\/+$/, '');
  const maxTokensField = maxTokensFieldOf(config, vendor, baseUrl);
  const usageRules = usageRulesOf(config, baseUrl);
  const headers = { ...vendor.headers, ...readStringRecord(config.options.headers) };
  if (config.apiKey) {
    if (vendor.apiKeyHeader === undefined) headers.authorization = `Bearer ${config.apiKey}`;
    else headers[vendor.apiKeyHeader] = config.apiKey;
  }
  const api = config.options.api ?? 'chat';
  if (api !== 'chat' && api !== 'responses') throw new Error(`options.api of an ${config.type} provider must be chat or responses, got ${JSON.stringify(api)}`);
  if (api === 'responses') {
    return createHttpChatProvider({
      protocol: 'openai',
      url: `${baseUrl}/responses`,
      headers,
      timeoutMs: config.timeoutMs,
      render: (request, target) => renderResponsesRequest(request, { model: target.upstreamModel }),
      parseResponse: parseResponsesAnswer,
      createDecoder: (estimatedInputTokens) => createResponsesStreamDecoder({ estimatedInputTokens }),
    }, http);
  }
  return createHttpChatProvider({
    protocol: 'openai',
    url: `${baseUrl}/chat/completions`,
    headers,
    timeoutMs: config.timeoutMs,
    render: (request, target) => renderOpenAiChatRequest(request, { model: target.upstreamModel, maxTokensField }),
    parseResponse: (body) => parseOpenAiChatResponse(body, usageRules),
    createDecoder: (estimatedInputTokens) => createOpenAiStreamDecoder({ estimatedInputTokens, usage: usageRules }),
  }, http);
}
