/**
 * The Responses `response` object and its output items, rendered for our clients from a canonical
 * response (and, item by item, by the stream encoder). The id is our request id (`chat_…`), so that
 * the answer, the request's record and its ledger entry share one reference; item ids derive from it.
 */
import type { ChatResponse, ChatStreamError, ChatUsage, StopReason } from '../../domain/chat/chat-response.types.ts';
import { REASONING_ITEM_PREFIX, type ResponsesEcho } from './openai-responses.parser.ts';

export interface ResponsesUsage {
  input_tokens: number;
  /** Cache reads and (Claude's) cache writes: both are parts of input_tokens, as in ChatUsage. */
  input_tokens_details: { cached_tokens: number; cache_write_tokens: number };
  output_tokens: number;
  output_tokens_details: { reasoning_tokens: number };
  total_tokens: number;
}

export interface OutputText {
  type: 'output_text';
  text: string;
  annotations: never[];
  logprobs: never[];
}

export interface MessageItem {
  type: 'message';
  id: string;
  role: 'assistant';
  status: 'in_progress' | 'completed' | 'incomplete';
  content: OutputText[];
}

export interface FunctionCallItem {
  type: 'function_call';
  id: string;
  call_id: string;
  name: string;
  arguments: string;
  status: 'in_progress' | 'completed' | 'incomplete';
}

/**
 * The model's reasoning, as a summary: the part of a reasoning item every client shows (the Vercel AI
 * SDK reads nothing else). What the upstream returns is the reasoning it chose to show, so it is one.
 */
export interface ReasoningItem {
  type: 'reasoning';
  id: string;
  summary: Array<{ type: 'summary_text'; text: string }>;
  /** Anthropic's thinking signature: sent back with the item, it lets a Claude upstream accept the thinking. */
  encrypted_content?: string;
  status?: 'in_progress' | 'completed' | 'incomplete';
}

export type OutputItem = MessageItem | FunctionCallItem | ReasoningItem;

export type ResponseStatus = 'in_progress' | 'completed' | 'incomplete' | 'failed';

export interface ResponsesObject {
  id: string;
  object: 'response';
  /** Required by the published type; no access program applies here. */
  access_programs: null;
  created_at: number;
  status: ResponseStatus;
  completed_at: number | null;
  error: { code: string; message: string } | null;
  incomplete_details: { reason: 'max_output_tokens' | 'content_filter' } | null;
  instructions: string | null;
  max_output_tokens: number | null;
  metadata: Record<string, string> | null;
  model: string;
  output: OutputItem[];
  parallel_tool_calls: boolean;
  previous_response_id: null;
  reasoning: unknown;
  temperature: number | null;
  text: { format: unknown };
  tool_choice: unknown;
  tools: unknown[];
  top_p: number | null;
  truncation: 'disabled';
  /** Absent until the answer ends (the published type has no null). */
  usage?: ResponsesUsage;
  /** The tier the answer was billed at (OpenAI's `Response.service_tier`). */
  service_tier?: 'default' | 'priority';
  user?: string;
}

/** The stable ids of one response's items. */
export class ItemIds {
  readonly #base: string;

  constructor(responseId: string) {
    this.#base = responseId.replace(/^[a-z]+_/, '');
  }

  message(index: number): string {
    return index === 0 ? `msg_${this.#base}` : `msg_${this.#base}_${index}`;
  }

  functionCall(index: number): string {
    return `fc_${this.#base}_${index}`;
  }

  reasoning(index: number): string {
    return index === 0 ? `${REASONING_ITEM_PREFIX}${this.#base}` : `${REASONING_ITEM_PREFIX}${this.#base}_${index}`;
  }
}

export function renderResponsesUsage(usage: ChatUsage): ResponsesUsage {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedInputTokens, cache_write_tokens: usage.cacheCreationTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens ?? 0 },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/** `incomplete` when the output was cut short (OpenAI's status for max_output_tokens and the content filter). */
export function statusOf(reason: StopReason): { status: ResponseStatus; incomplete: ResponsesObject['incomplete_details'] } {
  if (reason === 'max_tokens') return { status: 'incomplete', incomplete: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter') return { status: 'incomplete', incomplete: { reason: 'content_filter' } };
  return { status: 'completed', incomplete: null };
}

/** OpenAI's `ResponseError.code` for a failure of the given HTTP status. */
export function responsesErrorCode(status: number): string {
  if (status === 429) return 'rate_limit_exceeded';
  if (status === 400 || status === 422) return 'invalid_prompt';
  return 'server_error';
}

export interface ResponseShell {
  id: string;
  model: string;
  createdAt: number;
  echo: ResponsesEcho;
}

/** The response object around its output: the request's settings echoed, as OpenAI returns them. */
export function responseObject(shell: ResponseShell, status: ResponseStatus, output: OutputItem[], usage: ChatUsage | undefined): ResponsesObject {
  const { echo } = shell;
  const body: ResponsesObject = {
    id: shell.id,
    object: 'response',
    access_programs: null,
    created_at: shell.createdAt,
    status,
    completed_at: status === 'completed' ? Math.floor(Date.now() / 1000) : null,
    error: null,
    incomplete_details: null,
    instructions: echo.instructions,
    max_output_tokens: echo.maxOutputTokens,
    metadata: echo.metadata,
    model: shell.model,
    output,
    parallel_tool_calls: echo.parallelToolCalls,
    previous_response_id: null,
    reasoning: echo.reasoning,
    temperature: echo.temperature,
    text: { format: echo.textFormat },
    tool_choice: echo.toolChoice,
    tools: echo.tools,
    top_p: echo.topP,
    truncation: 'disabled',
  };
  if (usage) body.usage = renderResponsesUsage(usage);
  // The tier the answer was billed at, as OpenAI reports the tier that served it.
  if (usage?.serviceTier !== undefined) body.service_tier = usage.serviceTier === 'priority' ? 'priority' : 'default';
  if (echo.user !== undefined) body.user = echo.user;
  return body;
}

export function failedResponseObject(shell: ResponseShell, output: OutputItem[], error: ChatStreamError, usage: ChatUsage): ResponsesObject {
  const body = responseObject(shell, 'failed', output, usage);
  body.error = { code: responsesErrorCode(error.status), message: error.message };
  return body;
}

/** A whole answer: reasoning, then the message, then the function calls (the order OpenAI emits them). */
export function renderResponsesObject(response: ChatResponse, echo: ResponsesEcho, createdAt = Math.floor(Date.now() / 1000)): ResponsesObject {
  const ids = new ItemIds(response.id);
  const { status, incomplete } = statusOf(response.stopReason);
  const itemStatus = status === 'incomplete' ? 'incomplete' : 'completed';
  const output: OutputItem[] = [];
  const reasoning = response.content.filter((b) => b.type === 'reasoning');
  if (reasoning.length > 0) {
    const summary = reasoning.filter((b) => b.text !== '').map((b) => ({ type: 'summary_text' as const, text: b.text }));
    const item: ReasoningItem = { type: 'reasoning', id: ids.reasoning(0), summary };
    const signature = reasoning.find((b) => b.signature !== undefined)?.signature;
    if (signature !== undefined) item.encrypted_content = signature;
    output.push(item);
  }
  const text = response.content.filter((b) => b.type === 'text').map((b) => b.text).join('');
  if (text !== '') {
    output.push({ type: 'message', id: ids.message(0), role: 'assistant', status: itemStatus, content: [{ type: 'output_text', text, annotations: [], logprobs: [] }] });
  }
  let calls = 0;
  for (const block of response.content) {
    if (block.type !== 'tool_call') continue;
    output.push({ type: 'function_call', id: ids.functionCall(calls++), call_id: block.id, name: block.name, arguments: block.arguments, status: 'completed' });
  }
  const body = responseObject({ id: response.id, model: response.model, createdAt, echo }, status, output, response.usage);
  body.incomplete_details = incomplete;
  return body;
}
