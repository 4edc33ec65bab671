/**
 * The `openai` style: any OpenAI-compatible `/chat/completions` (OpenAI, DeepSeek, xAI, Qwen,
 * Gemini's compatible endpoint, OpenRouter, vLLM, Ollama). `baseUrl` is written as the OpenAI SDK
 * takes it, e.g. `https://api.openai.com/v1`.
 *
 * options:
 * - `maxTokensField`: `max_tokens` or `max_completion_tokens`; default `max_completion_tokens` for
 *   api.openai.com (its reasoning models refuse the old name) and `max_tokens` elsewhere (the name
 *   every compatible server knows).
 * - `headers`: extra request headers (OpenRouter's `HTTP-Referer`, an organisation header, …).
 */
import type { UpstreamHttpClient } from '../../../adapters/outbound/upstream-http-client.ts';
import type { ProviderConfig } from '../../../config/config.types.ts';
import { renderOpenAiChatRequest } from '../../../protocols/openai-chat/openai-chat.request-renderer.ts';
import { parseOpenAiChatResponse } from '../../../protocols/openai-chat/openai-chat.response.ts';
import { createOpenAiStreamDecoder } from '../../../protocols/openai-chat/openai-stream.decoder.ts';
import type { ChatProvider } from '../chat-provider.ts';
import { createHttpChatProvider } from '../http-chat.provider.ts';
import { readStringRecord } from '../provider-options.ts';

const DEFAULT_BASE_URL = 'https://api.openai.com/v1';

export function createOpenAiChatProvider(config: ProviderConfig, http: UpstreamHttpClient): ChatProvider {
  const baseUrl = (config.baseUrl ?? DEFAULT_BASE_URL).replace(/\/+$/, '');
  const option = config.options.maxTokensField;
  const maxTokensField = option === 'max_tokens' || option === 'max_completion_tokens'
    ? option
    : new URL(baseUrl).hostname === 'api.openai.com' ? 'max_completion_tokens' : 'max_tokens';
  const headers = readStringRecord(config.options.headers);
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;
  return createHttpChatProvider({
    protocol: 'openai',
    url: `${baseUrl}/chat/completions`,
    headers,
    timeoutMs: config.timeoutMs,
    render: (request, target) => renderOpenAiChatRequest(request, { model: target.upstreamModel, maxTokensField }),
    parseResponse: parseOpenAiChatResponse,
    createDecoder: (estimatedInputTokens) => createOpenAiStreamDecoder({ estimatedInputTokens }),
  }, http);
}
