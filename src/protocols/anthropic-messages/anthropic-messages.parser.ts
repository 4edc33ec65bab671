/**
 * Parses and validates a messages-protocol request body (POST /api/v1/messages) into the canonical
 * request. `tool_result` blocks of a user message become canonical tool messages (in order, before
 * the rest of the user's blocks), which is how the OpenAI side expresses them. Vendor blocks we do not
 * translate (document, search results, server tools) are kept as native parts. `metadata` and
 * `output_config` are read for what they share with OpenAI and also kept whole in passthrough, so
 * that the parts we do not model reach an Anthropic upstream. Other fields must be fields of the
 * published request type (anthropic-messages.fields.ts); those that change the price are billed
 * (cache writes by lifetime, web searches) or refused here.
 */
import { invalidInput } from '../../domain/errors.ts';
import type {
  AssistantMessage,
  AssistantPart,
  CacheControl,
  ChatRequest,
  ChatTool,
  FunctionTool,
  ImagePart,
  TextPart,
  ToolChoice,
  ToolMessage,
  ToolResultPart,
  UserPart,
} from '../../domain/chat/chat-request.types.ts';
import {
  expectArray,
  expectObject,
  expectString,
  type JsonObject,
  optionalBoolean,
  optionalNumber,
  optionalPositiveInteger,
  optionalString,
  requiredString,
} from '../../domain/chat/json-input.ts';
import { cacheWriteLifetime, readAnthropicExtras, serverToolOptions } from './anthropic-messages.fields.ts';

/** Blocks only Anthropic understands; forwarded to Anthropic upstreams, refused by the others. */
const NATIVE_USER_BLOCKS = new Set(['document', 'search_result', 'container_upload']);
const NATIVE_ASSISTANT_BLOCKS = new Set([
  'server_tool_use', 'web_search_tool_result', 'web_fetch_tool_result', 'code_execution_tool_result',
  'bash_code_execution_tool_result', 'text_editor_code_execution_tool_result', 'tool_search_tool_result',
  'mcp_tool_use', 'mcp_tool_result',
]);

export function parseAnthropicMessagesRequest(body: unknown): ChatRequest {
  const b = expectObject(body, 'body');
  const model = requiredString(b, 'model', 'model');
  if (model === '') throw invalidInput('model must not be empty.', 'model');
  const maxTokens = optionalPositiveInteger(b, 'max_tokens', 'max_tokens');
  if (maxTokens === undefined) throw invalidInput('max_tokens is required.', 'max_tokens');
  const extras = readAnthropicExtras(b);

  const request: ChatRequest = {
    model,
    system: parseSystem(b.system),
    messages: [],
    tools: [],
    maxOutputTokens: maxTokens,
    stop: b.stop_sequences === undefined || b.stop_sequences === null
      ? []
      : expectArray(b.stop_sequences, 'stop_sequences').map((s, i) => expectString(s, `stop_sequences[${i}]`)),
    stream: optionalBoolean(b, 'stream', 'stream') ?? false,
    passthrough: { protocol: 'anthropic', fields: extras.fields, keepAcross: extras.keepAcross },
  };
  parseMessages(b.messages, request);
  const temperature = optionalNumber(b, 'temperature', 'temperature', { min: 0, max: 1 });
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(b, 'top_p', 'top_p', { min: 0, max: 1 });
  if (topP !== undefined) request.topP = topP;
  if (b.tools !== undefined && b.tools !== null) request.tools = parseTools(b.tools);
  if (b.tool_choice !== undefined && b.tool_choice !== null) parseToolChoice(b.tool_choice, request);
  if (b.metadata !== undefined && b.metadata !== null) {
    const userId = optionalString(expectObject(b.metadata, 'metadata'), 'user_id', 'metadata.user_id');
    if (userId !== undefined) request.userId = userId;
  }
  if (b.output_config !== undefined && b.output_config !== null) {
    const format = expectObject(b.output_config, 'output_config').format;
    if (format !== undefined && format !== null) {
      const f = expectObject(format, 'output_config.format');
      if (f.type !== 'json_schema') throw invalidInput("output_config.format.type must be 'json_schema'.", 'output_config.format.type');
      request.responseFormat = { type: 'json_schema', name: 'response', schema: expectObject(f.schema, 'output_config.format.schema') };
    }
  }
  const cacheWrites = cacheWriteLifetime(request, b.cache_control);
  const priceOptions = serverToolOptions(b.tools, cacheWrites ? { cacheWrites } : undefined);
  if (priceOptions) request.priceOptions = priceOptions;
  return request;
}

function cacheControlOf(block: JsonObject, field: string): CacheControl | undefined {
  const value = block.cache_control;
  if (value === undefined || value === null) return undefined;
  return expectObject(value, `${field}.cache_control`);
}

function textBlock(block: JsonObject, field: string): TextPart {
  const part: TextPart = { type: 'text', text: requiredString(block, 'text', `${field}.text`) };
  const cache = cacheControlOf(block, field);
  if (cache) part.cacheControl = cache;
  return part;
}

function parseSystem(value: unknown): TextPart[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  return expectArray(value, 'system').map((raw, i) => {
    const block = expectObject(raw, `system[${i}]`);
    if (block.type !== 'text') throw invalidInput(`system[${i}].type must be 'text'.`, `system[${i}].type`);
    return textBlock(block, `system[${i}]`);
  });
}

function blocksOf(value: unknown, field: string): JsonObject[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (value === undefined || value === null) throw invalidInput(`${field} is required.`, field);
  return expectArray(value, field).map((raw, j) => expectObject(raw, `${field}[${j}]`));
}

function parseMessages(value: unknown, request: ChatRequest): void {
  if (value === undefined || value === null) throw invalidInput('messages is required.', 'messages');
  const list = expectArray(value, 'messages');
  if (list.length === 0) throw invalidInput('messages must contain at least one message.', 'messages');
  list.forEach((raw, i) => {
    const field = `messages[${i}]`;
    const m = expectObject(raw, field);
    const role = requiredString(m, 'role', `${field}.role`);
    const blocks = blocksOf(m.content, `${field}.content`);
    if (role === 'user') parseUser(blocks, `${field}.content`, request);
    else if (role === 'assistant') request.messages.push(parseAssistant(blocks, `${field}.content`));
    else if (role === 'system') {
      request.messages.push({
        role: 'system',
        content: blocks.map((block, j) => {
          if (block.type !== 'text') throw invalidInput(`${field}.content[${j}].type must be 'text'.`, `${field}.content[${j}].type`);
          return textBlock(block, `${field}.content[${j}]`);
        }),
      });
    } else throw invalidInput(`${field}.role must be one of user, assistant, system.`, `${field}.role`);
  });
}

function parseImage(block: JsonObject, field: string): ImagePart | UserPart {
  const source = expectObject(block.source, `${field}.source`);
  let part: ImagePart;
  if (source.type === 'base64') {
    const mediaType = requiredString(source, 'media_type', `${field}.source.media_type`);
    if (!mediaType.startsWith('image/')) throw invalidInput(`${field}.source.media_type must be an image type.`, `${field}.source.media_type`);
    part = { type: 'image', source: { kind: 'base64', mediaType, data: requiredString(source, 'data', `${field}.source.data`) } };
  } else if (source.type === 'url') {
    part = { type: 'image', source: { kind: 'url', url: requiredString(source, 'url', `${field}.source.url`) } };
  } else if (source.type === 'file') {
    // A file id lives in the client's Anthropic account: only an Anthropic upstream can resolve it.
    return { type: 'native', protocol: 'anthropic', value: block };
  } else {
    throw invalidInput(`${field}.source.type must be one of base64, url, file.`, `${field}.source.type`);
  }
  const cache = cacheControlOf(block, field);
  if (cache) part.cacheControl = cache;
  return part;
}

function parseUser(blocks: JsonObject[], field: string, request: ChatRequest): void {
  let pending: UserPart[] = [];
  const flush = (): void => {
    if (pending.length > 0) request.messages.push({ role: 'user', content: pending });
    pending = [];
  };
  blocks.forEach((block, j) => {
    const f = `${field}[${j}]`;
    if (block.type === 'tool_result') {
      flush();
      request.messages.push(parseToolResult(block, f));
    } else if (block.type === 'text') pending.push(textBlock(block, f));
    else if (block.type === 'image') pending.push(parseImage(block, f));
    else if (typeof block.type === 'string' && NATIVE_USER_BLOCKS.has(block.type)) {
      pending.push({ type: 'native', protocol: 'anthropic', value: block });
    } else throw invalidInput(`${f}.type must be one of text, image, tool_result, document, search_result.`, `${f}.type`);
  });
  flush();
  // A user turn made only of an empty string still counts as a turn.
  if (blocks.length === 0) request.messages.push({ role: 'user', content: [] });
}

function parseToolResult(block: JsonObject, field: string): ToolMessage {
  const content: ToolResultPart[] = [];
  if (typeof block.content === 'string') content.push({ type: 'text', text: block.content });
  else if (block.content !== undefined && block.content !== null) {
    expectArray(block.content, `${field}.content`).forEach((raw, k) => {
      const f = `${field}.content[${k}]`;
      const inner = expectObject(raw, f);
      if (inner.type === 'text') content.push(textBlock(inner, f));
      else if (inner.type === 'image') content.push(parseImage(inner, f) as ToolResultPart);
      else if (inner.type === 'document' || inner.type === 'search_result') content.push({ type: 'native', protocol: 'anthropic', value: inner });
      else throw invalidInput(`${f}.type must be one of text, image, document, search_result.`, `${f}.type`);
    });
  }
  const message: ToolMessage = {
    role: 'tool',
    toolCallId: requiredString(block, 'tool_use_id', `${field}.tool_use_id`),
    content,
    isError: optionalBoolean(block, 'is_error', `${field}.is_error`) ?? false,
  };
  const cache = cacheControlOf(block, field);
  if (cache) message.cacheControl = cache;
  return message;
}

function parseAssistant(blocks: JsonObject[], field: string): AssistantMessage {
  const content: AssistantPart[] = [];
  const message: AssistantMessage = { role: 'assistant', content, toolCalls: [] };
  blocks.forEach((block, j) => {
    const f = `${field}[${j}]`;
    switch (block.type) {
      case 'text':
        content.push(textBlock(block, f));
        return;
      case 'tool_use': {
        const input = block.input === undefined ? {} : expectObject(block.input, `${f}.input`);
        message.toolCalls.push({
          id: requiredString(block, 'id', `${f}.id`),
          name: requiredString(block, 'name', `${f}.name`),
          arguments: JSON.stringify(input),
        });
        return;
      }
      case 'thinking': {
        const part: AssistantPart = { type: 'reasoning', text: requiredString(block, 'thinking', `${f}.thinking`) };
        const signature = optionalString(block, 'signature', `${f}.signature`);
        if (signature !== undefined) part.signature = signature;
        content.push(part);
        return;
      }
      case 'redacted_thinking':
        content.push({ type: 'reasoning', text: '', redactedData: requiredString(block, 'data', `${f}.data`) });
        return;
      default:
        if (typeof block.type === 'string' && NATIVE_ASSISTANT_BLOCKS.has(block.type)) {
          content.push({ type: 'native', protocol: 'anthropic', value: block });
          return;
        }
        throw invalidInput(`${f}.type must be one of text, tool_use, thinking, redacted_thinking.`, `${f}.type`);
    }
  });
  return message;
}

function parseTools(value: unknown): ChatTool[] {
  return expectArray(value, 'tools').map((raw, i): ChatTool => {
    const f = `tools[${i}]`;
    const tool = expectObject(raw, f);
    if (tool.type !== undefined && tool.type !== null && tool.type !== 'custom') {
      // A server tool (web search, code execution, …): only Anthropic runs it.
      return { type: 'native', protocol: 'anthropic', value: tool };
    }
    const result: FunctionTool = {
      type: 'function',
      name: requiredString(tool, 'name', `${f}.name`),
      parameters: expectObject(tool.input_schema, `${f}.input_schema`),
    };
    const description = optionalString(tool, 'description', `${f}.description`);
    if (description !== undefined) result.description = description;
    const strict = optionalBoolean(tool, 'strict', `${f}.strict`);
    if (strict !== undefined) result.strict = strict;
    const cache = cacheControlOf(tool, f);
    if (cache) result.cacheControl = cache;
    return result;
  });
}

function parseToolChoice(value: unknown, request: ChatRequest): void {
  const choice = expectObject(value, 'tool_choice');
  let parsed: ToolChoice;
  if (choice.type === 'auto' || choice.type === 'none') parsed = { type: choice.type };
  else if (choice.type === 'any') parsed = { type: 'required' };
  else if (choice.type === 'tool') parsed = { type: 'tool', name: requiredString(choice, 'name', 'tool_choice.name') };
  else throw invalidInput("tool_choice.type must be one of auto, any, tool, none.", 'tool_choice.type');
  request.toolChoice = parsed;
  if (optionalBoolean(choice, 'disable_parallel_tool_use', 'tool_choice.disable_parallel_tool_use') === true) {
    request.parallelToolCalls = false;
  }
}
