/**
 * The request cycle every HTTP chat style shares: render, post, classify, then parse a whole answer
 * or decode a stream. A style supplies only its URL, headers and protocol functions (like Portkey's
 * per-vendor transforms, without the shared 1,000-line handler).
 */
import type { UpstreamHttpClient } from '../../adapters/outbound/upstream-http-client.ts';
import { isAppError } from '../../domain/errors.ts';
import type { ChatProtocol, ChatRequest } from '../../domain/chat/chat-request.types.ts';
import type { ChatResponse, ChatStreamDecoder, ChatUsage } from '../../domain/chat/chat-response.types.ts';
import type { JsonObject } from '../../domain/chat/json-input.ts';
import { estimatePromptTokens } from '../../domain/chat/prompt-size.estimator.ts';
import { UsageTracker } from '../../domain/chat/usage-tracker.ts';
import type { ChatProvider, ChatTarget, ChatUpstreamResult } from './chat-provider.ts';
import { translationFailure } from './provider-options.ts';
import { postForWholeAnswer, UpstreamAttempt, upstreamEndpoint } from './upstream-call.ts';
import { openUpstreamStream } from './upstream-stream.ts';

export interface HttpChatStyle {
  protocol: ChatProtocol;
  url: string;
  headers: Record<string, string>;
  /** Milliseconds to the first answer event, and of silence between chunks afterwards. */
  timeoutMs: number;
  /** The upstream body; throws an AppError when the request cannot be expressed in this protocol. */
  render(request: ChatRequest, target: ChatTarget): JsonObject;
  parseResponse(body: unknown): { response: Omit<ChatResponse, 'usage'>; usage: Partial<ChatUsage> };
  createDecoder(estimatedInputTokens: number): ChatStreamDecoder;
}

const MAX_RESPONSE_BYTES = 32 * 1024 * 1024;

export function createHttpChatProvider(style: HttpChatStyle, http: UpstreamHttpClient): ChatProvider {
  const endpoint = upstreamEndpoint(http, style.url, style.headers);
  const dispatcher = http.dispatcher;
  return {
    protocol: style.protocol,
    async send(request: ChatRequest, target: ChatTarget, signal: AbortSignal): Promise<ChatUpstreamResult> {
      let body: string;
      try {
        body = JSON.stringify(style.render(request, target));
      } catch (error) {
        if (isAppError(error)) return translationFailure(error);
        throw error;
      }
      const estimatedInput = estimatePromptTokens(request);
      const attempt = new UpstreamAttempt(signal, style.timeoutMs);
      if (request.stream) return openUpstreamStream(dispatcher, endpoint, body, style.createDecoder(estimatedInput), attempt);
      try {
        const answer = await postForWholeAnswer(dispatcher, endpoint, body, attempt, MAX_RESPONSE_BYTES);
        if (!answer.ok) return answer;
        let parsed: ReturnType<HttpChatStyle['parseResponse']>;
        try {
          parsed = style.parseResponse(JSON.parse(answer.text));
        } catch {
          return { ok: false, error: { status: 502, retryable: true, message: `The upstream answered with something that is not a ${style.protocol} chat response.` } };
        }
        const usage = new UsageTracker(estimatedInput);
        usage.report(parsed.usage);
        for (const block of parsed.response.content) usage.addOutput(block.type === 'tool_call' ? block.name + block.arguments : block.text);
        return { ok: true, kind: 'response', response: { ...parsed.response, usage: usage.snapshot() } };
      } finally {
        attempt.dispose();
      }
    },
  };
}
