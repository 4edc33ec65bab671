/**
 * The non-streaming chat-completion object, both ways: rendered for our clients from a canonical
 * response, and parsed from an OpenAI-style upstream into one.
 */
import { reportedCount, reportedDetailCount } from '../../domain/chat/reported-count.ts';
import type { ChatResponse, ChatUsage, ResponseBlock, StopReason } from '../../domain/chat/chat-response.types.ts';
import { expectArray, expectObject, isObject, type JsonObject } from '../../domain/chat/json-input.ts';

export interface OpenAiUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  prompt_tokens_details: { cached_tokens: number };
}

export interface OpenAiToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface OpenAiChatCompletion {
  id: string;
  object: 'chat.completion';
  created: number;
  model: string;
  choices: Array<{
    index: number;
    message: { role: 'assistant'; content: string | null; refusal: null; tool_calls?: OpenAiToolCall[]; reasoning_content?: string };
    logprobs: null;
    finish_reason: string;
  }>;
  usage: OpenAiUsage;
}

const FINISH_REASONS: Record<StopReason, string> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  tool_use: 'tool_calls',
  content_filter: 'content_filter',
  error: 'stop',
};

export function openAiFinishReason(reason: StopReason): string {
  return FINISH_REASONS[reason];
}

export function stopReasonFromOpenAi(finishReason: unknown): StopReason {
  switch (finishReason) {
    case 'length':
      return 'max_tokens';
    case 'tool_calls':
    case 'function_call':
      return 'tool_use';
    case 'content_filter':
      return 'content_filter';
    default:
      return 'end_turn';
  }
}

export function renderOpenAiUsage(usage: ChatUsage): OpenAiUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: { cached_tokens: usage.cachedInputTokens },
  };
}

/** How a vendor's OpenAI-shaped usage differs from OpenAI's own (the provider decides, see open-ai-base). */
export interface OpenAiUsageRules {
  /**
   * `total_tokens` counts reasoning that `completion_tokens` leaves out (Gemini's OpenAI-compatible
   * endpoint: its thoughts tokens are billed as output but reported only in the total), so the output
   * billed is max(completion_tokens, total_tokens − prompt_tokens).
   */
  totalIncludesReasoning?: boolean;
}

/**
 * Usage as OpenAI-style upstreams report it. DeepSeek names its cache hits `prompt_cache_hit_tokens`
 * instead of `prompt_tokens_details.cached_tokens`; both are read.
 */
export function usageFromOpenAi(value: unknown, rules: OpenAiUsageRules = {}): Partial<ChatUsage> {
  if (!isObject(value)) return {};
  const num = reportedDetailCount;
  const details = isObject(value.prompt_tokens_details) ? value.prompt_tokens_details : {};
  const outputDetails = isObject(value.completion_tokens_details) ? value.completion_tokens_details : {};
  const usage: Partial<ChatUsage> = {};
  const input = reportedCount(value.prompt_tokens);
  let output = reportedCount(value.completion_tokens);
  let reasoning = num(outputDetails.reasoning_tokens);
  const total = reportedCount(value.total_tokens);
  if (rules.totalIncludesReasoning && output !== undefined && Number.isFinite(output) && input !== undefined && Number.isFinite(input) && total !== undefined && Number.isFinite(total)) {
    const hidden = total - input - output;
    if (hidden > 0) {
      output += hidden;
      reasoning = Math.max(reasoning !== undefined && Number.isFinite(reasoning) ? reasoning : 0, hidden);
    }
  }
  if (input !== undefined) usage.inputTokens = input;
  if (output !== undefined) usage.outputTokens = output;
  // A detail only: none, 0 or a count that is not a number is not shown and changes no charge.
  if (reasoning !== undefined && reasoning > 0) usage.reasoningTokens = reasoning;
  usage.cachedInputTokens = num(details.cached_tokens) ?? num(value.prompt_cache_hit_tokens) ?? 0;
  // Compatible servers in front of vendors that charge for cache writes (OpenRouter for Claude) report them here.
  usage.cacheCreationTokens = num(details.cache_write_tokens) ?? 0;
  return usage;
}

/** The tier that served the request, which OpenAI reports beside the usage, at the top of the answer or chunk. */
export function serviceTierFromOpenAi(body: JsonObject): Partial<ChatUsage> {
  return typeof body.service_tier === 'string' ? { serviceTier: body.service_tier } : {};
}

export function renderOpenAiChatResponse(response: ChatResponse, created = Math.floor(Date.now() / 1000)): OpenAiChatCompletion {
  const text = response.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  const reasoning = response.content.filter((b) => b.type === 'reasoning').map((b) => b.text).join('');
  const toolCalls: OpenAiToolCall[] = [];
  for (const block of response.content) {
    if (block.type === 'tool_call') toolCalls.push({ id: block.id, type: 'function', function: { name: block.name, arguments: block.arguments } });
  }
  const message: OpenAiChatCompletion['choices'][number]['message'] = {
    role: 'assistant',
    // OpenAI sends null content beside tool calls when the model wrote no text.
    content: text === '' && toolCalls.length > 0 ? null : text,
    refusal: null,
  };
  if (toolCalls.length > 0) message.tool_calls = toolCalls;
  if (reasoning !== '') message.reasoning_content = reasoning;
  return {
    id: response.id,
    object: 'chat.completion',
    created,
    model: response.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: openAiFinishReason(response.stopReason) }],
    usage: renderOpenAiUsage(response.usage),
  };
}

/**
 * Parses an upstream chat.completion. Usage the upstream left out is returned as undefined fields so
 * that the caller can fill an estimate. Throws when the body is not a chat completion at all.
 */
export function parseOpenAiChatResponse(body: unknown, rules: OpenAiUsageRules = {}): { response: Omit<ChatResponse, 'usage'>; usage: Partial<ChatUsage> } {
  const b = expectObject(body, 'response');
  const choice = expectObject(expectArray(b.choices, 'response.choices')[0], 'response.choices[0]');
  const message = expectObject(choice.message, 'response.choices[0].message');
  const content: ResponseBlock[] = [];
  const reasoning = message.reasoning_content ?? message.reasoning;
  if (typeof reasoning === 'string' && reasoning !== '') content.push({ type: 'reasoning', text: reasoning });
  if (typeof message.content === 'string' && message.content !== '') content.push({ type: 'text', text: message.content });
  if (typeof message.refusal === 'string' && message.refusal !== '') content.push({ type: 'text', text: message.refusal });
  if (Array.isArray(message.tool_calls)) {
    for (const raw of message.tool_calls) {
      if (!isObject(raw) || !isObject(raw.function)) continue;
      const fn: JsonObject = raw.function;
      content.push({
        type: 'tool_call',
        id: typeof raw.id === 'string' ? raw.id : '',
        name: typeof fn.name === 'string' ? fn.name : '',
        arguments: typeof fn.arguments === 'string' && fn.arguments !== '' ? fn.arguments : '{}',
      });
    }
  }
  return {
    response: {
      id: typeof b.id === 'string' ? b.id : '',
      model: typeof b.model === 'string' ? b.model : '',
      content,
      stopReason: message.refusal ? 'content_filter' : stopReasonFromOpenAi(choice.finish_reason),
    },
    usage: { ...usageFromOpenAi(b.usage, rules), ...serviceTierFromOpenAi(b) },
  };
}
