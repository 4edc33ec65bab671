import type { ChaosFleet } from './fleet.ts';
import { CHAT_MODEL, CREATE_KINDS, type CreateKind, MEDIA_MODEL } from './upstreams.ts';

/**
 * A request's outcome: an HTTP status, or no answer: `refused` (nothing listened: the request never
 * reached a process), `network` (the connection broke: the process died under it), `timeout` (the
 * client gave up).
 */
export type Outcome = number | 'refused' | 'network' | 'timeout';

interface Sent {
  /** The API process it went to (slot name and pid). */
  api: string;
  pid: number;
  phase: string;
  startedAt: number;
  endedAt: number;
  outcome: Outcome;
  /** error.code of an error body, or the network error's message. */
  detail?: string;
}

export interface CreateRecord extends Sent {
  /** Unique per create (an Idempotency-Key's duplicate posts share it): in the prompt, so the store can be searched for it. */
  marker: string;
  kind: CreateKind;
  idempotencyKey: string | undefined;
  webhook: boolean;
  taskId: string | undefined;
}

export type ChatEnd = 'done' | 'error_event' | 'ended_without_done';

export interface ChatRecord extends Sent {
  id: string;
  /** How a 200 stream ended; undefined when there was no 200. */
  end: ChatEnd | undefined;
}

export interface AgentRecord extends Sent {
  clientMessageId: string;
  conversationId: string | undefined;
  runId: string | undefined;
}

export interface LoadOptions {
  /** The API processes taken in turn; not needed when every request goes `via` one address. */
  fleet?: ChaosFleet;
  key: string;
  webhookUrl: string;
  phase: () => string;
  /** Concurrent create loops, and the pause of each between creates. */
  createLoops: number;
  createPauseMs: number;
  chatLoops: number;
  chatPauseMs: number;
  /** A new agent run this often (0: none). */
  agentEveryMs: number;
  /** Client-side time limit of one request. */
  requestTimeoutMs?: number;
  /** Send every request here (a front proxy) instead of to the API processes in turn. */
  via?: string;
}

/**
 * The traffic of a chaos run, recorded request by request: media creates (a quarter of them as an
 * Idempotency-Key posted to both API processes at once, a third with a webhook, each with a unique
 * marker and an upstream behaviour in its prompt), streamed chat completions, and agent runs. The
 * API processes are taken in turn, whatever incarnation serves the slot at that moment.
 */
export class ChaosLoad {
  readonly creates: CreateRecord[] = [];
  readonly chats: ChatRecord[] = [];
  readonly agents: AgentRecord[] = [];
  readonly #o: LoadOptions;
  #running = false;
  #loops: Array<Promise<void>> = [];
  /** Separate counters, so that a create's kind follows from its number alone. */
  #creates = 0;
  #chatsSent = 0;
  #agentsSent = 0;
  #turn = 0;
  #refused = 0;

  constructor(options: LoadOptions) {
    this.#o = options;
  }

  start(): void {
    this.#running = true;
    for (let i = 0; i < this.#o.createLoops; i++) this.#loops.push(this.#loop(() => this.#create(), this.#o.createPauseMs));
    for (let i = 0; i < this.#o.chatLoops; i++) this.#loops.push(this.#loop(() => this.#chat(), this.#o.chatPauseMs));
    if (this.#o.agentEveryMs > 0) this.#loops.push(this.#loop(() => this.#agent(), this.#o.agentEveryMs));
  }

  /** Stops sending and waits for the requests in flight. */
  async stop(): Promise<void> {
    this.#running = false;
    await Promise.all(this.#loops);
  }

  async #loop(step: () => Promise<void>, pauseMs: number): Promise<void> {
    while (this.#running) {
      const refusedBefore = this.#refused;
      await step();
      // A refused connection returns at once: back off as a client would, rather than spin.
      const wait = this.#refused > refusedBefore ? Math.max(pauseMs, 100) : pauseMs;
      if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    }
  }

  #nextApi(): number {
    const apis = this.#o.fleet?.members().filter((m) => m.role === 'api').length ?? 1;
    this.#turn += 1;
    return this.#turn % apis;
  }

  async #send(slot: number, method: string, path: string, body: unknown, headers: Record<string, string> = {}): Promise<Sent & { json: Record<string, unknown> | undefined; text: string }> {
    const target = this.#o.via || !this.#o.fleet ? { name: 'front', pid: 0, url: this.#o.via ?? '' } : this.#o.fleet.current('api', slot);
    const startedAt = Date.now();
    const phase = this.#o.phase();
    const base = { api: target.name, pid: target.pid, phase, startedAt };
    try {
      const res = await fetch(target.url + path, {
        method,
        headers: { authorization: `Bearer ${this.#o.key}`, 'content-type': 'application/json', ...headers },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.#o.requestTimeoutMs ?? 20_000),
      });
      const text = await res.text();
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {}
      const error = json?.error as { code?: string; message?: string } | undefined;
      return { ...base, endedAt: Date.now(), outcome: res.status, json, text, ...(error ? { detail: `${error.code ?? ''} ${error.message ?? ''}`.trim() } : {}) };
    } catch (error) {
      const e = error as Error;
      const cause = e.cause as (Error & { code?: string }) | undefined;
      const outcome: Outcome = e.name === 'TimeoutError' ? 'timeout' : cause?.code === 'ECONNREFUSED' ? 'refused' : 'network';
      if (outcome === 'refused') this.#refused += 1;
      return { ...base, endedAt: Date.now(), outcome, json: undefined, text: '', detail: String(cause?.message ?? e.message) };
    }
  }

  async #create(): Promise<void> {
    const n = this.#creates++;
    const marker = `c${String(n).padStart(5, '0')}`;
    const kind = CREATE_KINDS[n % CREATE_KINDS.length] ?? 'ok';
    const webhook = n % 3 === 0;
    const keyed = n % 4 === 1;
    const body = { model: MEDIA_MODEL, input: { prompt: `chaos ${marker} [${kind}]` }, ...(webhook ? { webhook: this.#o.webhookUrl } : {}) };
    const idempotencyKey = keyed ? `idem-${marker}` : undefined;
    const post = async (slot: number) => {
      const sent = await this.#send(slot, 'POST', '/api/v1/generation/create', body, idempotencyKey ? { 'idempotency-key': idempotencyKey } : {});
      const data = sent.json?.data as { taskId?: string } | undefined;
      const { json: _json, text: _text, ...record } = sent;
      this.creates.push({ ...record, marker, kind, idempotencyKey, webhook, taskId: data?.taskId });
    };
    // The same key on both API processes at once: the race that must never make two tasks.
    if (keyed) await Promise.all([post(0), post(1)]);
    else await post(this.#nextApi());
  }

  async #chat(): Promise<void> {
    const n = this.#chatsSent++;
    const id = `chat${String(n).padStart(5, '0')}`;
    const tag = n % 4 === 0 ? ' [p500]' : '';
    const sent = await this.#send(this.#nextApi(), 'POST', '/api/v1/chat/completions', {
      model: CHAT_MODEL,
      stream: true,
      max_tokens: 64,
      messages: [{ role: 'user', content: `say something about ${id}${tag}` }],
    });
    let end: ChatEnd | undefined;
    if (sent.outcome === 200) {
      const frames = sent.text
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .map((l) => l.slice(6).trim());
      if (frames.some((f) => f.includes('"error"'))) end = 'error_event';
      else if (frames.at(-1) === '[DONE]') end = 'done';
      else end = 'ended_without_done';
    }
    const { json: _json, text: _text, ...record } = sent;
    this.chats.push({ ...record, id, end });
  }

  async #agent(): Promise<void> {
    const n = this.#agentsSent++;
    const slot = this.#nextApi();
    const clientMessageId = `agent-msg-${n}`;
    const conversation = await this.#send(slot, 'POST', '/api/v1/agent/conversations', { title: `chaos ${n}` });
    const conversationId = (conversation.json?.data as { conversationId?: string } | undefined)?.conversationId;
    if (!conversationId) {
      const { json: _json, text: _text, ...record } = conversation;
      this.agents.push({ ...record, detail: `conversation not created: ${record.detail ?? record.outcome}`, clientMessageId, conversationId: undefined, runId: undefined });
      return;
    }
    const sent = await this.#send(slot, 'POST', `/api/v1/agent/conversations/${conversationId}/messages`, {
      content: [{ type: 'text', text: `make an image of a chaos fox number ${n}` }],
      clientMessageId,
    });
    const { json, text: _text, ...record } = sent;
    this.agents.push({ ...record, clientMessageId, conversationId, runId: (json?.data as { runId?: string } | undefined)?.runId });
  }
}
