/**
 * The top-level fields of a chat-completions request we accept (issue 18): the published request type,
 * `ChatCompletionCreateParamsBase` of the `openai` package 7.57.0 (resources/chat/completions/
 * completions.d.ts, read 2026-11-25), each with what it does to the price and what becomes of it on
 * an upstream of the other protocol. A field outside this list is refused with a 400 naming it, as
 * OpenAI refuses it ("Unrecognized request argument"), instead of being forwarded unread.
 */
import { type AppError, invalidInput } from '../../domain/errors.ts';
import type { ChatPriceOptions } from '../../domain/chat/chat-request.types.ts';
import type { JsonObject } from '../../domain/chat/json-input.ts';

/** Read by the parser into the canonical request. */
export const MODELLED = new Set([
  'model', 'messages', 'stream', 'stream_options', 'temperature', 'top_p', 'max_tokens', 'max_completion_tokens',
  'n', 'tools', 'tool_choice', 'parallel_tool_calls', 'response_format', 'stop', 'user',
]);

/**
 * Forwarded verbatim to OpenAI-style upstreams. `across`: what an Anthropic upstream does with it:
 * `drop` when leaving it out changes neither the answer nor the price the client asked for (stored
 * completions' metadata, cache and safety hints, the standard tier), `keep` when it does (sampling
 * controls, log probabilities, reasoning effort): that route refuses the request then.
 */
const PASSTHROUGH: Readonly<Record<string, 'drop' | 'keep' | ((value: unknown) => 'drop' | 'keep')>> = {
  frequency_penalty: 'keep',
  presence_penalty: 'keep',
  logit_bias: 'keep',
  logprobs: (v) => (v === true ? 'keep' : 'drop'),
  top_logprobs: 'keep',
  seed: 'keep',
  reasoning_effort: 'keep',
  verbosity: 'keep',
  moderation: 'keep',
  metadata: 'drop',
  store: 'drop',
  safety_identifier: 'drop',
  prompt_cache_key: 'drop',
  prompt_cache_retention: 'drop',
  prompt_cache_options: 'drop',
  modalities: 'drop',
  // The standard tier everywhere; priority is refused on an Anthropic route (it has no per-request tier).
  service_tier: (v) => (v === 'priority' || v === 'fast' ? 'keep' : 'drop'),
};

export interface OpenAiExtras {
  fields: JsonObject;
  keepAcross: string[];
  priceOptions: ChatPriceOptions | undefined;
}

/**
 * The fields beyond the modelled ones: each must be in the published type, and those that change the
 * price must be billable (or are refused here, before any hold or upstream call).
 */
export function readOpenAiExtras(body: JsonObject): OpenAiExtras {
  const fields: JsonObject = {};
  const keepAcross: string[] = [];
  let priceOptions: ChatPriceOptions | undefined;
  for (const [key, value] of Object.entries(body)) {
    if (MODELLED.has(key)) continue;
    if (value === null) continue;
    switch (key) {
      case 'web_search_options':
        throw invalidInput(
          'web_search_options is not offered: OpenAI charges a fee per search, and the chat completions usage report does not count the searches, so it could not be billed.',
          key,
        );
      case 'audio':
        throw invalidInput('audio output is not offered: audio tokens have prices of their own, which the catalog does not publish.', key);
      case 'prediction':
        throw invalidInput('prediction is not offered: rejected prediction tokens are billed as output beyond what max_tokens reserves.', key);
      case 'functions':
      case 'function_call':
        throw invalidInput(`${key} is deprecated and not supported; use tools and tool_choice.`, key);
      case 'modalities':
        if (Array.isArray(value) && value.some((m) => m !== 'text')) {
          throw invalidInput('modalities other than "text" are not offered: audio tokens have prices of their own, which the catalog does not publish.', key);
        }
        break;
      case 'service_tier':
        priceOptions = serviceTier(value, priceOptions);
        break;
      default:
        if (!(key in PASSTHROUGH)) {
          throw invalidInput(`Unrecognized request argument supplied: ${key} (not a field of OpenAI's chat completions request).`, key);
        }
    }
    const across = PASSTHROUGH[key];
    if (across === 'keep' || (typeof across === 'function' && across(value) === 'keep')) keepAcross.push(key);
    fields[key] = value;
  }
  return { fields, keepAcross, priceOptions };
}

/**
 * `auto` and `default` are the standard tier (auto: the project's setting, which the operator keeps at
 * default); `priority` and `fast` (OpenAI reports both as priority) are billed at the model's priority
 * prices; `flex` and `scale` have no per-request price we publish.
 */
function serviceTier(value: unknown, options: ChatPriceOptions | undefined): ChatPriceOptions | undefined {
  switch (value) {
    case 'auto':
    case 'default':
      return options;
    case 'priority':
    case 'fast':
      return { ...options, priority: { param: 'service_tier' } };
    case 'flex':
    case 'scale':
      throw invalidInput(`service_tier "${value}" is not offered: the catalog publishes no ${value} prices. Use "default" or "priority".`, 'service_tier');
    default:
      throw invalidInput('service_tier must be one of auto, default, priority, fast.', 'service_tier');
  }
}

/** `input_audio` parts are audio tokens, priced apart: refused for the same reason as audio output. */
export function audioInputRefusal(field: string): AppError {
  return invalidInput('input_audio parts are not offered: audio tokens have prices of their own, which the catalog does not publish.', `${field}.type`);
}
