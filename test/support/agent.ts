/**
 * Helpers for agent tests: calls of the agent API as one user, and waiting for a run to reach a
 * status (polling the run view, as a client without SSE would).
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { verifyLedger } from '../../src/adapters/db/ledger/ledger-checks.ts';
import type { TestGateway } from './gateway.ts';

export interface AgentClient {
  key: string;
  userId: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; body: Envelope; headers: Headers }>;
  conversation(body?: Record<string, unknown>): Promise<string>;
  send(conversationId: string, text: string, extra?: Record<string, unknown>): Promise<Accepted>;
  run(runId: string): Promise<RunView>;
  waitFor(runId: string, statuses: string[], timeoutMs?: number): Promise<RunView>;
  result(runId: string): Promise<ResultView>;
  events(conversationId: string, afterSequence?: number): Promise<EventView[]>;
}

export interface Envelope {
  code: number;
  data: Record<string, unknown>;
  error?: { code: string; message: string; param?: string };
}

export interface Accepted {
  conversationId: string;
  messageId: string;
  runId: string;
  status: string;
  queuePosition?: number;
}

export interface RunView {
  runId: string;
  status: string;
  waitReason: string | null;
  canSteer: boolean;
  queuePosition: number | null;
  budget: { limitMicroUsd: string; settledMicroUsd: string; committedMicroUsd: string; remainingMicroUsd: string; neededMicroUsd: string | null; version: number };
  costs: { settledMicroUsd: string; committedMicroUsd: string; operations: Array<{ kind: string; state: string; model: string; estimateMicroUsd: string; costMicroUsd: string; generationId: string | null; chatRequestId: string | null }> };
  steps: Array<{ stepId: string; kind: string; name: string; status: string; input: Record<string, unknown>; output: Record<string, unknown> | null; costMicroUsd: string }>;
  pendingActions: Array<{ pendingActionId: string; kind: string; version: number; proposalHash?: string; questionId?: string; question?: string; proposal?: Record<string, unknown> }>;
  orchestratorModelId: string;
  error: { code: string; message: string } | null;
}

export interface ResultView {
  runId: string;
  status: string;
  mainOutcome: { text: string; artifactIds: string[] } | null;
  revision: number;
  artifacts: Array<{ artifactId: string; generationId: string | null; outputIndex: number | null; type: string; url: string }>;
}

export interface EventView {
  id: string;
  sequence: number;
  type: string;
  runId: string | null;
  data: Record<string, unknown>;
}

export async function agentClient(gw: TestGateway, balanceCents = 1000): Promise<AgentClient> {
  const user = await gw.createUser(balanceCents);
  return clientFor(gw, user.key, user.userId);
}

export function clientFor(gw: TestGateway, key: string, userId: string): AgentClient {
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(gw.url + path, {
      method,
      headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : {}) as Envelope, headers: response.headers };
  };
  const client: AgentClient = {
    key,
    userId,
    call,
    async conversation(body = {}) {
      const res = await call('POST', '/api/v1/agent/conversations', body);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data.conversationId as string;
    },
    async send(conversationId, text, extra = {}) {
      const res = await call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, { content: [{ type: 'text', text }], ...extra });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data as unknown as Accepted;
    },
    async run(runId) {
      const res = await call('GET', `/api/v1/agent/runs/${runId}`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data as unknown as RunView;
    },
    // A bound on "eventually", not a measure: a loaded machine renders music slowly (a workflow waited 20 s in vain there).
    async waitFor(runId, statuses, timeoutMs = 60_000) {
      const deadline = Date.now() + timeoutMs;
      let view = await client.run(runId);
      while (!statuses.includes(view.status)) {
        if (Date.now() > deadline) assert.fail(`run ${runId} is ${view.status} (${view.waitReason}), not ${statuses.join('|')}: ${JSON.stringify(view.steps.map((s) => [s.kind, s.name, s.status, s.output]))} ${JSON.stringify(view.error)}`);
        await new Promise((r) => setTimeout(r, 25));
        view = await client.run(runId);
      }
      return view;
    },
    async result(runId) {
      const res = await call('GET', `/api/v1/agent/runs/${runId}/result`);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data as unknown as ResultView;
    },
    async events(conversationId, afterSequence = 0) {
      const out: EventView[] = [];
      let after = afterSequence;
      for (;;) {
        const res = await call('GET', `/api/v1/agent/conversations/${conversationId}/event-history?afterSequence=${after}`);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        out.push(...(res.body.data.events as EventView[]));
        if (!res.body.data.hasMore) return out;
        after = out.at(-1)?.sequence ?? after;
      }
    },
  };
  return client;
}

/** `ledger verify` on the gateway's store: every balance, hold, run budget and agent operation agrees. */
export async function assertBooksBalance(gw: TestGateway): Promise<void> {
  assert.deepEqual(await verifyLedger(gw.gateway.services.database.db), []);
}

/** The agent's configuration for a gateway whose orchestrator routes go to `provider`. */
export function orchestratorRoutes(provider: string, models: string[]): Record<string, string[]> {
  return Object.fromEntries(models.map((m) => [m, [provider]]));
}

/** A request with another Host header (fetch does not let a caller choose it): another storefront. */
export function withHost(url: string, host: string, key: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Envelope }> {
  return new Promise((resolve, reject) => {
    const target = new URL(path, url);
    const text = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      { host: target.hostname, port: target.port, path: target.pathname + target.search, method, headers: { host, authorization: `Bearer ${key}`, ...(text ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString() || '{}') as Envelope }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}
