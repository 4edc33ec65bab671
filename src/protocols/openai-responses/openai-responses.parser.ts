/**
 * Parses and validates a Responses request body (POST /api/v1/responses) into the canonical request
 * the chat path already serves. `input` items become messages: `message` items by role,
 * `function_call` items tool calls of an assistant turn, `function_call_output` items tool results,
 * `reasoning` items the assistant's reasoning. Refusals are `invalid_input` errors naming the field,
 * in the OpenAI error format; fields beyond the modelled ones are checked in openai-responses.fields.ts.
 */
import { invalidInput } from '../../domain/errors.ts';
import type {
  AssistantMessage,
  ChatRequest,
  ChatTool,
  ImagePart,
  ResponseFormat,
  TextPart,
  ToolChoice,
  ToolResultPart,
  UserPart,
} from '../../domain/chat/chat-request.types.ts';
import {
  expectArray,
  expectObject,
  isObject,
  type JsonObject,
  optionalBoolean,
  optionalNumber,
  optionalPositiveInteger,
  optionalString,
  requiredString,
} from '../../domain/chat/json-input.ts';
import { parseDataUri } from '../../domain/chat/chat-wire.helpers.ts';
import { readResponsesExtras } from './openai-responses.fields.ts';

/** The request's settings, echoed in the response object as OpenAI echoes them. */
/**
 * The prefix of our reasoning items' ids (OpenAI's): the renderer gives it to the reasoning items it
 * writes, and the parser recognises a reference to one by it.
 */
export const REASONING_ITEM_PREFIX = 'rs_';

export interface ResponsesEcho {
  instructions: string | null;
  metadata: Record<string, string> | null;
  maxOutputTokens: number | null;
  parallelToolCalls: boolean;
  temperature: number | null;
  topP: number | null;
  toolChoice: unknown;
  tools: unknown[];
  textFormat: unknown;
  reasoning: unknown;
  user: string | undefined;
}

export interface ParsedResponsesRequest {
  request: ChatRequest;
  echo: ResponsesEcho;
}

/** Function names as OpenAI accepts them (the chat parser's rule). */
const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** Built-in tools run by OpenAI's servers: no route here has them (its upstream is spoken to over chat completions). */
const HOSTED_TOOL_REFUSAL = 'is a hosted tool, which this route does not offer: its upstream is called over chat completions or messages, where OpenAI\'s built-in tools do not exist. Use function tools.';

export function parseResponsesRequest(body: unknown): ParsedResponsesRequest {
  const b = expectObject(body, 'body');
  const model = requiredString(b, 'model', 'model');
  if (model === '') throw invalidInput('model must not be empty.', 'model');
  const extras = readResponsesExtras(b);
  const request: ChatRequest = {
    model,
    system: [],
    messages: [],
    tools: [],
    stop: [],
    stream: optionalBoolean(b, 'stream', 'stream') ?? false,
    passthrough: { protocol: 'openai', fields: extras.fields, keepAcross: extras.keepAcross },
  };
  if (extras.priceOptions) request.priceOptions = extras.priceOptions;
  const instructions = optionalString(b, 'instructions', 'instructions');
  if (instructions !== undefined && instructions !== '') request.system.push({ type: 'text', text: instructions });
  parseInput(b.input, request);

  const temperature = optionalNumber(b, 'temperature', 'temperature', { min: 0, max: 2 });
  if (temperature !== undefined) request.temperature = temperature;
  const topP = optionalNumber(b, 'top_p', 'top_p', { min: 0, max: 1 });
  if (topP !== undefined) request.topP = topP;
  const maxTokens = optionalPositiveInteger(b, 'max_output_tokens', 'max_output_tokens');
  if (maxTokens !== undefined) request.maxOutputTokens = maxTokens;
  if (b.tools !== undefined && b.tools !== null) request.tools = parseTools(b.tools);
  if (b.tool_choice !== undefined && b.tool_choice !== null) request.toolChoice = parseToolChoice(b.tool_choice);
  const parallel = optionalBoolean(b, 'parallel_tool_calls', 'parallel_tool_calls');
  if (parallel !== undefined) request.parallelToolCalls = parallel;
  const format = isObject(b.text) ? b.text.format : undefined;
  if (format !== undefined && format !== null) request.responseFormat = parseTextFormat(format);
  const user = optionalString(b, 'user', 'user');
  if (user !== undefined) request.userId = user;

  const echo: ResponsesEcho = {
    instructions: instructions ?? null,
    metadata: isObject(b.metadata) ? (b.metadata as Record<string, string>) : null,
    maxOutputTokens: maxTokens ?? null,
    parallelToolCalls: parallel ?? true,
    temperature: temperature ?? null,
    topP: topP ?? null,
    toolChoice: b.tool_choice ?? 'auto',
    tools: request.tools.map(echoTool),
    textFormat: format ?? { type: 'text' },
    reasoning: isObject(b.reasoning) ? b.reasoning : null,
    user,
  };
  return { request, echo };
}

/**
 * A function tool as the answer lists it, in the published shape (`parameters` and `strict` are
 * required there): what the upstream was given, so `strict` is false unless the client set it.
 */
function echoTool(tool: ChatTool): Record<string, unknown> {
  if (tool.type !== 'function') return tool.value;
  const echoed: Record<string, unknown> = { type: 'function', name: tool.name, parameters: tool.parameters, strict: tool.strict ?? false };
  if (tool.description !== undefined) echoed.description = tool.description;
  return echoed;
}

function parseInput(value: unknown, request: ChatRequest): void {
  if (value === undefined || value === null) throw invalidInput('input is required.', 'input');
  if (typeof value === 'string') {
    request.messages.push({ role: 'user', content: [{ type: 'text', text: value }] });
    return;
  }
  const items = expectArray(value, 'input');
  if (items.length === 0) throw invalidInput('input must contain at least one item.', 'input');
  items.forEach((raw, i) => {
    parseItem(expectObject(raw, `input[${i}]`), `input[${i}]`, request);
  });
  if (request.messages.length === 0) throw invalidInput('input must contain at least one item besides system and developer messages.', 'input');
}

function parseItem(item: JsonObject, field: string, request: ChatRequest): void {
  // A message may leave out its type (EasyInputMessage).
  const type = item.type ?? (item.role !== undefined ? 'message' : undefined);
  switch (type) {
    case 'message':
      parseMessage(item, field, request);
      return;
    case 'function_call': {
      const call = {
        id: requiredString(item, 'call_id', `${field}.call_id`),
        name: requiredString(item, 'name', `${field}.name`),
        arguments: requiredString(item, 'arguments', `${field}.arguments`) || '{}',
      };
      assistantTurn(request).toolCalls.push(call);
      return;
    }
    case 'function_call_output':
      request.messages.push({
        role: 'tool',
        toolCallId: requiredString(item, 'call_id', `${field}.call_id`),
        content: parseToolOutput(item.output, `${field}.output`),
        isError: false,
      });
      return;
    case 'reasoning': {
      const text = reasoningText(item, field);
      const encrypted = optionalString(item, 'encrypted_content', `${field}.encrypted_content`);
      if (text === '' && encrypted === undefined) return;
      const turn = assistantTurn(request);
      // The signature Anthropic needs to accept its thinking back travels as the encrypted content.
      turn.content.push(encrypted === undefined ? { type: 'reasoning', text } : { type: 'reasoning', text, signature: encrypted });
      return;
    }
    case 'item_reference':
      // A reference to reasoning we returned (the Vercel AI SDK sends them unless store is false): the
      // upstreams this route speaks to take no reasoning back, so leaving it out loses nothing.
      if (typeof item.id === 'string' && item.id.startsWith(REASONING_ITEM_PREFIX)) return;
      throw invalidInput(
        `${field}: item references are not supported: responses are not stored (every response is store: false). Send the item itself (with the Vercel AI SDK: providerOptions: { openai: { store: false } }).`,
        `${field}.type`,
      );
    case undefined:
      throw invalidInput(`${field}.type is required.`, `${field}.type`);
    default:
      throw invalidInput(
        `${field}.type ${JSON.stringify(type)} is not supported: input items are messages, function_call, function_call_output and reasoning (hosted tools are not offered).`,
        `${field}.type`,
      );
  }
}

/** The assistant turn that function calls and reasoning join: the last message when it is one, else a new one. */
function assistantTurn(request: ChatRequest): AssistantMessage {
  const last = request.messages.at(-1);
  if (last?.role === 'assistant') return last;
  const turn: AssistantMessage = { role: 'assistant', content: [], toolCalls: [] };
  request.messages.push(turn);
  return turn;
}

function parseMessage(item: JsonObject, field: string, request: ChatRequest): void {
  const role = requiredString(item, 'role', `${field}.role`);
  switch (role) {
    case 'system':
    case 'developer': {
      const content = parseTextContent(item.content, `${field}.content`);
      // Leading system messages join the instructions; later ones keep their place.
      if (request.messages.length === 0) request.system.push(...content);
      else request.messages.push({ role: 'system', content });
      return;
    }
    case 'user':
      request.messages.push({ role: 'user', content: parseUserContent(item.content, `${field}.content`) });
      return;
    case 'assistant': {
      const texts = parseAssistantContent(item.content, `${field}.content`);
      const last = request.messages.at(-1);
      // Text after the turn's reasoning belongs to the same turn; text after tool calls starts another.
      if (last?.role === 'assistant' && last.toolCalls.length === 0) last.content.push(...texts);
      else request.messages.push({ role: 'assistant', content: texts, toolCalls: [] });
      return;
    }
    default:
      throw invalidInput(`${field}.role must be one of user, assistant, system, developer.`, `${field}.role`);
  }
}

function parseTextContent(value: unknown, field: string): TextPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (value === undefined || value === null) throw invalidInput(`${field} is required.`, field);
  return expectArray(value, field).map((raw, j) => {
    const part = expectObject(raw, `${field}[${j}]`);
    if (part.type !== 'input_text') throw invalidInput(`${field}[${j}].type must be 'input_text'.`, `${field}[${j}].type`);
    return { type: 'text', text: requiredString(part, 'text', `${field}[${j}].text`) };
  });
}

function parseAssistantContent(value: unknown, field: string): TextPart[] {
  if (typeof value === 'string') return value === '' ? [] : [{ type: 'text', text: value }];
  if (value === undefined || value === null) throw invalidInput(`${field} is required.`, field);
  return expectArray(value, field).map((raw, j): TextPart => {
    const f = `${field}[${j}]`;
    const part = expectObject(raw, f);
    if (part.type === 'output_text' || part.type === 'input_text') return { type: 'text', text: requiredString(part, 'text', `${f}.text`) };
    if (part.type === 'refusal') return { type: 'text', text: requiredString(part, 'refusal', `${f}.refusal`) };
    throw invalidInput(`${f}.type must be 'output_text' or 'refusal'.`, `${f}.type`);
  });
}

function parseUserContent(value: unknown, field: string): UserPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (value === undefined || value === null) throw invalidInput(`${field} is required.`, field);
  return expectArray(value, field).map((raw, j) => parsePart(expectObject(raw, `${field}[${j}]`), `${field}[${j}]`));
}

function parsePart(part: JsonObject, field: string): UserPart {
  switch (part.type) {
    case 'input_text':
      return { type: 'text', text: requiredString(part, 'text', `${field}.text`) };
    case 'input_image':
      return parseImage(part, field);
    case 'input_file':
      return parseFile(part, field);
    case 'input_audio':
      throw invalidInput('input_audio parts are not offered: audio tokens have prices of their own, which the catalog does not publish.', `${field}.type`);
    default:
      throw invalidInput(`${field}.type must be one of input_text, input_image, input_file.`, `${field}.type`);
  }
}

function parseImage(part: JsonObject, field: string): ImagePart {
  if (part.file_id !== undefined && part.file_id !== null) {
    throw invalidInput(`${field}.file_id is not supported: uploaded OpenAI files are not reachable here; send image_url (an http(s) URL or a data: URI).`, `${field}.file_id`);
  }
  const url = requiredString(part, 'image_url', `${field}.image_url`);
  const detail = optionalString(part, 'detail', `${field}.detail`);
  let result: ImagePart;
  if (url.startsWith('data:')) {
    const data = parseDataUri(url);
    if (!data?.mediaType.startsWith('image/')) throw invalidInput(`${field}.image_url must be an http(s) URL or a data:image/…;base64 URI.`, `${field}.image_url`);
    result = { type: 'image', source: { kind: 'base64', mediaType: data.mediaType, data: data.data } };
  } else if (/^https?:\/\//i.test(url)) {
    result = { type: 'image', source: { kind: 'url', url } };
  } else {
    throw invalidInput(`${field}.image_url must be an http(s) URL or a data:image/…;base64 URI.`, `${field}.image_url`);
  }
  if (detail !== undefined) result.detail = detail;
  return result;
}

/** A file given inline becomes chat completions' `file` part (OpenAI-style upstreams only, as on the chat route). */
function parseFile(part: JsonObject, field: string): UserPart {
  const data = optionalString(part, 'file_data', `${field}.file_data`);
  if (data === undefined) {
    throw invalidInput(`${field}: only inline files (file_data) are supported; file_id and file_url name files this gateway cannot reach.`, `${field}.file_data`);
  }
  const file: JsonObject = { file_data: data };
  const filename = optionalString(part, 'filename', `${field}.filename`);
  if (filename !== undefined) file.filename = filename;
  return { type: 'native', protocol: 'openai', value: { type: 'file', file } };
}

/** A function's output: a string, or text and image parts. */
function parseToolOutput(value: unknown, field: string): ToolResultPart[] {
  if (typeof value === 'string') return [{ type: 'text', text: value }];
  if (value === undefined || value === null) throw invalidInput(`${field} is required.`, field);
  return expectArray(value, field).map((raw, j) => parsePart(expectObject(raw, `${field}[${j}]`), `${field}[${j}]`));
}

function reasoningText(item: JsonObject, field: string): string {
  const texts: string[] = [];
  for (const key of ['content', 'summary'] as const) {
    const list = item[key];
    if (list === undefined || list === null) continue;
    expectArray(list, `${field}.${key}`).forEach((raw, j) => {
      const part = expectObject(raw, `${field}.${key}[${j}]`);
      texts.push(requiredString(part, 'text', `${field}.${key}[${j}].text`));
    });
    // The full reasoning when the item has it; the summary otherwise.
    if (texts.length > 0) break;
  }
  return texts.join('\n');
}

function parseTools(value: unknown): ChatTool[] {
  return expectArray(value, 'tools').map((raw, i): ChatTool => {
    const f = `tools[${i}]`;
    const tool = expectObject(raw, f);
    if (tool.type !== 'function') {
      if (typeof tool.type !== 'string') throw invalidInput(`${f}.type is required.`, `${f}.type`);
      throw invalidInput(`${f}: ${tool.type} ${HOSTED_TOOL_REFUSAL}`, `${f}.type`);
    }
    const name = requiredString(tool, 'name', `${f}.name`);
    if (!TOOL_NAME.test(name)) throw invalidInput(`${f}.name must be 1 to 64 letters, digits, _ or -.`, `${f}.name`);
    const parameters = tool.parameters === undefined || tool.parameters === null ? { type: 'object', properties: {} } : expectObject(tool.parameters, `${f}.parameters`);
    const result: ChatTool = { type: 'function', name, parameters };
    const description = optionalString(tool, 'description', `${f}.description`);
    if (description !== undefined) result.description = description;
    const strict = optionalBoolean(tool, 'strict', `${f}.strict`);
    if (strict !== undefined) result.strict = strict;
    return result;
  });
}

function parseToolChoice(value: unknown): ToolChoice {
  if (value === 'auto' || value === 'none' || value === 'required') return { type: value };
  if (isObject(value) && value.type === 'function') return { type: 'tool', name: requiredString(value, 'name', 'tool_choice.name') };
  if (isObject(value) && typeof value.type === 'string' && value.type !== 'allowed_tools') {
    throw invalidInput(`tool_choice: ${value.type} ${HOSTED_TOOL_REFUSAL}`, 'tool_choice.type');
  }
  throw invalidInput("tool_choice must be 'auto', 'none', 'required' or {type: 'function', name}.", 'tool_choice');
}

function parseTextFormat(value: unknown): ResponseFormat {
  const format = expectObject(value, 'text.format');
  if (format.type === 'text' || format.type === 'json_object') return { type: format.type };
  if (format.type === 'json_schema') {
    const result: ResponseFormat = {
      type: 'json_schema',
      name: requiredString(format, 'name', 'text.format.name'),
      schema: expectObject(format.schema, 'text.format.schema'),
    };
    const strict = optionalBoolean(format, 'strict', 'text.format.strict');
    if (strict !== undefined) result.strict = strict;
    const description = optionalString(format, 'description', 'text.format.description');
    if (description !== undefined) result.description = description;
    return result;
  }
  throw invalidInput("text.format.type must be 'text', 'json_object' or 'json_schema'.", 'text.format.type');
}
