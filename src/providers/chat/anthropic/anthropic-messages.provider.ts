/**
 * The `anthropic` style: Anthropic's Messages API. `baseUrl` is written as the Anthropic SDK takes it,
 * e.g. `https://api.anthropic.com`; the path `/v1/messages` is added here.
 *
 * options:
 * - `defaultMaxTokens`: `max_tokens` for requests that give none (Anthropic requires it); 4096.
 * - `version`: the `anthropic-version` header; `2023-06-01`.
 * - `beta`: the `anthropic-beta` header, when a deployment needs beta features.
 * - `headers`: extra request headers.
 */
import type { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../../config/config.types.ts';
import { renderAnthropicMessagesRequest } from '../../../protocols/anthropic-messages/anthropic-messages.request-renderer.ts';
import { parseAnthropicMessage } from '../../../protocols/anthropic-messages/anthropic-messages.response.ts';
import { createAnthropicStreamDecoder } from '../../../protocols/anthropic-messages/anthropic-stream.decoder.ts';
import type { ChatProvider } from '../chat-provider.ts';
import { createHttpChatProvider } from '../http-chat.provider.ts';
import { readStringRecord } from '../provider-options.ts';

const DEFAULT_BASE_URL = 'https://api.anthropic.com';

export function createAnthropicMessagesProvider(config: ProviderConfig, http: UpstreamHttpClient): ChatProvider {
  const baseUrl = (config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const o = config.options;
  const defaultMaxTokens = typeof o.defaultMaxTokens === 'number' && o.defaultMaxTokens > 0 ? o.defaultMaxTokens : 4096;
  const headers = readStringRecord(o.headers);
  headers['anthropic-version'] = typeof o.version === 'string' ? o.version : '2023-06-01';
  if (typeof o.beta === 'string') headers['anthropic-beta'] = o.beta;
  if (config.apiKey) headers['x-api-key'] = config.apiKey;
  return createHttpChatProvider({
    protocol: 'anthropic',
    url: `${baseUrl}/v1/messages`,
    headers,
    timeoutMs: config.timeoutMs,
    render: (request, target) => renderAnthropicMessagesRequest(request, { model: target.upstreamModel, defaultMaxTokens }),
    parseResponse: parseAnthropicMessage,
    createDecoder: (estimatedInputTokens) => createAnthropicStreamDecoder({ estimatedInputTokens }),
  }, http);
}
