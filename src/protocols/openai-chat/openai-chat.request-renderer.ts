/**
 * Renders a canonical request as an OpenAI-style `/chat/completions` body for an upstream. What an
 * OpenAI-style upstream cannot take is handled here: reasoning of earlier turns is dropped (DeepSeek
 * refuses it back), tool-result images move to a user message after the tool messages (tool messages
 * carry text only), and blocks of the other protocol are refused.
 */
import { invalidInput } from '../../domain/errors.ts';
import type {
  ChatMessage,
  ChatRequest,
  ImagePart,
  NativePart,
  TextPart,
  ToolChoice,
  UserPart,
} from '../../domain/chat/chat-request.types.ts';
import { textOf } from '../../domain/chat/chat-request.types.ts';
import type { JsonObject } from '../../domain/chat/json-input.ts';
import { mergePassthrough } from '../../domain/chat/chat-wire.helpers.ts';

export interface OpenAiRenderOptions {
  /** The upstream's model name. */
  model: string;
  /**
   * Which name the upstream takes for the output limit: OpenAI's reasoning models refuse the older
   * `max_tokens`, while some compatible servers know only that one.
   */
  maxTokensField: 'max_tokens' | 'max_completion_tokens';
}

export function renderOpenAiChatRequest(request: ChatRequest, options: OpenAiRenderOptions): JsonObject {
  const messages: JsonObject[] = request.system.map((part) => ({ role: 'system', content: part.text }));
  let pendingImages: JsonObject[] = [];
  const flushImages = (): void => {
    if (pendingImages.length > 0) messages.push({ role: 'user', content: pendingImages });
    pendingImages = [];
  };
  for (const message of request.messages) {
    if (message.role !== 'tool') flushImages();
    renderMessage(message, messages, (part, callId) => {
      if (pendingImages.length === 0) pendingImages.push({ type: 'text', text: 'Images returned by the tool calls above:' });
      pendingImages.push({ type: 'text', text: `(${callId})` }, renderImage(part));
    });
  }
  flushImages();

  const body: JsonObject = { model: options.model, messages };
  if (request.stream) {
    body.stream = true;
    // Always asked: billing needs the usage, whatever the client asked for.
    body.stream_options = { include_usage: true };
  }
  if (request.maxOutputTokens !== undefined) body[options.maxTokensField] = request.maxOutputTokens;
  if (request.temperature !== undefined) body.temperature = request.temperature;
  if (request.topP !== undefined) body.top_p = request.topP;
  if (request.stop.length > 0) body.stop = request.stop;
  if (request.tools.length > 0) {
    body.tools = request.tools.map((tool) => {
      if (tool.type === 'native') return nativeValue(tool, 'tools');
      const fn: JsonObject = { name: tool.name, parameters: tool.parameters };
      if (tool.description !== undefined) fn.description = tool.description;
      if (tool.strict !== undefined) fn.strict = tool.strict;
      return { type: 'function', function: fn };
    });
    if (request.parallelToolCalls !== undefined) body.parallel_tool_calls = request.parallelToolCalls;
  }
  if (request.toolChoice !== undefined && request.tools.length > 0) body.tool_choice = renderToolChoice(request.toolChoice);
  const format = request.responseFormat;
  if (format?.type === 'json_schema') {
    const spec: JsonObject = { name: format.name, schema: format.schema };
    if (format.strict !== undefined) spec.strict = format.strict;
    if (format.description !== undefined) spec.description = format.description;
    body.response_format = { type: 'json_schema', json_schema: spec };
  } else if (format) body.response_format = { type: format.type };
  if (request.userId !== undefined) body.user = request.userId;
  return mergePassthrough(body, request, 'openai');
}

function renderMessage(message: ChatMessage, out: JsonObject[], toolImage: (part: ImagePart, callId: string) => void): void {
  switch (message.role) {
    case 'system':
      out.push({ role: 'system', content: textOf(message.content, '\n\n') });
      return;
    case 'user': {
      const rendered: JsonObject = { role: 'user', content: renderUserContent(message.content) };
      if (message.name !== undefined) rendered.name = message.name;
      out.push(rendered);
      return;
    }
    case 'assistant': {
      // Reasoning and the other protocol's blocks (server tool traces) are the model's own history:
      // an OpenAI-style upstream cannot use them, so they are left out rather than refused.
      const text = message.content.filter((p): p is TextPart => p.type === 'text').map((p) => p.text).join('');
      const rendered: JsonObject = { role: 'assistant', content: text === '' && message.toolCalls.length > 0 ? null : text };
      if (message.toolCalls.length > 0) {
        rendered.tool_calls = message.toolCalls.map((call) => ({
          id: call.id,
          type: 'function',
          function: { name: call.name, arguments: call.arguments },
        }));
      }
      if (message.name !== undefined) rendered.name = message.name;
      out.push(rendered);
      return;
    }
    case 'tool': {
      const texts: string[] = [];
      for (const part of message.content) {
        if (part.type === 'text') texts.push(part.text);
        else if (part.type === 'image') toolImage(part, message.toolCallId);
        else nativeValue(part, 'tool result');
      }
      const text = texts.join('\n');
      // OpenAI has no error flag on tool results; the model still has to know the call failed.
      out.push({ role: 'tool', tool_call_id: message.toolCallId, content: message.isError ? `Error: ${text}` : text });
      return;
    }
  }
}

function renderUserContent(parts: UserPart[]): string | JsonObject[] {
  const only = parts[0];
  if (parts.length === 1 && only?.type === 'text') return only.text;
  return parts.map((part) => {
    if (part.type === 'text') return { type: 'text', text: part.text };
    if (part.type === 'image') return renderImage(part);
    return nativeValue(part, 'content');
  });
}

function renderImage(part: ImagePart): JsonObject {
  const url = part.source.kind === 'url' ? part.source.url : `data:${part.source.mediaType};base64,${part.source.data}`;
  const image: JsonObject = { url };
  if (part.detail !== undefined) image.detail = part.detail;
  return { type: 'image_url', image_url: image };
}

function nativeValue(part: NativePart | { type: 'native'; protocol: string; value: JsonObject }, where: string): JsonObject {
  if (part.protocol === 'openai') return part.value;
  const kind = typeof part.value.type === 'string' ? part.value.type : 'unknown';
  throw invalidInput(`The ${where} item of type '${kind}' cannot be sent to an OpenAI-compatible upstream.`, where);
}

function renderToolChoice(choice: ToolChoice): unknown {
  if (choice.type === 'tool') return { type: 'function', function: { name: choice.name } };
  return choice.type;
}
