/**
 * The canonical request as a Responses body, for an upstream that speaks Responses natively (the
 * upstream side; no provider uses it yet, docs/decisions.md 2026-11-25). Tool calls become
 * `function_call` items and tool results `function_call_output` items; the system prompt is
 * `instructions`; chat-completions passthrough fields are renamed (`reasoning_effort` →
 * `reasoning.effort`, `verbosity` → `text.verbosity`). `store` is always false: the gateway asks no
 * upstream to keep its users' conversations. What the Responses request cannot carry (stop sequences,
 * a sampling control it lacks, another protocol's blocks) is refused naming the field, so the route
 * fails over or the client hears why.
 */
import { invalidInput } from '../../domain/errors.ts';
import type { ChatRequest, ChatTool, ImagePart, TextPart, ToolResultPart, UserPart } from '../../domain/chat/chat-request.types.ts';
import { textOf } from '../../domain/chat/chat-request.types.ts';
import type { JsonObject } from '../../domain/chat/json-input.ts';

export interface ResponsesRenderOptions {
  /** The upstream's model name. */
  model: string;
}

/** Chat-completions passthrough fields a Responses request has under the same name. */
const SAME_NAME = new Set(['service_tier', 'safety_identifier', 'prompt_cache_key', 'prompt_cache_retention', 'metadata']);
/** Chat-completions passthrough fields with no Responses counterpart that change nothing asked for. */
const DROPPED = new Set(['store', 'modalities', 'prompt_cache_options']);

export function renderResponsesRequest(request: ChatRequest, options: ResponsesRenderOptions): JsonObject {
  if (request.stop.length > 0) throw invalidInput('stop sequences cannot be honoured by a Responses upstream (the Responses API has none).', 'stop');
  const body: JsonObject = { model: options.model, input: renderInput(request), store: false };
  const instructions = textOf(request.system, '\n\n');
  if (instructions !== '') body.instructions = instructions;
  if (request.stream) body.stream = true;
  if (request.maxOutputTokens !== undefined) body.max_output_tokens = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.tools.length > 0) body.tools = request.tools.map(renderTool);
  const choice = request.toolChoice;
  if (choice) body.tool_choice = choice.type === 'tool' ? { type: 'function', name: choice.name } : choice.type;
  if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  const text: JsonObject = {};
  const format = request.responseFormat;
  if (format?.type === 'json_schema') {
    const rendered: JsonObject = { type: 'json_schema', name: format.name, schema: format.schema };
    if (format.strict !== undefined) rendered.strict = format.strict;
    if (format.description !== undefined) rendered.description = format.description;
    text.format = rendered;
  } else if (format) {
    text.format = { type: format.type };
  }
  if (request.userId !== undefined) body.user = request.userId;
  mergeChatPassthrough(request, body, text);
  if (Object.keys(text).length > 0) body.text = text;
  return body;
}

/** Chat-completions fields the client sent (from either OpenAI route), under their Responses names. */
function mergeChatPassthrough(request: ChatRequest, body: JsonObject, text: JsonObject): void {
  const passthrough = request.passthrough;
  if (!passthrough) return;
  if (passthrough.protocol !== 'openai') {
    const kept = passthrough.keepAcross[0];
    if (kept !== undefined) throw invalidInput(`${kept} cannot be honoured by a Responses upstream, and leaving it out would change what was asked for.`, kept);
    return;
  }
  for (const [key, value] of Object.entries(passthrough.fields)) {
    if (key === 'reasoning_effort') body.reasoning = { effort: value };
    else if (key === 'verbosity') text.verbosity = value;
    else if (SAME_NAME.has(key)) body[key] = value;
    else if (!DROPPED.has(key) && !(key === 'logprobs' && value !== true)) {
      const named = passthrough.keepAcross.find((name) => name === key || name.endsWith(`.${key}`)) ?? key;
      throw invalidInput(`${named} cannot be honoured by a Responses upstream (the Responses API has no such field).`, named);
    }
  }
}

function renderInput(request: ChatRequest): JsonObject[] {
  const items: JsonObject[] = [];
  for (const message of request.messages) {
    switch (message.role) {
      case 'system':
        items.push({ role: 'system', content: textOf(message.content) });
        break;
      case 'user':
        items.push({ role: 'user', content: message.content.map(renderUserPart) });
        break;
      case 'assistant': {
        const text = textOf(message.content, '');
        // Reasoning is not sent back: an upstream of this protocol wants its own encrypted items, which the canonical model does not keep.
        if (text !== '') items.push({ role: 'assistant', content: text });
        for (const call of message.toolCalls) items.push({ type: 'function_call', call_id: call.id, name: call.name, arguments: call.arguments });
        break;
      }
      case 'tool':
        items.push({ type: 'function_call_output', call_id: message.toolCallId, output: renderToolOutput(message.content) });
        break;
    }
  }
  return items;
}

function renderUserPart(part: UserPart): JsonObject {
  switch (part.type) {
    case 'text':
      return { type: 'input_text', text: part.text };
    case 'image':
      return renderImage(part);
    case 'native':
      if (part.protocol === 'openai' && part.value.type === 'file') {
        const file = (part.value.file ?? {}) as JsonObject;
        return { type: 'input_file', ...file };
      }
      throw invalidInput(`A ${String(part.value.type)} block cannot be sent to a Responses upstream.`, 'messages');
  }
}

function renderImage(part: ImagePart): JsonObject {
  const url = part.source.kind === 'url' ? part.source.url : `data:${part.source.mediaType};base64,${part.source.data}`;
  // `detail` is required by the Responses type; `auto` is what OpenAI does without one.
  return { type: 'input_image', image_url: url, detail: part.detail ?? 'auto' };
}

function renderToolOutput(parts: ToolResultPart[]): string | JsonObject[] {
  if (parts.every((p): p is TextPart => p.type === 'text')) return textOf(parts, '');
  return parts.map(renderUserPart);
}

function renderTool(tool: ChatTool): JsonObject {
  if (tool.type === 'native') throw invalidInput(`A ${String(tool.value.type)} tool cannot be sent to a Responses upstream.`, 'tools');
  const rendered: JsonObject = { type: 'function', name: tool.name, parameters: tool.parameters, strict: tool.strict ?? false };
  if (tool.description !== undefined) rendered.description = tool.description;
  return rendered;
}
