/**
 * Event streams end with the credential that opened them (an API key revoked, a session signed out),
 * in this process and, over the event bus, in every other; and one user holds a bounded number of
 * agent event streams, one more being a 429 in the standard error body.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { startChatFakes } from '../support/chat-gateway.ts';
import { ADMIN_TOKEN, describeEachMode } from '../support/gateway.ts';
import { createSharedStores, spawnGateway } from '../support/processes.ts';
import { serviceSkipReason, TEST_DATABASE_URL, TEST_REDIS_URL } from '../support/services.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

interface Opened {
  status: number;
  /** Everything the stream sent until it ended, or until `withinMs` passed. */
  rest(withinMs: number): Promise<{ text: string; ended: boolean }>;
  close(): void;
}

/** Opens a stream and reads it in the background. */
async function open(url: string, init: RequestInit = {}): Promise<Opened> {
  const controller = new AbortController();
  const res = await fetch(url, { ...init, signal: controller.signal });
  let text = '';
  let ended = false;
  const reading = (async () => {
    const reader = res.body?.getReader();
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        text += new TextDecoder().decode(chunk.value);
      }
      ended = true;
    } catch {
      // Aborted by the test.
    }
  })();
  return {
    status: res.status,
    async rest(withinMs) {
      await Promise.race([reading, new Promise((r) => setTimeout(r, withinMs))]);
      return { text, ended };
    },
    close: () => controller.abort(),
  };
}

async function userWithKey(gw: { url: string }, balanceCents = 100): Promise<{ userId: string; keyId: string; key: string }> {
  const admin = (method: string, path: string, body?: unknown) =>
    fetch(gw.url + path, { method, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify(body ?? {}) }).then(
      (r) => r.json() as Promise<Record<string, string>>,
    );
  const user = await admin('POST', '/admin/v1/users', { balanceCents });
  const key = await admin('POST', `/admin/v1/users/${user.id}/api-keys`, { name: 'stream' });
  return { userId: user.id ?? '', keyId: key.id ?? '', key: key.key ?? '' };
}

async function conversation(gw: { url: string }, headers: Record<string, string>): Promise<string> {
  const res = await fetch(`${gw.url}/api/v1/agent/conversations`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' });
  const body = (await res.json()) as { data: { conversationId: string } };
  assert.equal(res.status, 200, JSON.stringify(body));
  return body.data.conversationId;
}

const eventsUrl = (gw: { url: string }, conversationId: string) => `${gw.url}/api/v1/agent/conversations/${conversationId}/events`;
const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

function revokeKey(gw: { url: string }, keyId: string): Promise<Response> {
  return fetch(`${gw.url}/admin/v1/api-keys/${keyId}`, { method: 'DELETE', headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
}

describeEachMode(
  'event streams end with their credential; a user holds a bounded number',
  (ctx) => {
    test('revoking an API key closes the agent event streams opened with it at once, and only those', async () => {
      const user = await userWithKey(ctx.gw);
      const other = await ctx.gw.admin<{ id: string; key: string }>('POST', `/admin/v1/users/${user.userId}/api-keys`, { name: 'kept' });
      const conversationId = await conversation(ctx.gw, bearer(user.key));
      const revoked = await open(eventsUrl(ctx.gw, conversationId), { headers: bearer(user.key) });
      const kept = await open(eventsUrl(ctx.gw, conversationId), { headers: bearer(other.key) });
      assert.equal(revoked.status, 200);
      assert.equal(kept.status, 200);
      assert.equal((await revokeKey(ctx.gw, user.keyId)).status, 200);
      const end = await revoked.rest(5_000);
      assert.equal(end.ended, true, `the stream ended; it sent: ${end.text}`);
      assert.match(end.text, /event: closed\ndata: \{"reason":"the API key this stream was opened with has been revoked"\}/);
      // The stream of the other key goes on.
      const still = await kept.rest(500);
      assert.equal(still.ended, false, 'the other key\'s stream is open');
      kept.close();
      assert.equal((await open(eventsUrl(ctx.gw, conversationId), { headers: bearer(user.key) })).status, 401, 'the revoked key opens nothing new');
    });

    test('signing out closes the streams the session opened', async () => {
      const email = `stream.${process.pid}.${Date.now()}@example.com`;
      const signup = await fetch(`${ctx.gw.url}/api/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, password: 'a long enough password' }) });
      assert.equal(signup.status, 200);
      const cookie = /^sb_session=[^;]*/.exec(signup.headers.get('set-cookie') ?? '')?.[0] ?? '';
      const csrf = ((await signup.json()) as { data: { csrfToken: string } }).data.csrfToken;
      const session = { cookie, 'x-csrf-token': csrf };
      const conversationId = await conversation(ctx.gw, session);
      const stream = await open(eventsUrl(ctx.gw, conversationId), { headers: { cookie } });
      assert.equal(stream.status, 200);
      assert.equal((await fetch(`${ctx.gw.url}/api/v1/auth/logout`, { method: 'POST', headers: session })).status, 200);
      const end = await stream.rest(5_000);
      assert.equal(end.ended, true, `the stream ended; it sent: ${end.text}`);
      assert.match(end.text, /event: closed\ndata: \{"reason":"the session this stream was opened with has ended"\}/);
    });

    test('revoking the key cuts a streamed chat answer, which is settled for what it used', async () => {
      const user = await userWithKey(ctx.gw, 500);
      fakes.openai.enqueue({ text: 'word '.repeat(400), chunkDelayMs: 25 });
      const stream = await open(`${ctx.gw.url}/api/v1/chat/completions`, {
        method: 'POST',
        headers: { ...bearer(user.key), 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-5.4-mini', stream: true, messages: [{ role: 'user', content: 'talk for a while' }] }),
      });
      assert.equal(stream.status, 200);
      assert.match((await stream.rest(300)).text, /data: /, 'the answer has started');
      assert.equal((await revokeKey(ctx.gw, user.keyId)).status, 200);
      const end = await stream.rest(5_000);
      assert.equal(end.ended, true, 'the stream ended at once, long before the answer would have');
      assert.doesNotMatch(end.text, /\[DONE\]/, 'not a clean finish');
      const db = ctx.gw.gateway.services.database.db;
      const deadline = Date.now() + 5_000;
      const read = () => db.selectFrom('chat_requests').select('status').where('user_id', '=', user.userId).executeTakeFirst();
      let row = await read();
      while (row?.status === 'running' && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        row = await read();
      }
      assert.equal(row?.status, 'client_closed');
    });

    test('one agent event stream over the per-user cap is a 429 in the standard body; closing one makes room', async () => {
      const user = await userWithKey(ctx.gw);
      const conversationId = await conversation(ctx.gw, bearer(user.key));
      const streams = [];
      for (let i = 0; i < 3; i++) streams.push(await open(eventsUrl(ctx.gw, conversationId), { headers: bearer(user.key) }));
      assert.deepEqual(streams.map((s) => s.status), [200, 200, 200]);
      const refused = await fetch(eventsUrl(ctx.gw, conversationId), { headers: bearer(user.key) });
      assert.equal(refused.status, 429);
      assert.match(refused.headers.get('content-type') ?? '', /application\/json/);
      assert.ok(Number(refused.headers.get('retry-after')) > 0);
      const body = (await refused.json()) as { code: number; error: { code: string; type: string; message: string } };
      assert.equal(body.code, 429);
      assert.equal(body.error.code, 'rate_limited');
      // Another user is not affected.
      const other = await userWithKey(ctx.gw);
      const theirs = await open(eventsUrl(ctx.gw, await conversation(ctx.gw, bearer(other.key))), { headers: bearer(other.key) });
      assert.equal(theirs.status, 200);
      theirs.close();
      streams[0]?.close();
      const deadline = Date.now() + 5_000;
      let again = await open(eventsUrl(ctx.gw, conversationId), { headers: bearer(user.key) });
      while (again.status === 429 && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50));
        again = await open(eventsUrl(ctx.gw, conversationId), { headers: bearer(user.key) });
      }
      assert.equal(again.status, 200, 'a place was freed');
      for (const s of [...streams, again]) s.close();
    });
  },
  { configFile: { ...fakes.config, limits: { eventStreamsPerUser: 3 } } },
);

describe('a revocation made on one API process closes the stream held by another [scaleout]', async () => {
  const skip = (await serviceSkipReason('PostgreSQL', TEST_DATABASE_URL)) ?? (await serviceSkipReason('Redis', TEST_REDIS_URL));

  test('the key is revoked through process A; the stream on process B ends within seconds (the bus, not the 30 s re-check)', { skip }, async () => {
    const stores = await createSharedStores('scaleout', {});
    const a = await spawnGateway(stores, 'api');
    const b = await spawnGateway(stores, 'api');
    try {
      const user = await userWithKey(a);
      const conversationId = await conversation(a, bearer(user.key));
      const stream = await open(eventsUrl(b, conversationId), { headers: bearer(user.key) });
      assert.equal(stream.status, 200);
      await new Promise((r) => setTimeout(r, 200));
      assert.equal((await revokeKey(a, user.keyId)).status, 200);
      const end = await stream.rest(5_000);
      assert.equal(end.ended, true, `the stream on the other process ended; it sent: ${end.text}`);
      assert.match(end.text, /event: closed/);
    } finally {
      await a.stop();
      await b.stop();
      await stores.dispose();
    }
  });
});
