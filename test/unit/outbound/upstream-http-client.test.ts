import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { GuardedHttpClient, type Resolver } from '../../../src/adapters/outbound/guarded-http-client.ts';
import { retryAfterMs, UpstreamHttpClient } from '../../../src/adapters/outbound/upstream-http-client.ts';

let server: Server;
let base = '';
const http = new UpstreamHttpClient({ timeoutMs: 300 });

before(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/hang') return;
      if (req.url === '/big') {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(Buffer.alloc(2048));
        return;
      }
      res.writeHead(201, { 'content-type': 'application/json', 'x-thing': 'yes' }).end('{"ok":true}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await http.close();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe('UpstreamHttpClient.send (moved from the media providers)', () => {
  test('an answer comes back with status, lower-case headers and body', async () => {
    const exchange = await http.send({ method: 'POST', url: `${base}/ok`, json: { a: 1 } });
    assert.ok(exchange.kind === 'response');
    assert.equal(exchange.response.status, 201);
    assert.equal(exchange.response.headers['x-thing'], 'yes');
    assert.equal(exchange.response.body.toString(), '{"ok":true}');
  });

  test('a refused connection certainly did not deliver the request', async () => {
    const exchange = await http.send({ method: 'POST', url: 'http://127.0.0.1:1/x', json: {} });
    assert.ok(exchange.kind === 'no-response');
    assert.equal(exchange.maybeDelivered, false);
    assert.equal(exchange.error.code, 'network');
    assert.equal(exchange.error.retryable, true);
    assert.match(exchange.error.message, /^POST \/x: ECONNREFUSED/u);
  });

  test('a request read but never answered may have been delivered: a timeout', async () => {
    const exchange = await http.send({ method: 'POST', url: `${base}/hang`, json: {} });
    assert.ok(exchange.kind === 'no-response');
    assert.equal(exchange.maybeDelivered, true);
    assert.deepEqual(exchange.error, { message: 'POST /hang: no answer within 300 ms', retryable: true, code: 'timeout' });
  });

  test("the caller's abort ends the exchange, and the request may have been delivered", async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 30);
    const exchange = await http.send({ method: 'POST', url: `${base}/hang`, json: {}, signal: controller.signal, timeoutMs: 5_000 });
    assert.ok(exchange.kind === 'no-response');
    assert.equal(exchange.maybeDelivered, true);
    assert.equal(exchange.error.message, 'POST /hang: cancelled by the caller');
  });

  test('a body over the limit is not read', async () => {
    const exchange = await http.send({ method: 'GET', url: `${base}/big`, maxBytes: 1024 });
    assert.ok(exchange.kind === 'no-response');
    assert.equal(exchange.error.code, 'protocol');
  });
});

describe('UpstreamHttpClient address policy (the guarded client’s)', () => {
  const toLoopback: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

  test('by default (the operator policy) a private upstream is reachable, an address that is never an upstream is refused unsent', async () => {
    const exchange = await http.send({ method: 'GET', url: `${base}/ok` });
    assert.ok(exchange.kind === 'response');
    const multicast = await http.send({ method: 'POST', url: 'http://224.0.0.1/x', json: {} });
    assert.ok(multicast.kind === 'no-response');
    assert.equal(multicast.maybeDelivered, false);
    assert.equal(multicast.error.code, 'network');
    assert.match(multicast.error.message, /not allowed/u);
  });

  test('a strict policy refuses a private literal address before sending', async () => {
    const strict = new UpstreamHttpClient({ timeoutMs: 1_000, policy: new GuardedHttpClient({ allowPrivate: false }) });
    try {
      const exchange = await strict.send({ method: 'POST', url: `${base}/ok`, json: {} });
      assert.ok(exchange.kind === 'no-response');
      assert.equal(exchange.maybeDelivered, false);
      assert.throws(() => strict.checkUrl(`${base}/ok`), /not allowed/u);
    } finally {
      await strict.close();
    }
  });

  test('a name is resolved when a connection opens, and refused there when an address is not allowed', async () => {
    const port = new URL(base).port;
    const refusing = new UpstreamHttpClient({ timeoutMs: 1_000, policy: new GuardedHttpClient({ allowPrivate: false, resolve: toLoopback }) });
    const allowing = new UpstreamHttpClient({ timeoutMs: 1_000, policy: new GuardedHttpClient({ allowPrivate: false, allowAddresses: ['127.0.0.1'], resolve: toLoopback }) });
    try {
      const refused = await refusing.send({ method: 'POST', url: `http://upstream.example:${port}/ok`, json: {} });
      assert.ok(refused.kind === 'no-response');
      assert.equal(refused.maybeDelivered, false, 'a refused name is never sent to');
      assert.match(refused.error.message, /ENOTFOUND/u);
      const answered = await allowing.send({ method: 'POST', url: `http://upstream.example:${port}/ok`, json: {} });
      assert.ok(answered.kind === 'response');
      assert.equal(answered.response.status, 201);
    } finally {
      await refusing.close();
      await allowing.close();
    }
  });
});

describe('retryAfterMs: one reading of Retry-After for chat, media and payments', () => {
  const now = Date.parse('2026-11-25T12:00:00Z');

  test('delay-seconds, OpenAI’s retry-after-ms first, an HTTP date', () => {
    assert.equal(retryAfterMs({ 'retry-after': '12' }, now), 12_000);
    assert.equal(retryAfterMs({ 'retry-after': ' 1.5 ' }, now), 1_500);
    assert.equal(retryAfterMs({ 'retry-after-ms': '1500', 'retry-after': '9' }, now), 1_500);
    assert.equal(retryAfterMs({ 'retry-after': 'Wed, 25 Nov 2026 12:01:00 GMT' }, now), 60_000);
    assert.equal(retryAfterMs({ 'retry-after': ['7', '8'] }, now), 7_000);
  });

  test('a past date is now; nonsense, negatives and absence say nothing', () => {
    assert.equal(retryAfterMs({ 'retry-after': 'Wed, 25 Nov 2026 11:00:00 GMT' }, now), 0);
    assert.equal(retryAfterMs({ 'retry-after': 'soon' }, now), undefined);
    assert.equal(retryAfterMs({ 'retry-after': '-5' }, now), undefined);
    assert.equal(retryAfterMs({ 'retry-after': '' }, now), undefined);
    assert.equal(retryAfterMs({}, now), undefined);
  });
});
