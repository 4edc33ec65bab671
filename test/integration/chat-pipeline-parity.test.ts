/**
 * The chat lane (src/http/chat-lane.ts) and the Fastify routes of the text endpoints share one request
 * pipeline (src/http/request-pipeline.ts). This test sends one matrix of requests down both paths (a
 * query string sends a request to the Fastify route) and requires the same status, the same headers
 * and the same body byte for byte, after only the ids and timestamps that differ per request are
 * normalised: a good answer and a stream, no key, a bad key, a body over the limit (declared, and
 * counted while it arrives), malformed JSON, a 402, an upstream 5xx and an unknown model, on both
 * /chat/completions and /messages. The requests the lane takes are counted from its metric.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, beforeEach, test } from 'node:test';
import { startChatFakes } from '../support/chat-gateway.ts';
import { describeEachMode, type TestGateway } from '../support/gateway.ts';

const fakes = await startChatFakes();
after(() => fakes.close());

const LIMIT = 32 * 1024 * 1024;
/** Generated request ids: a per-process prefix and a counter (src/http/request-ids.ts). */
const GENERATED_ID = /^req_[A-Za-z0-9_-]{8}[0-9a-z]+$/;
/** Headers that differ per connection or per moment, not per path. */
const VOLATILE_HEADERS = new Set(['date', 'keep-alive', 'content-length']);

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

interface Case {
  name: string;
  path: string;
  headers: Record<string, string>;
  /** The body, or how to send it: `declared` announces more than the limit; `chunked` sends more than the limit without a length. */
  body: string | { declared: number } | { chunked: number };
  /** Whether the lane takes it (a cached key, a JSON body): the unauthenticated go to Fastify on both paths. */
  lane: boolean;
  status: number;
  upstreamFails?: boolean;
}

/**
 * One request on its own connection, read whole (a refused body may close the connection). A
 * connection reset before any answer arrived is tried again, twice at most: the lane lingers after a
 * 413 (chat-lane.ts); Fastify's path may still close with the rest of the body unread, and on a loaded
 * machine that reset can overtake the answer.
 */
/** Requests sent again after a reset, in all and of the current case's lane request. */
let resent = 0;
let resentOnLane = 0;

async function send(gw: TestGateway, path: string, headers: Record<string, string>, body: Case['body']): Promise<Answer> {
  for (let attempt = 1; ; attempt++) {
    try {
      if (attempt > 1) resent++;
      return await sendOnce(gw, path, headers, body);
    } catch (error) {
      if (!(error instanceof ResetBeforeAnswer) || attempt >= 3) throw error;
    }
  }
}

class ResetBeforeAnswer extends Error {}

function sendOnce(gw: TestGateway, path: string, headers: Record<string, string>, body: Case['body']): Promise<Answer> {
  const url = new URL(`${gw.url}${path}`);
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing: Record<string, string> = { ...headers };
    if (typeof body === 'string') outgoing['content-length'] = String(Buffer.byteLength(body));
    else if ('declared' in body) outgoing['content-length'] = String(body.declared);
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: 'POST', headers: outgoing, agent: false }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const flat: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode ?? 0, headers: flat, body: Buffer.concat(chunks).toString('utf8') });
      });
      res.on('error', reject);
    });
    // The server may answer and close while a refused body is still being written.
    req.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' && error.code !== 'ECONNRESET') return reject(error);
      // The answer may still be read after a write failed; if none comes, the connection was reset first.
      setTimeout(() => (answered ? undefined : reject(new ResetBeforeAnswer(error.code))), 2_000);
    });
    if (typeof body === 'string') req.end(body);
    else if ('declared' in body) req.write('{"model":');
    else {
      const piece = Buffer.alloc(1024 * 1024, 0x20);
      req.write('{"model":');
      let left = body.chunked;
      const more = (): void => {
        while (left > 0) {
          left -= piece.length;
          if (!req.write(piece)) {
            req.once('drain', more);
            return;
          }
        }
        req.end('}');
      };
      more();
    }
  });
}

/** The answer with what differs per request replaced: the request id, response ids, timestamps. */
function normalised(answer: Answer): Answer {
  const requestId = answer.headers['x-request-id'] ?? '';
  const headers = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !VOLATILE_HEADERS.has(name)));
  headers['x-request-id'] = '<request-id>';
  const body = answer.body
    .replaceAll(requestId, '<request-id>')
    .replace(/"(id|request_id)":"[^"]+"/g, '"$1":"<id>"')
    .replace(/"created":\d+/g, '"created":0');
  return { status: answer.status, headers, body };
}

/** The lane's count of requests it served, from /metrics. */
async function laneServed(gw: TestGateway): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  let total = 0;
  for (const line of text.split('\n')) if (line.startsWith('switchboard_chat_lane_requests_total{')) total += Number(line.split(' ').at(-1));
  return total;
}

function matrix(key: string, poorKey: string): Case[] {
  const completions = '/api/v1/chat/completions';
  const messages = '/api/v1/messages';
  const json = { 'content-type': 'application/json' };
  const openai = { ...json, authorization: `Bearer ${key}` };
  const anthropic = { ...json, 'x-api-key': key, 'anthropic-version': '2023-06-01' };
  const hi = [{ role: 'user', content: 'hi' }];
  const chat = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'gpt-5.4-mini', messages: hi, max_tokens: 20, ...extra });
  const claude = (extra: Record<string, unknown> = {}) => JSON.stringify({ model: 'claude-haiku-4-5', messages: hi, max_tokens: 20, ...extra });
  const cases: Case[] = [];
  for (const [protocol, path, headers, good, noKeyHeaders] of [
    ['openai', completions, openai, chat, json],
    ['anthropic', messages, anthropic, claude, { ...json, 'anthropic-version': '2023-06-01' }],
  ] as const) {
    const poor = protocol === 'openai' ? { ...json, authorization: `Bearer ${poorKey}` } : { ...anthropic, 'x-api-key': poorKey };
    cases.push(
      { name: `${protocol}: a whole answer`, path, headers, body: good(), lane: true, status: 200 },
      { name: `${protocol}: a stream`, path, headers, body: good({ stream: true }), lane: true, status: 200 },
      { name: `${protocol}: no key`, path, headers: noKeyHeaders, body: good(), lane: false, status: 401 },
      { name: `${protocol}: a bad key`, path, headers: { ...headers, ...(protocol === 'openai' ? { authorization: 'Bearer sk-not-a-key' } : { 'x-api-key': 'sk-not-a-key' }) }, body: good(), lane: false, status: 401 },
      { name: `${protocol}: a body declared over the limit`, path, headers, body: { declared: LIMIT + 1 }, lane: true, status: 413 },
      { name: `${protocol}: a body over the limit without a length`, path, headers: { ...headers, 'transfer-encoding': 'chunked' }, body: { chunked: LIMIT + 1024 }, lane: true, status: 413 },
      { name: `${protocol}: malformed JSON`, path, headers, body: '{"model":', lane: true, status: 400 },
      { name: `${protocol}: more than the balance holds (402)`, path, headers: poor, body: good({ max_tokens: 4096 }), lane: true, status: 402 },
      { name: `${protocol}: the upstream fails (5xx)`, path, headers, body: good(), lane: true, status: 502, upstreamFails: true },
      { name: `${protocol}: the upstream fails before a stream`, path, headers, body: good({ stream: true }), lane: true, status: 502, upstreamFails: true },
      { name: `${protocol}: an unknown model`, path, headers, body: JSON.stringify({ model: 'no-such-model', messages: hi, max_tokens: 20 }), lane: true, status: 400 },
    );
  }
  return cases;
}

describeEachMode(
  'chat pipeline parity',
  (ctx) => {
    beforeEach(() => fakes.reset());

    test('the lane and the Fastify route answer the same matrix byte for byte', async () => {
      const { key } = await ctx.gw.createUser(100);
      // One cent: a short answer fits, 4,096 output tokens do not.
      const { key: poorKey } = await ctx.gw.createUser(1);
      // A key's first request is looked up (the Fastify path); from then on the lane answers it.
      for (const warm of [key, poorKey]) {
        const warmed = await send(ctx.gw, '/api/v1/chat/completions', { 'content-type': 'application/json', authorization: `Bearer ${warm}` }, JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 }));
        assert.equal(warmed.status, 200, warmed.body);
      }
      const cases = matrix(key, poorKey);
      let expectedOnLane = await laneServed(ctx.gw);
      for (const c of cases) {
        const answers: Answer[] = [];
        for (const path of [c.path, `${c.path}?path=fastify`]) {
          fakes.reset();
          const failure = { error: { status: 500 } };
          if (c.upstreamFails) {
            fakes.openai.setDefault(failure);
            fakes.anthropic.setDefault(failure);
          }
          const before = resent;
          answers.push(await send(ctx.gw, path, c.headers, c.body));
          if (path === c.path) resentOnLane += resent - before;
        }
        if (c.lane) expectedOnLane++;
        // A lane request sent again after a reset was counted by the lane each time.
        if (c.lane) expectedOnLane += resentOnLane;
        resentOnLane = 0;
        const [lane, fastify] = answers as [Answer, Answer];
        // The status each case is about, so that a broken case cannot pass by failing alike on both paths.
        assert.equal(lane.status, c.status, `${c.name}: ${lane.body.slice(0, 300)}`);
        assert.match(lane.headers['x-request-id'] ?? '', GENERATED_ID, `${c.name}: the lane's request id`);
        assert.match(fastify.headers['x-request-id'] ?? '', GENERATED_ID, `${c.name}: Fastify's request id`);
        assert.deepEqual(normalised(lane), normalised(fastify), c.name);
        assert.equal(await laneServed(ctx.gw), expectedOnLane, `${c.name}: ${c.lane ? 'served by the lane' : 'left to Fastify'}`);
      }
    });
  },
  { configFile: fakes.config },
);
