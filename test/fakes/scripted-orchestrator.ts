/**
 * A scripted orchestrator upstream for agent tests: a real fake vendor server (OpenAI chat
 * completions or Anthropic messages) whose answers follow a script per conversation, so a test says
 * "this run's model first calls generate_image, then answers in text" and the gateway's engine is
 * driven through its real text layer (holds, charges, protocol translation).
 *
 * - Orchestrator requests carry "Conversation conv_…, run run_…" in their system prompt; each pops
 *   the next turn of that conversation's script (default when none is left: the text "Done.").
 * - Title requests get a fixed title; capability probes get correct answers, except the
 *   capabilities a test marks as failing for an upstream model (then a 400, as a vendor refuses).
 */
import { PROBE_TOOL } from '../../src/services/agent/settings/route-capabilities.service.ts';
import { TITLE_INSTRUCTION } from '../../src/domain/agent/agent-tools.ts';
import { AnthropicMessagesFake } from './anthropic-messages.fake.ts';
import type { FakeChatScript, RecordedRequest } from './fake-upstream.ts';
import { OpenAiChatFake } from './openai-chat.fake.ts';

export type Turn = FakeChatScript | ((body: Record<string, unknown>) => FakeChatScript);
export type FakeProtocol = 'openai' | 'anthropic';

const CONVERSATION = /Conversation (conv_[0-9a-z]+), run (run_[0-9a-z]+)/;

export class ScriptedOrchestrator {
  readonly protocol: FakeProtocol;
  readonly server: OpenAiChatFake | AnthropicMessagesFake;
  readonly #scripts = new Map<string, Turn[]>();
  readonly #failing = new Map<string, Set<string>>();
  readonly #special: Array<{ fragment: string; script: FakeChatScript }> = [];
  /** Orchestrator requests (not titles, not probes), in arrival order, with their conversation. */
  readonly calls: Array<{ conversationId: string; runId: string; body: Record<string, unknown> }> = [];
  titleRequests = 0;
  probeRequests = 0;

  private constructor(protocol: FakeProtocol, server: OpenAiChatFake | AnthropicMessagesFake) {
    this.protocol = protocol;
    this.server = server;
    server.respondWith((body) => this.#respond(body));
  }

  static async start(protocol: FakeProtocol): Promise<ScriptedOrchestrator> {
    const server = protocol === 'openai' ? await OpenAiChatFake.start() : await AnthropicMessagesFake.start();
    return new ScriptedOrchestrator(protocol, server);
  }

  /** The provider entry for SWITCHBOARD_CONFIG. */
  provider(options: Record<string, unknown> = {}): Record<string, unknown> {
    return { type: this.protocol, baseUrl: this.server.baseUrl, apiKey: this.server.apiKey, ...(Object.keys(options).length ? { options } : {}) };
  }

  /** Appends turns to a conversation's script. */
  plan(conversationId: string, ...turns: Turn[]): void {
    const list = this.#scripts.get(conversationId) ?? [];
    list.push(...turns);
    this.#scripts.set(conversationId, list);
  }

  /** Answers any request whose body contains `fragment` with `script` (before every other rule). */
  answerWhen(fragment: string, script: FakeChatScript): void {
    this.#special.push({ fragment, script });
  }

  /** Makes the probes of `capability` (tools, image_input, structured_output) fail for an upstream model. */
  failCapability(upstreamModel: string, capability: string): void {
    const set = this.#failing.get(upstreamModel) ?? new Set<string>();
    set.add(capability);
    this.#failing.set(upstreamModel, set);
  }

  callsFor(conversationId: string): Array<Record<string, unknown>> {
    return this.calls.filter((c) => c.conversationId === conversationId).map((c) => c.body);
  }

  get requests(): RecordedRequest[] {
    return this.server.requests;
  }

  async close(): Promise<void> {
    await this.server.close();
  }

  #respond(raw: unknown): FakeChatScript | undefined {
    if (raw === null || typeof raw !== 'object') return undefined;
    const body = raw as Record<string, unknown>;
    const text = JSON.stringify(body);
    const model = typeof body.model === 'string' ? body.model : '';
    const special = this.#special.find((s) => text.includes(s.fragment));
    if (special) return special.script;
    const failing = this.#failing.get(model) ?? new Set<string>();
    if (text.includes(PROBE_TOOL)) {
      this.probeRequests++;
      if (failing.has('tools')) return { error: { status: 400, message: 'tools are not supported by this model' } };
      return { toolCalls: [{ name: PROBE_TOOL, arguments: { color: 'blue' } }] };
    }
    if (text.includes('What is the main color of this image?')) {
      this.probeRequests++;
      if (failing.has('image_input')) return { error: { status: 400, message: 'image input is not supported by this model' } };
      return { text: 'Red.' };
    }
    if (text.includes('Name a color.')) {
      this.probeRequests++;
      if (failing.has('structured_output')) return { error: { status: 400, message: 'response_format is not supported by this model' } };
      return { text: '{"color":"red"}' };
    }
    if (text.includes(TITLE_INSTRUCTION.slice(0, 40))) {
      this.titleRequests++;
      return { text: 'Scripted title' };
    }
    const match = CONVERSATION.exec(text);
    if (!match) return undefined;
    const [, conversationId = '', runId = ''] = match;
    this.calls.push({ conversationId, runId, body });
    const turn = this.#scripts.get(conversationId)?.shift();
    if (turn === undefined) return { text: 'Done.' };
    return typeof turn === 'function' ? turn(body) : turn;
  }
}
