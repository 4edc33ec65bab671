/**
 * Parses and validates a chat-completions request body (POST /api/v1/chat/completions) into the
 * canonical request. Refusals are `invalid_input` errors naming the field. Fields we do not model
 * must be fields of OpenAI's published request type (openai-chat.fields.ts): they are kept in
 * `passthrough` and reach an OpenAI-style upstream untouched, so that its own validation answers for
 * their values; those that change the price are billed or refused here.
 */
import { invalidInput } from '../../domain/errors.ts';
import type {
  AssistantPart,
  ChatMessage,
  ChatRequest,
  ChatTool,
  ImagePart,
  ResponseFormat,
  TextPart,
  ToolCall,
  ToolChoice,
  UserPart,
} from '../../domain/chat/chat-request.types.ts';
import {
  expectArray,
  expectObject,
  expectString,
  isObject,
  type JsonObject,
  optionalBoolean,
  optionalNumber,
  optionalPositiveInteger,
  optionalString,
  requiredString,
} from '../../domain/chat/json-input.ts';
import { parseDataUri } from '../../domain/chat/chat-wire.helpers.ts';
import { audioInputRefusal, readOpenAiExtras } from './openai-chat.fields.ts';

export interface ParsedOpenAiChatRequest {
  request: ChatRequest;
  /** `stream_options.include_usage`: the client wants the final usage chunk. */
  includeUsage: boolean;
}

const ROLES = 'system, developer, user, assistant, tool';
/** Function names as OpenAI accepts them; Anthropic's rule is the same alphabet, so both sides agree. */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

export function parseOpenAiChatRequest(body: unknown): ParsedOpenAiChatRequest {
  const b = expectObject(body, 'body');
  const model = requiredString(b, 'model', 'model');
  if (model === '') throw invalidInput('model must not be empty.', 'model');
  const n = optionalNumber(b, 'n', 'n', { integer: true, min: 1 });
  if (n !== undefined && n > 1) throw invalidInput('n must be 1: one choice is returned per request.', 'n');

  const extras = readOpenAiExtras(b);
  const request: ChatRequest = {
    model,
    system: [],
    messages: [],
    tools: [],
    stop: parseStop(b.stop),
    stream: optionalBoolean(b, 'stream', 'stream') ?? false,
    passthrough: { protocol: 'openai', fields: extras.fields, keepAcross: extras.keepAcross },
  };
  if (extras.priceOptions) request.priceOptions = extras.priceOptions;
  parseMessages(b.messages, request);

  const temperature = optionalNumber(b, 'temperature', 'temperature', { min: 0, max: 2 });
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(b, 'top_p', 'top_p', { min: 0, max: 1 });
  if (topP !== undefined) request.topP = topP;
  // max_completion_tokens is the current name and max_tokens the older alias; the newer one wins.
  const maxTokens = optionalPositiveInteger(b, 'max_completion_tokens', 'max_completion_tokens')
    ?? optionalPositiveInteger(b, 'max_tokens', 'max_tokens');
  if (maxTokens !== undefined) request.maxOutputTokens = maxTokens;
  if (b.tools !== undefined && b.tools !== null) request.tools = parseTools(b.tools);
  if (b.tool_choice !== undefined && b.tool_choice !== null) request.toolChoice = parseToolChoice(b.tool_choice);
  const parallel = optionalBoolean(b, 'parallel_tool_calls', 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  if (b.response_format !== undefined && b.response_format !== null) request.responseFormat = parseResponseFormat(b.response_format);
  const user = optionalString(b, 'user', 'user');
  if (user !== undefined) request.userId = user;

  let includeUsage = false;
  if (b.stream_options !== undefined && b.stream_options !== null) {
    includeUsage = optionalBoolean(expectObject(b.stream_options, 'stream_options'), 'include_usage', 'stream_options.include_usage') ?? false;
  }
  return { request, includeUsage };
}

function parseStop(value: unknown): string[] {
  if (value === undefined || value === null) return [];
  if (typeof value === 'string') return [value];
  return expectArray(value, 'stop').map((s, i) => expectString(s, `stop[${i}]`));
}

function parseMessages(value: unknown, request: ChatRequest): void {
  if (value === undefined || value === null) throw invalidInput('messages is required.', 'messages');
  const list = expectArray(value, 'messages');
  if (list.length === 0) throw invalidInput('messages must contain at least one message.', 'messages');
  list.forEach((raw, i) => {
    const field = `messages[${i}]`;
    const m = expectObject(raw, field);
    const role = requiredString(m, 'role', `${field}.role`);
    const name = optionalString(m, 'name', `${field}.name`);
    switch (role) {
      case 'system':
      case 'developer': {
        const content = parseTextContent(m.content, `${field}.content`);
        // Leading system messages form the system prompt; later ones keep their place.
        if (request.messages.length === 0) request.system.push(...content);
        else request.messages.push({ role: 'system', content });
        return;
      }
      case 'user': {
        const message: ChatMessage = { role: 'user', content: parseUserContent(m.content, `${field}.content`) };
        if (name !== undefined) message.name = name;
        request.messages.push(message);
        return;
      }
      case 'assistant':
        request.messages.push(parseAssistant(m, field, name));
        return;
      case 'tool': {
        const toolCallId = requiredString(m, 'tool_call_id', `${field}.tool_call_id`);
        request.messages.push({ role: 'tool', toolCallId, content: parseTextContent(m.content, `${field}.content`), isError: false });
        return;
      }
      case 'function':
        throw invalidInput(`${field}.role 'function' is deprecated and not supported; use 'tool'.`, `${field}.role`);
      default:
        throw invalidInput(`${field}.role must be one of ${ROLES}.`, `${field}.role`);
    }
  });
}

/** System, developer and tool content: a string or an array of text parts. */
function parseTextContent(value: unknown, field: string): TextPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (value === undefined || value === null) throw invalidInput(`${field} is required.`, field);
  return expectArray(value, field).map((raw, j) => {
    const part = expectObject(raw, `${field}[${j}]`);
    if (part.type !== 'text') throw invalidInput(`${field}[${j}].type must be 'text'.`, `${field}[${j}].type`);
    return { type: 'text', text: requiredString(part, 'text', `${field}[${j}].text`) };
  });
}

function parseUserContent(value: unknown, field: string): UserPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (value === undefined || value === null) throw invalidInput(`${field} is required.`, field);
  return expectArray(value, field).map((raw, j): UserPart => {
    const f = `${field}[${j}]`;
    const part = expectObject(raw, f);
    switch (part.type) {
      case 'text':
        return { type: 'text', text: requiredString(part, 'text', `${f}.text`) };
      case 'image_url':
        return parseImage(part, f);
      case 'input_audio':
        throw audioInputRefusal(f);
      case 'file':
        // An OpenAI-only input: forwarded verbatim to OpenAI-style upstreams, refused by the others.
        return { type: 'native', protocol: 'openai', value: part };
      default:
        throw invalidInput(`${f}.type must be one of text, image_url, input_audio, file.`, `${f}.type`);
    }
  });
}

function parseImage(part: JsonObject, field: string): ImagePart {
  const image = expectObject(part.image_url, `${field}.image_url`);
  const url = requiredString(image, 'url', `${field}.image_url.url`);
  const detail = optionalString(image, 'detail', `${field}.image_url.detail`);
  let result: ImagePart;
  if (url.startsWith('data:')) {
    const data = parseDataUri(url);
    if (!data?.mediaType.startsWith('image/')) {
      throw invalidInput(`${field}.image_url.url must be an http(s) URL or a data:image/…;base64 URI.`, `${field}.image_url.url`);
    }
    result = { type: 'image', source: { kind: 'base64', mediaType: data.mediaType, data: data.data } };
  } else if (/^https?:\/\//i.test(url)) {
    result = { type: 'image', source: { kind: 'url', url } };
  } else {
    throw invalidInput(`${field}.image_url.url must be an http(s) URL or a data:image/…;base64 URI.`, `${field}.image_url.url`);
  }
  if (detail !== undefined) result.detail = detail;
  return result;
}

function parseAssistant(m: JsonObject, field: string, name: string | undefined): ChatMessage {
  const content: AssistantPart[] = [];
  const reasoning = optionalString(m, 'reasoning_content', `${field}.reasoning_content`);
  if (reasoning) content.push({ type: 'reasoning', text: reasoning });
  if (typeof m.content === 'string') {
    if (m.content !== '') content.push({ type: 'text', text: m.content });
  } else if (m.content !== undefined && m.content !== null) {
    expectArray(m.content, `${field}.content`).forEach((raw, j) => {
      const f = `${field}.content[${j}]`;
      const part = expectObject(raw, f);
      if (part.type === 'text') content.push({ type: 'text', text: requiredString(part, 'text', `${f}.text`) });
      else if (part.type === 'refusal') content.push({ type: 'text', text: requiredString(part, 'refusal', `${f}.refusal`) });
      else throw invalidInput(`${f}.type must be 'text' or 'refusal'.`, `${f}.type`);
    });
  }
  if (m.function_call !== undefined && m.function_call !== null) {
    throw invalidInput(`${field}.function_call is deprecated and not supported; use tool_calls.`, `${field}.function_call`);
  }
  const toolCalls: ToolCall[] = [];
  if (m.tool_calls !== undefined && m.tool_calls !== null) {
    expectArray(m.tool_calls, `${field}.tool_calls`).forEach((raw, j) => {
      const f = `${field}.tool_calls[${j}]`;
      const call = expectObject(raw, f);
      if (call.type !== undefined && call.type !== 'function') throw invalidInput(`${f}.type must be 'function'.`, `${f}.type`);
      const fn = expectObject(call.function, `${f}.function`);
      toolCalls.push({
        id: requiredString(call, 'id', `${f}.id`),
        name: requiredString(fn, 'name', `${f}.function.name`),
        arguments: optionalString(fn, 'arguments', `${f}.function.arguments`) ?? '{}',
      });
    });
  }
  const message: ChatMessage = { role: 'assistant', content, toolCalls };
  if (name !== undefined) message.name = name;
  return message;
}

function parseTools(value: unknown): ChatTool[] {
  return expectArray(value, 'tools').map((raw, i): ChatTool => {
    const f = `tools[${i}]`;
    const tool = expectObject(raw, f);
    if (tool.type !== 'function') {
      if (typeof tool.type !== 'string') throw invalidInput(`${f}.type is required.`, `${f}.type`);
      return { type: 'native', protocol: 'openai', value: tool };
    }
    const fn = expectObject(tool.function, `${f}.function`);
    const name = requiredString(fn, 'name', `${f}.function.name`);
    if (!TOOL_NAME.test(name)) throw invalidInput(`${f}.function.name must be 1 to 64 letters, digits, _ or -.`, `${f}.function.name`);
    const parameters = fn.parameters === undefined || fn.parameters === null
      ? { type: 'object', properties: {} }
      : expectObject(fn.parameters, `${f}.function.parameters`);
    const result: ChatTool = { type: 'function', name, parameters };
    const description = optionalString(fn, 'description', `${f}.function.description`);
    if (description !== undefined) result.description = description;
    const strict = optionalBoolean(fn, 'strict', `${f}.function.strict`);
    if (strict !== undefined) result.strict = strict;
    return result;
  });
}

function parseToolChoice(value: unknown): ToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  if (isObject(value) && value.type === 'function') {
    const fn = expectObject(value.function, 'tool_choice.function');
    return { type: 'tool', name: requiredString(fn, 'name', 'tool_choice.function.name') };
  }
  throw invalidInput("tool_choice must be 'auto', 'none', 'required' or {type: 'function', function: {name}}.", 'tool_choice');
}

function parseResponseFormat(value: unknown): ResponseFormat {
  const format = expectObject(value, 'response_format');
  if (format.type === 'text' || format.type === 'json_object') return { type: format.type };
  if (format.type === 'json_schema') {
    const spec = expectObject(format.json_schema, 'response_format.json_schema');
    const result: ResponseFormat = {
      type: 'json_schema',
      name: requiredString(spec, 'name', 'response_format.json_schema.name'),
      schema: spec.schema === undefined || spec.schema === null ? {} : expectObject(spec.schema, 'response_format.json_schema.schema'),
    };
    const strict = optionalBoolean(spec, 'strict', 'response_format.json_schema.strict');
    if (strict !== undefined) result.strict = strict;
    const description = optionalString(spec, 'description', 'response_format.json_schema.description');
    if (description !== undefined) result.description = description;
    return result;
  }
  throw invalidInput("response_format.type must be 'text', 'json_object' or 'json_schema'.", 'response_format.type');
}
