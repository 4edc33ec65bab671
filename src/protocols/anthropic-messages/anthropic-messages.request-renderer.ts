/**
 * Renders a canonical request as an Anthropic `/v1/messages` body for an upstream. Translation
 * choices (see docs/chat.md):
 * - later system messages are appended to the top-level `system`, in order;
 * - canonical tool messages become `tool_result` blocks; consecutive ones, and user text after them,
 *   are merged into one user turn (Anthropic wants the results of one assistant turn together, first);
 * - `json_object` becomes a system instruction (Anthropic has no JSON mode); `json_schema` becomes
 *   `output_config.format` (structured outputs: models without it answer with their own error);
 * - temperature above 1 is capped at 1 (Anthropic's range is 0 to 1);
 * - unsigned reasoning (from another vendor) is dropped: Anthropic refuses thinking without signature;
 * - `strict` on tools is only sent when the client spoke Anthropic (older Claude models refuse it,
 *   and OpenAI clients set it by habit).
 */
import { invalidInput } from '../../domain/errors.ts';
import type { CacheControl, ChatRequest, ImagePart, NativePart, TextPart, ToolChoice } from '../../domain/chat/chat-request.types.ts';
import { type JsonObject, parseJsonObject } from '../../domain/chat/json-input.ts';
import { mergePassthrough } from '../../domain/chat/chat-wire.helpers.ts';

export interface AnthropicRenderOptions {
  /** The upstream's model name. */
  model: string;
  /** `max_tokens` when the request has no limit (Anthropic requires one). */
  defaultMaxTokens: number;
}

export const JSON_OBJECT_INSTRUCTION = 'Respond with a single valid JSON object and nothing else: no prose, no code fences.';

/** Tool ids must match ^[a-zA-Z0-9_-]+$ at Anthropic; other vendors' ids are mapped the same way on both sides. */
export function anthropicToolId(id: string): string {
  const clean = id.replace(/[^a-zA-Z0-9_-]/g, '_');
  return clean === '' ? 'toolu_' : clean;
}

export function renderAnthropicMessagesRequest(request: ChatRequest, options: AnthropicRenderOptions): JsonObject {
  const fromAnthropic = request.passthrough?.protocol === 'anthropic';
  const system: TextPart[] = [...request.system];
  const messages: Array<{ role: 'user' | 'assistant'; content: JsonObject[] }> = [];
  const push = (role: 'user' | 'assistant', blocks: JsonObject[]): void => {
    const last = messages.at(-1);
    if (last && last.role === role) last.content.push(...blocks);
    else messages.push({ role, content: blocks });
  };

  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
        system.push(...message.content);
        break;
      case 'user':
        push('user', message.content.map((part) =>
          part.type === 'text' ? textBlock(part) : part.type === 'image' ? imageBlock(part) : nativeValue(part)));
        break;
      case 'tool': {
        const block: JsonObject = { type: 'tool_result', tool_use_id: anthropicToolId(message.toolCallId) };
        block.content = message.content.map((part) =>
          part.type === 'text' ? textBlock(part) : part.type === 'image' ? imageBlock(part) : nativeValue(part));
        if (message.isError) block.is_error = true;
        if (message.cacheControl) block.cache_control = message.cacheControl;
        push('user', [block]);
        break;
      }
      case 'assistant': {
        const blocks: JsonObject[] = [];
        for (const part of message.content) {
          if (part.type === 'reasoning') {
            if (part.redactedData !== undefined) blocks.push({ type: 'redacted_thinking', data: part.redactedData });
            else if (part.signature !== undefined) blocks.push({ type: 'thinking', thinking: part.text, signature: part.signature });
          } else if (part.type === 'text') {
            // Anthropic refuses empty text blocks.
            if (part.text !== '') blocks.push(textBlock(part));
          } else if (part.protocol === 'anthropic') blocks.push(part.value);
        }
        for (const call of message.toolCalls) {
          blocks.push({ type: 'tool_use', id: anthropicToolId(call.id), name: call.name, input: parseJsonObject(call.arguments) });
        }
        if (blocks.length > 0) push('assistant', blocks);
        break;
      }
    }
  }

  const body: JsonObject = {
    model: options.model,
    max_tokens: request.maxOutputTokens ?? options.defaultMaxTokens,
    messages: messages.map((m) => ({ role: m.role, content: compact(m.content) })),
  };
  if (request.responseFormat?.type === 'json_object') system.push({ type: 'text', text: JSON_OBJECT_INSTRUCTION });
  if (system.length > 0) {
    const only = system[0];
    body.system = system.length === 1 && only && !only.cacheControl ? only.text : system.map(textBlock);
  }
  if (request.stream) body.stream = true;
  if (request.temperature !== undefined) body.temperature = Math.min(request.temperature, 1);
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop.length > 0) body.stop_sequences = request.stop;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => {
      if (tool.type === 'native') return nativeValue(tool);
      const rendered: JsonObject = { name: tool.name, input_schema: tool.parameters };
      if (tool.description !== undefined) rendered.description = tool.description;
      if (tool.strict !== undefined && fromAnthropic) rendered.strict = tool.strict;
      if (tool.cacheControl) rendered.cache_control = tool.cacheControl;
      return rendered;
    });
    const choice = renderToolChoice(request.toolChoice, request.parallelToolCalls);
    if (choice) body.tool_choice = choice;
  }
  if (request.responseFormat?.type === 'json_schema') body.output_config = { format: { type: 'json_schema', schema: request.responseFormat.schema } };
  if (request.userId !== undefined) body.metadata = { user_id: request.userId };
  return mergePassthrough(body, request, 'anthropic');
}

/** A user turn of one plain text block is sent as a string, the form clients usually write. */
function compact(blocks: JsonObject[]): string | JsonObject[] {
  const only = blocks[0];
  if (blocks.length === 1 && only && only.type === 'text' && only.cache_control === undefined) return only.text as string;
  return blocks;
}

function withCache(block: JsonObject, cache: CacheControl | undefined): JsonObject {
  if (cache) block.cache_control = cache;
  return block;
}

function textBlock(part: TextPart): JsonObject {
  return withCache({ type: 'text', text: part.text }, part.cacheControl);
}

function imageBlock(part: ImagePart): JsonObject {
  const source = part.source.kind === 'url'
    ? { type: 'url', url: part.source.url }
    : { type: 'base64', media_type: part.source.mediaType, data: part.source.data };
  return withCache({ type: 'image', source }, part.cacheControl);
}

function nativeValue(part: NativePart | { type: 'native'; protocol: string; value: JsonObject }): JsonObject {
  if (part.protocol === 'anthropic') return part.value;
  const kind = typeof part.value.type === 'string' ? part.value.type : 'unknown';
  throw invalidInput(`The item of type '${kind}' cannot be sent to an Anthropic upstream.`);
}

function renderToolChoice(choice: ToolChoice | undefined, parallel: boolean | undefined): JsonObject | undefined {
  let rendered: JsonObject | undefined;
  if (choice?.type === 'required') rendered = { type: 'any' };
  else if (choice?.type === 'tool') rendered = { type: 'tool', name: choice.name };
  else if (choice) rendered = { type: choice.type };
  if (parallel === false && rendered?.type !== 'none') rendered = { ...(rendered ?? { type: 'auto' }), disable_parallel_tool_use: true };
  return rendered;
}
