/**
 * The 12 built-in text models (shared/catalog-notes.md, section 2). USD per 1M tokens. Cached-input
 * prices, context windows and output limits are our documented choices (docs/catalog.md).
 * `claude-opus-5` is not built in (its only source is unverified); an operator can add it.
 *
 * Price-changing options (issue 18, docs/decisions.md "Price-changing options of the text protocols"):
 * - `cacheWrite`: cache writes as multiples of the input price, as Anthropic publishes them (5-minute
 *   writes 1.25×, one-hour writes 2×; platform.claude.com pricing, "Prompt caching"); absent: a
 *   write costs an input token (OpenAI-style vendors cache for free).
 * - `webSearchPer1k`: USD per 1,000 server-side web searches (Anthropic: $10).
 * - `priority`: OpenAI's priority processing prices (openai.com/api-priority-processing, read
 *   2026-11-25, "excludes long context").
 * - `longContext`: above `above` prompt tokens (cache reads included) the whole request is billed at
 *   the tier's prices (issue 30, item 2; docs/decisions.md "Long-context tiers"). OpenAI gpt-5.4 and
 *   gpt-5.5: prompts above 272K tokens cost 2× input (cached input too) and 1.5× output "for the full
 *   session" (platform.openai.com/docs/pricing; gpt-5.4 5.00 / 22.50 also listed by
 *   wavespeed.ai/llm/openai/gpt-5.4). Google gemini-3.1-pro: prompts above 200K tokens 4.00 / 18.00,
 *   context cache 0.40 (ai.google.dev/gemini-api/docs/pricing). Alibaba qwen3.6-plus: its own tier
 *   above 256K tokens, whose price none of our sources publishes: no `prices`, so such prompts are
 *   refused.
 *
 * `sampling` (issue 30, item 8): the sampling fields a model refuses, as Anthropic answers them with a
 * 400 `invalid_request_error`. Claude Opus 4.7: `temperature`, `top_p`, `top_k` at non-default values
 * and `thinking.type: "enabled"` (budget thinking), "Migrating to Claude Opus 4.7" in Anthropic's
 * migration guide (platform.claude.com/docs/en/about-claude/models/migration-guide; the message is
 * "`temperature` is deprecated for this model."). Claude Haiku 4.5 and Sonnet 4.6 (like Sonnet 4.5,
 * Opus 4.1 to 4.6): `temperature` with `top_p` ("cannot both be specified for this model"; reported
 * for both ids, e.g. github.com/aws-samples/bedrock-access-gateway/pull/238). Applied before the hold
 * by src/domain/chat/sampling-rules.ts.
 */
import type { ChatProtocol, SamplingRules } from '../catalog.types.ts';

export interface ChatModelSeed {
  readonly id: string;
  readonly name: string;
  readonly vendor: string;
  readonly group: string;
  readonly description: string;
  readonly input: string;
  readonly output: string;
  /** Absent: the vendor publishes no cached-input price, so the input price applies. */
  readonly cachedInput?: string;
  /** Cache-write prices as multiples of the input price (`5m` and `1h` lifetimes). */
  readonly cacheWrite?: { readonly '5m': number; readonly '1h': number };
  readonly webSearchPer1k?: string;
  readonly priority?: { readonly input: string; readonly output: string; readonly cachedInput: string };
  readonly longContext?: { readonly above: number; readonly prices?: { readonly input: string; readonly output: string; readonly cachedInput: string } };
  readonly protocols: readonly ChatProtocol[];
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly capabilities: readonly string[];
  readonly tags: readonly string[];
  readonly sampling?: SamplingRules;
}

const FULL = ['tools', 'vision', 'json_schema', 'streaming'];
const NO_VISION = ['tools', 'json_schema', 'streaming'];
const CLAUDE: readonly ChatProtocol[] = ['anthropic', 'openai'];
/** Anthropic's prompt-caching multipliers and web search fee, the same for every Claude model. */
const CLAUDE_OPTIONS = { cacheWrite: { '5m': 1.25, '1h': 2 }, webSearchPer1k: '10.00' } as const;
const OPENAI: readonly ChatProtocol[] = ['openai'];
/** Claude Opus 4.7 takes no sampling parameters and no thinking budget (adaptive thinking only). */
const NO_SAMPLING: SamplingRules = { refused: ['temperature', 'top_p', 'top_k'], budgetThinkingRefused: true };
/** The Claude 4.5 generation and Sonnet 4.6 take `temperature` or `top_p`, not both. */
const ONE_SAMPLER: SamplingRules = { exclusive: ['temperature', 'top_p'] };

export const CHAT_MODELS: readonly ChatModelSeed[] = [
  {
    id: 'gpt-5.5',
    name: 'GPT-5.5',
    vendor: 'OpenAI',
    group: 'gpt-5',
    description: 'OpenAI flagship model.',
    input: '5.00',
    output: '30.00',
    cachedInput: '0.50',
    priority: { input: '12.50', output: '75.00', cachedInput: '1.25' },
    longContext: { above: 272_000, prices: { input: '10.00', output: '45.00', cachedInput: '1.00' } },
    protocols: OPENAI,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    capabilities: FULL,
    tags: ['text', 'openai', 'flagship'],
  },
  {
    id: 'gpt-5.4',
    name: 'GPT-5.4',
    vendor: 'OpenAI',
    group: 'gpt-5',
    description: 'OpenAI general-purpose model.',
    input: '2.50',
    output: '15.00',
    cachedInput: '0.25',
    priority: { input: '5.00', output: '30.00', cachedInput: '0.50' },
    longContext: { above: 272_000, prices: { input: '5.00', output: '22.50', cachedInput: '0.50' } },
    protocols: OPENAI,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    capabilities: FULL,
    tags: ['text', 'openai'],
  },
  {
    id: 'gpt-5.4-mini',
    name: 'GPT-5.4 mini',
    vendor: 'OpenAI',
    group: 'gpt-5',
    description: 'Small, fast OpenAI model.',
    input: '0.75',
    output: '4.50',
    cachedInput: '0.075',
    priority: { input: '1.50', output: '9.00', cachedInput: '0.15' },
    protocols: OPENAI,
    contextWindow: 400_000,
    maxOutputTokens: 128_000,
    capabilities: FULL,
    tags: ['text', 'openai', 'fast'],
  },
  {
    id: 'claude-opus-4-7',
    name: 'Claude Opus 4.7',
    vendor: 'Anthropic',
    group: 'claude',
    description: 'Anthropic flagship model; also served on the messages protocol.',
    input: '5.00',
    output: '25.00',
    cachedInput: '0.50',
    ...CLAUDE_OPTIONS,
    sampling: NO_SAMPLING,
    protocols: CLAUDE,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    capabilities: FULL,
    tags: ['text', 'anthropic', 'flagship'],
  },
  {
    id: 'claude-sonnet-4-6',
    name: 'Claude Sonnet 4.6',
    vendor: 'Anthropic',
    group: 'claude',
    description: 'Anthropic balanced model; also served on the messages protocol.',
    input: '3.00',
    output: '15.00',
    cachedInput: '0.30',
    ...CLAUDE_OPTIONS,
    sampling: ONE_SAMPLER,
    protocols: CLAUDE,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    capabilities: FULL,
    tags: ['text', 'anthropic'],
  },
  {
    id: 'claude-haiku-4-5',
    name: 'Claude Haiku 4.5',
    vendor: 'Anthropic',
    group: 'claude',
    description: 'Anthropic fast model; also served on the messages protocol.',
    input: '1.00',
    output: '5.00',
    cachedInput: '0.10',
    ...CLAUDE_OPTIONS,
    sampling: ONE_SAMPLER,
    protocols: CLAUDE,
    contextWindow: 200_000,
    maxOutputTokens: 64_000,
    capabilities: FULL,
    tags: ['text', 'anthropic', 'fast'],
  },
  {
    id: 'gemini-3.1-pro',
    name: 'Gemini 3.1 Pro',
    vendor: 'Google',
    group: 'gemini',
    description: 'Google flagship model (prompts above 200K tokens cost 4.00 / 18.00).',
    input: '2.00',
    output: '12.00',
    cachedInput: '0.20',
    longContext: { above: 200_000, prices: { input: '4.00', output: '18.00', cachedInput: '0.40' } },
    protocols: OPENAI,
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    capabilities: FULL,
    tags: ['text', 'google', 'flagship'],
  },
  {
    id: 'gemini-3.1-flash-lite',
    name: 'Gemini 3.1 Flash-Lite',
    vendor: 'Google',
    group: 'gemini',
    description: 'Google low-cost model.',
    input: '0.25',
    output: '1.50',
    cachedInput: '0.025',
    protocols: OPENAI,
    contextWindow: 1_048_576,
    maxOutputTokens: 65_536,
    capabilities: FULL,
    tags: ['text', 'google', 'fast'],
  },
  {
    id: 'deepseek-v4-flash',
    name: 'DeepSeek V4 Flash',
    vendor: 'DeepSeek',
    group: 'deepseek',
    description: 'DeepSeek fast model.',
    input: '0.14',
    output: '0.28',
    cachedInput: '0.014',
    protocols: OPENAI,
    contextWindow: 128_000,
    maxOutputTokens: 32_768,
    capabilities: NO_VISION,
    tags: ['text', 'deepseek', 'budget'],
  },
  {
    id: 'deepseek-v4-pro',
    name: 'DeepSeek V4 Pro',
    vendor: 'DeepSeek',
    group: 'deepseek',
    description: 'DeepSeek reasoning model (discounted list price).',
    input: '0.435',
    output: '0.87',
    cachedInput: '0.0435',
    protocols: OPENAI,
    contextWindow: 128_000,
    maxOutputTokens: 65_536,
    capabilities: NO_VISION,
    tags: ['text', 'deepseek'],
  },
  {
    id: 'grok-4.3',
    name: 'Grok 4.3',
    vendor: 'xAI',
    group: 'grok',
    description: 'xAI Grok model.',
    input: '1.25',
    output: '2.50',
    cachedInput: '0.3125',
    protocols: OPENAI,
    contextWindow: 256_000,
    maxOutputTokens: 32_768,
    capabilities: FULL,
    tags: ['text', 'xai'],
  },
  {
    id: 'qwen3.6-plus',
    name: 'Qwen 3.6 Plus',
    vendor: 'Alibaba',
    group: 'qwen',
    description: 'Alibaba Qwen model (price for prompts up to 256K tokens).',
    input: '0.50',
    output: '3.00',
    cachedInput: '0.10',
    longContext: { above: 256_000 },
    protocols: OPENAI,
    contextWindow: 1_000_000,
    maxOutputTokens: 65_536,
    capabilities: FULL,
    tags: ['text', 'alibaba'],
  },
];
