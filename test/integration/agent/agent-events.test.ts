/**
 * Agent events: gap-free sequences, SSE with Last-Event-ID resume (the eventsource package, 100
 * forced reconnects), the JSON replay, resync past retention, and fan-out across processes.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { EventSource } from 'eventsource';
import { ScriptedOrchestrator } from '../../fakes/scripted-orchestrator.ts';
import { agentClient, clientFor, type EventView } from '../../support/agent.ts';
import { describeAgent } from '../../support/agent-suite.ts';
import { ADMIN_TOKEN } from '../../support/gateway.ts';
import { call, createSharedStores, spawnGateway } from '../../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../../support/services.ts';

const ask = (question: string) => ({ toolCalls: [{ name: 'ask_clarification', arguments: { question } }] });

interface Received {
  sequences: number[];
  types: string[];
  connections: number;
  close(): void;
}

/**
 * An eventsource reader whose connection is cut (as a flaky network would) after every `cutEvery`
 * events, at a random byte: it reconnects at once with Last-Event-ID.
 */
function flakyReader(url: string, key: string, cutEvery: number): Received {
  const received: Received = { sequences: [], types: [], connections: 0, close: () => {} };
  const decoder = new TextDecoder();
  const encoder = new TextEncoder();
  const source = new EventSource(url, {
    fetch: async (input, init) => {
      received.connections++;
      const response = await fetch(input, { ...init, headers: { ...(init?.headers as Record<string, string>), authorization: `Bearer ${key}` } });
      if (!response.body) return response;
      const upstream = response.body.getReader();
      let events = 0;
      const body = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const { done, value } = await upstream.read();
          if (done) return controller.close();
          // Reconnect at once (the server asks for 2 s).
          const text = decoder.decode(value, { stream: true }).replace(/retry: \d+/, 'retry: 1');
          // Deliver `cutEvery` whole events on this connection, then a random part of what follows
          // (a partial frame must be dropped, not delivered), and cut: the reader reconnects.
          let end = 0;
          while (events < cutEvery) {
            const next = text.indexOf('\n\n', end);
            if (next === -1) break;
            if (text.slice(end, next).replace(/^\n+/, '').startsWith('id: ')) events++;
            end = next + 2;
          }
          if (events < cutEvery) {
            controller.enqueue(encoder.encode(text));
            return;
          }
          const rest = text.slice(end);
          controller.enqueue(encoder.encode(text.slice(0, end) + rest.slice(0, Math.floor(rest.length * Math.random()))));
          controller.close();
          await upstream.cancel();
        },
        cancel: () => upstream.cancel(),
      });
      return new Response(body, { status: response.status, headers: response.headers });
    },
  });
  const onEvent = (event: MessageEvent) => {
    received.sequences.push(Number(event.lastEventId));
    received.types.push(event.type);
  };
  for (const type of ['run.created', 'run.status_changed', 'run.step.started', 'run.step.completed', 'message.created', 'message.delta', 'message.completed', 'budget.updated', 'question.asked', 'run.completed', 'run.cancelled', 'conversation.updated', 'artifact.created']) {
    source.addEventListener(type, onEvent);
  }
  received.close = () => source.close();
  return received;
}

async function until(check: () => boolean | Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describeAgent('agent events', (ctx) => {
  test('sequences are gap-free per conversation; event-history replays strictly after the cursor', async () => {
    const c = await agentClient(ctx.gw);
    const conversationId = await c.conversation({ title: 'Seq' });
    ctx.orchestrator.plan(conversationId, { text: 'one' });
    await c.waitFor((await c.send(conversationId, 'hi')).runId, ['completed']);
    const events = await c.events(conversationId);
    assert.deepEqual(events.map((e) => e.sequence), events.map((_, i) => i + 1));
    assert.ok(new Set(events.map((e) => e.id)).size === events.length);
    const tail = await c.events(conversationId, 3);
    assert.deepEqual(tail.map((e) => e.sequence), events.slice(3).map((e) => e.sequence));
    const paged = await c.call('GET', `/api/v1/agent/conversations/${conversationId}/event-history?afterSequence=0&limit=2`);
    assert.equal((paged.body.data.events as EventView[]).length, 2);
    assert.equal(paged.body.data.hasMore, true);
    assert.equal((await c.call('GET', `/api/v1/agent/conversations/${conversationId}/event-history?afterSequence=-1`)).status, 400);
    const other = await agentClient(ctx.gw);
    assert.equal((await other.call('GET', `/api/v1/agent/conversations/${conversationId}/event-history`)).status, 404);
    assert.equal((await other.call('GET', `/api/v1/agent/conversations/${conversationId}/events`)).status, 404);
  });

  test('100 forced reconnects of an SSE reader with Last-Event-ID lose and repeat no event', async () => {
    const c = await agentClient(ctx.gw, 10_000);
    const conversationId = await c.conversation({ title: 'Flaky' });
    const reader = flakyReader(`${ctx.gw.url}/api/v1/agent/conversations/${conversationId}/events`, c.key, 1);
    try {
      // 20 runs one after another (the first question keeps the follow-ups queued), ~12 events each.
      const runs = [];
      for (let i = 0; i < 20; i++) ctx.orchestrator.plan(conversationId, ask(`q${i}`), { text: `answer ${i}` });
      runs.push(await c.send(conversationId, 'task 0'));
      for (let i = 1; i < 20; i++) runs.push(await c.send(conversationId, `task ${i}`, { deliveryMode: 'followup' }));
      for (const run of runs) {
        const view = await c.waitFor(run.runId, ['waiting_for_clarification'], 30_000);
        await c.send(conversationId, 'go on', { replyToRunId: run.runId, questionId: view.pendingActions[0]?.questionId });
        await c.waitFor(run.runId, ['completed'], 30_000);
      }
      const history = await c.events(conversationId);
      const last = history.at(-1)?.sequence ?? 0;
      await until(() => reader.sequences.at(-1) === last, 60_000, `the reader to reach sequence ${last} (at ${reader.sequences.at(-1)})`);
      assert.ok(reader.connections > 100, `only ${reader.connections} connections`);
      assert.deepEqual(reader.sequences, history.map((e) => e.sequence), 'every event exactly once, in order');
      assert.deepEqual(reader.types, history.map((e) => e.type));
    } finally {
      reader.close();
    }
  });

  test('a raw SSE stream: id is the sequence, Last-Event-ID resumes strictly after it, resync past retention', async () => {
    const c = await agentClient(ctx.gw);
    const conversationId = await c.conversation({ title: 'Raw' });
    ctx.orchestrator.plan(conversationId, { text: 'raw' });
    await c.waitFor((await c.send(conversationId, 'hi')).runId, ['completed']);
    const read = async (headers: Record<string, string>, query = '') => {
      const controller = new AbortController();
      const res = await fetch(`${ctx.gw.url}/api/v1/agent/conversations/${conversationId}/events${query}`, { headers: { authorization: `Bearer ${c.key}`, ...headers }, signal: controller.signal });
      assert.equal(res.headers.get('content-type'), 'text/event-stream; charset=utf-8');
      const reader = res.body?.getReader();
      let text = '';
      const deadline = Date.now() + 2000;
      while (Date.now() < deadline && !text.includes('event: run.completed') && !text.includes('event: resync')) {
        const { value, done } = (await reader?.read()) ?? { done: true, value: undefined };
        if (done) break;
        text += new TextDecoder().decode(value);
      }
      controller.abort();
      return text;
    };
    const resumed = await read({ 'last-event-id': '4' });
    const ids = [...resumed.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    assert.equal(ids[0], 5);
    assert.deepEqual(ids, ids.map((_, i) => i + 5));
    const byQuery = await read({}, '?afterSequence=4');
    assert.equal([...byQuery.matchAll(/^id: (\d+)$/gm)][0]?.[1], '5');
    // Retention removed the oldest events: a cursor before them cannot be served.
    await ctx.gw.gateway.services.database.db.deleteFrom('agent_events').where('conversation_id', '=', conversationId).where('sequence', '<=', 3).execute();
    assert.match(await read({ 'last-event-id': '1' }), /event: resync/);
    assert.equal((await c.call('GET', `/api/v1/agent/conversations/${conversationId}/event-history?afterSequence=1`)).body.data.resync, true);
    assert.equal((await c.call('GET', `/api/v1/agent/conversations/${conversationId}/event-history?afterSequence=3`)).body.data.resync, false);
  });

  test('deleting a conversation closes its streams and stops its runs', async () => {
    const c = await agentClient(ctx.gw);
    const conversationId = await c.conversation({ title: 'Gone' });
    ctx.orchestrator.plan(conversationId, ask('still there?'));
    const run = await c.send(conversationId, 'wait for me');
    await c.waitFor(run.runId, ['waiting_for_clarification']);
    const res = await fetch(`${ctx.gw.url}/api/v1/agent/conversations/${conversationId}/events`, { headers: { authorization: `Bearer ${c.key}` } });
    const reader = res.body?.getReader();
    const deleted = await c.call('DELETE', `/api/v1/agent/conversations/${conversationId}`);
    assert.deepEqual(deleted.body.data.stoppedRunIds, [run.runId]);
    let text = '';
    for (;;) {
      const { value, done } = (await reader?.read()) ?? { done: true, value: undefined };
      if (done) break;
      text += new TextDecoder().decode(value);
    }
    assert.match(text, /event: closed/);
    assert.equal((await c.call('GET', `/api/v1/agent/conversations/${conversationId}`)).status, 404);
    assert.equal((await c.call('GET', `/api/v1/agent/runs/${run.runId}`)).status, 404);
  });
});

describe('agent events reach a reader on another process (ROLE=api reader, ROLE=worker runs) [scaleout]', async () => {
  const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));

  test('every event of a run executed by the worker process arrives over the API process\'s stream', { skip }, async () => {
    const orchestrator = await ScriptedOrchestrator.start('openai');
    after(() => orchestrator.close());
    const stores = await createSharedStores('scaleout', { providers: { orch: orchestrator.provider() }, routes: { 'gpt-5.4-mini': ['orch'] } });
    const api = await spawnGateway(stores, 'api');
    const worker = await spawnGateway(stores, 'worker');
    try {
      const user = (await call(api.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 500 })).body as { id: string };
      const key = ((await call(api.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
      const c = clientFor({ url: api.url } as Parameters<typeof clientFor>[0], key, user.id);
      const conversationId = await c.conversation({ title: 'Two processes' });
      orchestrator.plan(conversationId, { toolCalls: [{ name: 'generate_image', arguments: { prompt: 'a fox' } }] }, { text: 'done' });
      const reader = flakyReader(`${api.url}/api/v1/agent/conversations/${conversationId}/events`, key, 1_000_000);
      try {
        await until(() => reader.connections > 0, 5000, 'the reader to connect');
        await new Promise((r) => setTimeout(r, 300));
        const run = await c.send(conversationId, 'an image of a fox');
        await c.waitFor(run.runId, ['completed'], 30_000);
        const history = await c.events(conversationId);
        await until(() => reader.sequences.length === history.length, 10_000, 'every event over the stream');
        assert.deepEqual(reader.sequences, history.map((e) => e.sequence));
        assert.ok(reader.types.includes('artifact.created'));
      } finally {
        reader.close();
      }
    } finally {
      await worker.stop();
      await api.stop();
      await stores.dispose();
    }
  });
});
