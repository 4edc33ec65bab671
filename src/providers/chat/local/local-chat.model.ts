/**
 * The deterministic local text model (decision 13): the same request always gives the same answer,
 * so that tests and offline demos can assert on it, and it can drive the agent's tool loop.
 *
 * Rules, in order:
 * 0. The agent's own requests (its title request, its orchestrator turns with the media tools) are
 *    answered by the deterministic planner of local-planner.ts.
 * 1. The conversation ends with tool results → it answers with them:
 *    "Tool results: get_weather returned {"temp":21}."
 * 2. Tools are offered and allowed, and the last user message names one (its name as written, or with
 *    `_`/`-` read as spaces, e.g. "get weather"), or tool_choice requires one → it calls that tool
 *    (the longest name that matches; the first tool when `required` and none is named). The arguments
 *    satisfy the tool's JSON schema (see schema-sample.ts); a JSON object written in the message is
 *    laid over them, so "call get_weather {"city": "Paris"}" gives exactly {"city":"Paris"}.
 * 3. Otherwise it echoes: "You said: <the last user text>" (plus the number of images), or as JSON
 *    when a response format asks for it.
 * Stop sequences and max_tokens cut the text as an upstream would; usage is counted exactly with the
 * local tokenizer.
 */
import { createHash } from 'node:crypto';
import type { ChatRequest, FunctionTool, ToolMessage } from '../../../domain/chat/chat-request.types.ts';
import { textOf } from '../../../domain/chat/chat-request.types.ts';
import type { ChatUsage, ResponseBlock, StopReason } from '../../../domain/chat/chat-response.types.ts';
import { isObject } from '../../../domain/chat/json-input.ts';
import { planLocally } from './local-planner.ts';
import { countLocalInputTokens, countLocalTokens, truncateToTokens } from '../../../domain/chat/local-tokens.ts';
import { sampleFromSchema } from './schema-sample.ts';

export interface LocalAnswer {
  content: ResponseBlock[];
  stopReason: StopReason;
  stopSequence?: string;
  usage: ChatUsage;
}

export function answerLocally(request: ChatRequest): LocalAnswer {
  const inputTokens = countLocalInputTokens(request);
  const usage = (outputTokens: number): ChatUsage => ({ inputTokens, outputTokens, cachedInputTokens: 0, cacheCreationTokens: 0 });
  const conversation = request.messages.filter((m) => m.role !== 'system');
  const last = conversation.at(-1);
  const lastUser = [...conversation].reverse().find((m) => m.role === 'user');
  const userText = lastUser ? textOf(lastUser.content, ' ').trim() : '';

  const planned = planLocally(request);
  if (planned?.kind === 'tool') {
    const args = JSON.stringify(planned.arguments);
    const id = `call_local_${createHash('sha256').update(JSON.stringify(request.messages)).update(planned.name).digest('hex').slice(0, 20)}`;
    return {
      content: [
        { type: 'text', text: planned.text },
        { type: 'tool_call', id, name: planned.name, arguments: args },
      ],
      stopReason: 'tool_use',
      usage: usage(countLocalTokens(planned.text) + countLocalTokens(planned.name) + countLocalTokens(args)),
    };
  }

  if (!planned && last?.role !== 'tool') {
    const tool = chooseTool(request, userText);
    if (tool) {
      const args = JSON.stringify(toolArguments(tool, userText));
      const id = `call_local_${createHash('sha256').update(JSON.stringify(request.messages)).update(tool.name).digest('hex').slice(0, 20)}`;
      return {
        content: [{ type: 'tool_call', id, name: tool.name, arguments: args }],
        stopReason: 'tool_use',
        usage: usage(countLocalTokens(tool.name) + countLocalTokens(args)),
      };
    }
  }

  let text: string;
  if (planned) text = planned.text;
  else if (last?.role === 'tool') text = answerFromToolResults(request);
  else {
    const images = lastUser ? lastUser.content.filter((p) => p.type === 'image').length : 0;
    text = userText === '' && images === 0 ? 'You sent an empty message.' : `You said: ${userText}`;
    if (images > 0) text += ` (with ${images} image${images === 1 ? '' : 's'})`;
  }
  const format = request.responseFormat;
  if (format?.type === 'json_object') text = JSON.stringify({ answer: text });
  else if (format?.type === 'json_schema') text = JSON.stringify(sampleFromSchema(format.schema, text));

  let stopReason: StopReason = 'end_turn';
  let stopSequence: string | undefined;
  const stop = firstStop(text, request.stop);
  if (stop) {
    text = text.slice(0, stop.at);
    stopReason = 'stop_sequence';
    stopSequence = stop.sequence;
  }
  if (request.maxOutputTokens !== undefined) {
    const cut = truncateToTokens(text, request.maxOutputTokens);
    if (cut.truncated) {
      text = cut.text;
      stopReason = 'max_tokens';
      stopSequence = undefined;
    }
  }
  const answer: LocalAnswer = { content: [{ type: 'text', text }], stopReason, usage: usage(countLocalTokens(text)) };
  if (stopSequence !== undefined) answer.stopSequence = stopSequence;
  return answer;
}

function chooseTool(request: ChatRequest, userText: string): FunctionTool | undefined {
  const tools = request.tools.filter((t): t is FunctionTool => t.type === 'function');
  const choice = request.toolChoice ?? { type: 'auto' };
  if (tools.length === 0 || choice.type === 'none') return undefined;
  if (choice.type === 'tool') return tools.find((t) => t.name === choice.name);
  const lower = userText.toLowerCase();
  const named = tools
    .filter((t) => {
      const name = t.name.toLowerCase();
      return lower.includes(name) || lower.includes(name.replace(/[_-]+/g, ' '));
    })
    .sort((a, b) => b.name.length - a.name.length)[0];
  return named ?? (choice.type === 'required' ? tools[0] : undefined);
}

function toolArguments(tool: FunctionTool, userText: string): Record<string, unknown> {
  const sampled = sampleFromSchema(tool.parameters, userText);
  const args = isObject(sampled) ? sampled : {};
  const open = userText.indexOf('{');
  const close = userText.lastIndexOf('}');
  if (open !== -1 && close > open) {
    try {
      const given: unknown = JSON.parse(userText.slice(open, close + 1));
      if (isObject(given)) Object.assign(args, given);
    } catch {
      // Not JSON after all: the sampled arguments stand.
    }
  }
  return args;
}

function answerFromToolResults(request: ChatRequest): string {
  const results: ToolMessage[] = [];
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i];
    if (message?.role !== 'tool') break;
    results.unshift(message);
  }
  const names = new Map<string, string>();
  for (const message of request.messages) {
    if (message.role === 'assistant') for (const call of message.toolCalls) names.set(call.id, call.name);
  }
  const parts = results.map((r) => {
    const name = names.get(r.toolCallId) ?? r.toolCallId;
    return `${name} ${r.isError ? 'failed with' : 'returned'} ${textOf(r.content, ' ').trim()}`;
  });
  return `Tool results: ${parts.join('; ')}.`;
}

function firstStop(text: string, stops: string[]): { at: number; sequence: string } | undefined {
  let best: { at: number; sequence: string } | undefined;
  for (const sequence of stops) {
    if (sequence === '') continue;
    const at = text.indexOf(sequence);
    if (at !== -1 && (best === undefined || at < best.at)) best = { at, sequence };
  }
  return best;
}
