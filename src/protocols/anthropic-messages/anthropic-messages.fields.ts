/**
 * The top-level fields of a messages request we accept (issue 18): the published request type,
 * `MessageCreateParamsBase` of `@anthropic-ai/sdk` 1.12.0 (resources/messages/messages.d.ts, read
 * 2026-11-25), plus `temperature`, `top_k` and `top_p`, which API version 2023-06-01 (0.137.0, the
 * version our `anthropic` provider speaks) still takes. Each field says what it does to the price and
 * what becomes of it on an OpenAI-style upstream. A field outside this list (`mcp_servers`, `betas`,
 * a misspelling) is refused with a 400 naming it, as Anthropic refuses it ("Extra inputs are not
 * permitted"), instead of being forwarded unread. `user_profile_id` and `workspace_id` are header
 * parameters in the SDK, never body fields.
 */
import { invalidInput } from '../../domain/errors.ts';
import type { CacheControl, ChatPriceOptions, ChatRequest } from '../../domain/chat/chat-request.types.ts';
import { isObject, type JsonObject } from '../../domain/chat/json-input.ts';

/** Read by the parser into the canonical request (`metadata` and `output_config` also travel whole). */
export const MODELLED = new Set(['model', 'messages', 'system', 'max_tokens', 'temperature', 'top_p', 'stop_sequences', 'stream', 'tools', 'tool_choice']);

/**
 * Forwarded verbatim to Anthropic upstreams. `across`: what an OpenAI-style upstream does with it:
 * `drop` when leaving it out changes neither the answer nor the price the client asked for (metadata,
 * diagnostics, the standard tier, cache marks: billed by what the upstream reports), `keep` when it
 * does (thinking, effort, top_k): that route refuses the request then.
 */
const PASSTHROUGH: Readonly<Record<string, 'drop' | 'keep' | ((value: unknown) => 'drop' | 'keep')>> = {
  metadata: 'drop',
  diagnostics: 'drop',
  cache_control: 'drop',
  service_tier: 'drop',
  speed: 'drop',
  inference_geo: 'drop',
  top_k: 'keep',
  thinking: (v) => (isObject(v) && v.type === 'disabled' ? 'drop' : 'keep'),
  output_config: (v) => (isObject(v) && v.effort !== undefined && v.effort !== null ? 'keep' : 'drop'),
};

export interface AnthropicExtras {
  fields: JsonObject;
  keepAcross: string[];
}

/**
 * The fields beyond the modelled ones: each must be in the published type; those that change the
 * price beyond what the catalog publishes are refused here, before any hold or upstream call.
 */
export function readAnthropicExtras(body: JsonObject): AnthropicExtras {
  const fields: JsonObject = {};
  const keepAcross: string[] = [];
  for (const [key, value] of Object.entries(body)) {
    if (MODELLED.has(key) || value === null) continue;
    switch (key) {
      case 'container':
        throw invalidInput('container is not offered: code execution is billed per container-hour, which the usage report does not give per request.', key);
      case 'speed':
        if (value !== 'standard') throw invalidInput('speed "fast" is not offered: fast mode is priced apart, and the catalog publishes no fast-mode price. Use "standard".', key);
        break;
      case 'inference_geo':
        if (value !== 'global') throw invalidInput('inference_geo other than "global" is not offered: US-only inference costs 1.1× the listed price, which the catalog does not publish.', key);
        break;
      case 'service_tier':
        // Both are billed at the listed prices: priority capacity is an operator's prepaid commitment with Anthropic.
        if (value !== 'auto' && value !== 'standard_only') throw invalidInput('service_tier must be "auto" or "standard_only".', key);
        break;
      default:
        if (!(key in PASSTHROUGH)) throw invalidInput(`${key}: not a field of Anthropic's messages request (Extra inputs are not permitted).`, key);
    }
    const across = PASSTHROUGH[key];
    if (across === 'keep' || (typeof across === 'function' && across(value) === 'keep')) keepAcross.push(key);
    fields[key] = value;
  }
  return { fields, keepAcross };
}

const WEB_SEARCH = /^web_search_\d+$/;
const CODE_EXECUTION = /^code_execution_\d+$/;

/**
 * Server tools priced beyond tokens: a web search tool must say how many searches it may run
 * (`max_uses`), so that the hold covers them at the per-search price; code execution is billed per
 * container-hour, which no usage report gives per request, so it is refused. Web fetch, tool search
 * and the client-run tools (bash, text editor, memory, computer, browser) cost tokens only.
 */
export function serverToolOptions(tools: unknown, options: ChatPriceOptions | undefined): ChatPriceOptions | undefined {
  if (!Array.isArray(tools)) return options;
  let searches: { max: number; param: string } | undefined;
  tools.forEach((tool, i) => {
    if (!isObject(tool) || typeof tool.type !== 'string') return;
    const param = `tools[${i}]`;
    if (CODE_EXECUTION.test(tool.type)) {
      throw invalidInput(`${param}: the code execution tool is not offered: it is billed per container-hour, which the usage report does not give per request.`, `${param}.type`);
    }
    if (!WEB_SEARCH.test(tool.type)) return;
    const max = tool.max_uses;
    if (typeof max !== 'number' || !Number.isInteger(max) || max < 1) {
      throw invalidInput(`${param}.max_uses is required for the web search tool (a whole number from 1): the request reserves the searches it allows at the per-search price.`, `${param}.max_uses`);
    }
    searches = { max: (searches?.max ?? 0) + max, param: searches?.param ?? param };
  });
  return searches ? { ...options, webSearches: searches } : options;
}

/**
 * The longest lifetime any cache mark asks for (block marks and the top-level automatic one), or
 * undefined without marks: with marks, a prompt token may be written to the cache at that price.
 */
export function cacheWriteLifetime(request: ChatRequest, topLevel: unknown): '5m' | '1h' | undefined {
  let longest: '5m' | '1h' | undefined;
  const see = (mark: CacheControl | undefined | unknown): void => {
    if (!isObject(mark)) return;
    longest = mark.ttl === '1h' || longest === '1h' ? '1h' : '5m';
  };
  see(topLevel);
  for (const part of request.system) see(part.cacheControl);
  for (const tool of request.tools) see(tool.type === 'function' ? tool.cacheControl : tool.value.cache_control);
  for (const message of request.messages) {
    if (message.role === 'tool') see(message.cacheControl);
    for (const part of message.content) {
      if (part.type === 'text' || part.type === 'image') see(part.cacheControl);
      else if (part.type === 'native') see(part.value.cache_control);
    }
  }
  return longest;
}
