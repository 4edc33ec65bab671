/**
 * One streamed call of the orchestrator model through the text layer (decision 11: the same holds,
 * charges, routes and failover as the API's chat requests; OpenAI-style tool calls are translated
 * for Anthropic routes there). Its text streams to the conversation as `message.delta` events,
 * gathered over short intervals so that a fast model costs a few writes, not one per token.
 */
import { AppError, isAppError } from '../../../domain/errors.ts';
import type { ChatModelDefinition } from '../../../domain/catalog/catalog.types.ts';
import type { ChatRequest } from '../../../domain/chat/chat-request.types.ts';
import type { StopReason } from '../../../domain/chat/chat-response.types.ts';
import type { RunRow } from '../../../ports/agent-store.port.ts';
import type { EngineDeps } from './engine-deps.ts';
import { messageDelta } from '../../../domain/agent/agent-events.ts';
import { runScope } from '../events/event-log.ts';

export type CallOutcome =
  | { ok: true; text: string; toolCalls: Array<{ id: string; name: string; arguments: string }>; stopReason: StopReason }
  | { ok: false; code: string; message: string; insufficientBalance: boolean; aborted: boolean };

const DELTA_INTERVAL_MS = 100;
const DELTA_MAX_CHARS = 2_000;

export interface OrchestratorCall {
  run: RunRow;
  stepId: string;
  chatRequestId: string;
  request: ChatRequest;
  maxChargeMicro: number;
  /** The definition `maxChargeMicro` was quoted with: the call is held and charged at its prices. */
  model?: ChatModelDefinition;
  /** The group multiplier `maxChargeMicro` was quoted with (ChatQuote.priceMultiplierPpm). */
  priceMultiplierPpm?: number;
  /** Stream the text as message.delta events (not for a title). */
  streamText: boolean;
  signal: AbortSignal;
}

export async function callOrchestrator(deps: EngineDeps, call: OrchestratorCall): Promise<CallOutcome> {
  const { run } = call;
  const registration = deps.aborts.register(run.id, call.signal);
  const deltas = new DeltaStream(deps, run, call.stepId, call.streamText);
  let release = (): void => {};
  try {
    // The key that started the run, at this call (it may have been narrowed or revoked since): a
    // refusal is this call's failure, before any hold, so nothing is charged for it.
    release = await deps.door.admitRunOperation(run.api_key_id, call.request.model, 'chat');
    const answer = await deps.chat.complete({
      userId: run.user_id,
      apiKeyId: run.api_key_id ?? undefined,
      protocol: 'openai',
      request: call.request,
      abort: registration.controller,
      // A stop cancels the text request at once (rule 7); what it used is charged.
      onAbort: 'cancel',
      id: call.chatRequestId,
      maxChargeMicro: call.maxChargeMicro,
      ...(call.model ? { model: call.model } : {}),
      ...(call.priceMultiplierPpm === undefined ? {} : { priceMultiplierPpm: call.priceMultiplierPpm }),
    });
    if (answer.kind === 'response') {
      const text = answer.response.content.map((b) => (b.type === 'text' ? b.text : '')).join('');
      const toolCalls = answer.response.content.flatMap((b) => (b.type === 'tool_call' ? [{ id: b.id, name: b.name, arguments: b.arguments }] : []));
      deltas.push(text);
      await deltas.close();
      return { ok: true, text, toolCalls, stopReason: answer.response.stopReason };
    }
    let text = '';
    const calls: Array<{ id: string; name: string; arguments: string }> = [];
    for await (const event of answer.events) {
      switch (event.type) {
        case 'text_delta':
          text += event.text;
          deltas.push(event.text);
          break;
        case 'tool_call_start':
          calls[event.index] = { id: event.id, name: event.name, arguments: '' };
          break;
        case 'tool_call_delta': {
          const open = calls[event.index];
          if (open) open.arguments += event.arguments;
          break;
        }
        case 'message_end':
          await deltas.close();
          return { ok: true, text, toolCalls: calls.filter((c) => c !== undefined), stopReason: event.stopReason };
        case 'error':
          await deltas.close();
          return { ok: false, code: 'upstream_error', message: event.error.message, insufficientBalance: false, aborted: registration.controller.signal.aborted };
        default:
          break;
      }
    }
    await deltas.close();
    return { ok: false, code: 'upstream_error', message: 'the answer ended without its final event', insufficientBalance: false, aborted: registration.controller.signal.aborted };
  } catch (error) {
    await deltas.close();
    const appError = isAppError(error) ? error : new AppError('internal_error', error instanceof Error ? error.message : String(error));
    return {
      ok: false,
      code: appError.code,
      message: appError.message,
      insufficientBalance: appError.code === 'insufficient_balance',
      aborted: registration.controller.signal.aborted,
    };
  } finally {
    release();
    registration.release();
  }
}

/** Gathers text for DELTA_INTERVAL_MS (or DELTA_MAX_CHARS) and writes it as one message.delta event. */
class DeltaStream {
  readonly #deps: EngineDeps;
  readonly #run: RunRow;
  readonly #stepId: string;
  readonly #enabled: boolean;
  #pending = '';
  #timer: NodeJS.Timeout | undefined;
  #writing: Promise<void> = Promise.resolve();

  constructor(deps: EngineDeps, run: RunRow, stepId: string, enabled: boolean) {
    this.#deps = deps;
    this.#run = run;
    this.#stepId = stepId;
    this.#enabled = enabled;
  }

  push(text: string): void {
    if (!this.#enabled || text === '') return;
    this.#pending += text;
    if (this.#pending.length >= DELTA_MAX_CHARS) this.#flush();
    else this.#timer ??= setTimeout(() => this.#flush(), DELTA_INTERVAL_MS);
  }

  async close(): Promise<void> {
    this.#flush();
    await this.#writing;
  }

  #flush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    if (this.#pending === '') return;
    const text = this.#pending;
    this.#pending = '';
    const run = this.#run;
    this.#writing = this.#writing
      .then(() =>
        this.#deps.writer.run(async (_tx, fx) => {
          await fx.emit(messageDelta(runScope(run), { stepId: this.#stepId, text }));
        }),
      )
      .catch((error: unknown) => this.#deps.logger.warn({ err: error, runId: run.id }, 'writing a message delta failed'));
  }
}
