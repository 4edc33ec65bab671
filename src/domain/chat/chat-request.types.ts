/**
 * The canonical chat request: what both wire protocols (OpenAI chat completions, Anthropic messages)
 * parse into and what every upstream style renders from. It models what the two protocols share;
 * anything one protocol has and the other cannot express travels as a `native` item (forwarded
 * verbatim to an upstream of the same protocol, refused by the others) or in `passthrough`.
 */
import type { ChatProtocol } from '../catalog/catalog.types.ts';

export type { ChatProtocol };

/**
 * Anthropic's `cache_control` object, kept verbatim. Anthropic caches only where the client marks it,
 * so losing the marks would silently raise the client's bill; OpenAI-style upstreams cache on their
 * own and ignore it.
 */
export type CacheControl = Readonly<Record<string, unknown>>;

export interface TextPart {
  type: 'text';
  text: string;
  cacheControl?: CacheControl;
}

export type ImageSource =
  | { kind: 'url'; url: string }
  | { kind: 'base64'; mediaType: string; data: string };

export interface ImagePart {
  type: 'image';
  source: ImageSource;
  /** OpenAI's `detail` hint (`auto`, `low`, `high`, …); Anthropic has none. */
  detail?: string;
  cacheControl?: CacheControl;
}

/**
 * A block only one protocol understands (Anthropic `document`, OpenAI `input_audio`, …). Refusing it
 * would break clients that use it against their own vendor; translating it is not possible.
 */
export interface NativePart {
  type: 'native';
  protocol: ChatProtocol;
  value: Record<string, unknown>;
}

/**
 * Model reasoning returned earlier and sent back (Anthropic `thinking` / `redacted_thinking`,
 * OpenAI-compatible `reasoning_content`). Anthropic requires signed thinking to be returned with tool
 * results when thinking is on, so it must survive a round trip.
 */
export interface ReasoningPart {
  type: 'reasoning';
  text: string;
  signature?: string;
  /** Opaque data of a redacted thinking block; `text` is empty then. */
  redactedData?: string;
}

export type UserPart = TextPart | ImagePart | NativePart;
export type AssistantPart = TextPart | ReasoningPart | NativePart;
export type ToolResultPart = TextPart | ImagePart | NativePart;

export interface ToolCall {
  id: string;
  name: string;
  /** The arguments as a JSON text (OpenAI's form); Anthropic's `input` object is serialised. */
  arguments: string;
}

export interface UserMessage {
  role: 'user';
  content: UserPart[];
  name?: string;
}

export interface AssistantMessage {
  role: 'assistant';
  /** Reasoning first, then text: the order both vendors emit. */
  content: AssistantPart[];
  toolCalls: ToolCall[];
  name?: string;
}

export interface ToolMessage {
  role: 'tool';
  toolCallId: string;
  content: ToolResultPart[];
  isError: boolean;
  cacheControl?: CacheControl;
}

/**
 * A system message that comes after the conversation started (OpenAI allows them anywhere). Kept in
 * place so that OpenAI-to-OpenAI forwarding does not reorder; Anthropic rendering appends it to the
 * top-level `system`.
 */
export interface SystemMessage {
  role: 'system';
  content: TextPart[];
}

export type ChatMessage = UserMessage | AssistantMessage | ToolMessage | SystemMessage;

export interface FunctionTool {
  type: 'function';
  name: string;
  description?: string;
  /** JSON Schema of the arguments object. */
  parameters: Record<string, unknown>;
  strict?: boolean;
  cacheControl?: CacheControl;
}

/** A vendor-hosted tool (Anthropic web search, OpenAI custom tools, …). */
export interface NativeTool {
  type: 'native';
  protocol: ChatProtocol;
  value: Record<string, unknown>;
}

export type ChatTool = FunctionTool | NativeTool;

export type ToolChoice =
  | { type: 'auto' }
  | { type: 'none' }
  | { type: 'required' }
  | { type: 'tool'; name: string };

export type ResponseFormat =
  | { type: 'text' }
  | { type: 'json_object' }
  | { type: 'json_schema'; name: string; schema: Record<string, unknown>; strict?: boolean; description?: string };

/**
 * Request fields of the source protocol that the canonical model does not hold, kept verbatim. Only
 * fields of the protocol's published request type reach here (the parsers refuse the rest).
 */
export interface Passthrough {
  protocol: ChatProtocol;
  fields: Record<string, unknown>;
  /**
   * The fields (as sent) that an upstream of the other protocol cannot honour and that change the
   * answer or the price the client asked for: such a route refuses the request instead of dropping
   * them. The others (hints, metadata, what the other protocol does by default) are dropped there.
   */
  keepAcross: string[];
}

/**
 * What the request asked for that changes its price beyond tokens at the standard rates, read by the
 * parsers; billing holds for the worst case of it and charges what the usage report says.
 */
export interface ChatPriceOptions {
  /** The longest cache lifetime a cache mark asks for: a cache write may cost up to its price. */
  cacheWrites?: '5m' | '1h';
  /** Priority processing (OpenAI `service_tier` `priority` or `fast`), at the model's priority prices. */
  priority?: { param: string };
  /** Server-side web searches: at most `max` (the web search tools' `max_uses`), each at the model's per-search price. */
  webSearches?: { max: number; param: string };
}

export interface ChatRequest {
  /** The model id as the client named it (our public id). The upstream's name comes with the target. */
  model: string;
  /** Leading system prompt(s): OpenAI system/developer messages before the first other message, Anthropic `system`. */
  system: TextPart[];
  messages: ChatMessage[];
  tools: ChatTool[];
  toolChoice?: ToolChoice;
  /** false forbids more than one tool call per turn (OpenAI `parallel_tool_calls`, Anthropic `disable_parallel_tool_use`). */
  parallelToolCalls?: boolean;
  maxOutputTokens?: number;
  temperature?: number;
  topP?: number;
  stop: string[];
  responseFormat?: ResponseFormat;
  stream: boolean;
  /** End-user id for the vendor's abuse tracking (OpenAI `user`, Anthropic `metadata.user_id`). */
  userId?: string;
  passthrough?: Passthrough;
  /** Price-changing options asked for; absent when none was. */
  priceOptions?: ChatPriceOptions;
}

/** The text of the parts that are text, joined; used where a protocol wants a plain string. */
export function textOf(parts: ReadonlyArray<{ type: string; text?: string }>, separator = '\n'): string {
  const texts: string[] = [];
  for (const part of parts) if (part.type === 'text' && typeof part.text === 'string') texts.push(part.text);
  return texts.join(separator);
}
