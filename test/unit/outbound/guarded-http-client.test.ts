import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { after, describe, test } from 'node:test';
import { GuardedHttpClient, type Resolver } from '../../../src/adapters/outbound/guarded-http-client.ts';
import { OutboundUrlError } from '../../../src/adapters/outbound/outbound-url-error.ts';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
  servername?: string;
}

interface TestServer {
  origin: string;
  port: number;
  seen: Seen[];
  server: Server;
}

const servers: Server[] = [];
after(async () => {
  for (const server of servers) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function listen(server: Server, handler: (req: IncomingMessage, res: ServerResponse, seen: Seen[]) => void, scheme = 'http'): Promise<TestServer> {
  const seen: Seen[] = [];
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const servername = 'servername' in req.socket ? (req.socket.servername as string | false) : false;
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), ...(servername ? { servername } : {}) });
      handler(req, res, seen);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push(server);
  const port = (server.address() as AddressInfo).port;
  return { origin: `${scheme}://127.0.0.1:${port}`, port, seen, server };
}

function start(handler: (req: IncomingMessage, res: ServerResponse, seen: Seen[]) => void): Promise<TestServer> {
  return listen(createServer(), handler);
}

async function failure(promise: Promise<unknown>): Promise<OutboundUrlError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof OutboundUrlError, `expected an OutboundUrlError, got ${String(error)}`);
  return error;
}

const open = new GuardedHttpClient({ allowPrivate: true, userAgent: 'switchboard-test' });
const strict = new GuardedHttpClient({ allowPrivate: false });
const LIMITS = { timeoutMs: 5_000, maxBytes: 1_000_000 };

describe('GuardedHttpClient with private addresses allowed', () => {
  test('GET returns status, lower-case headers, body and final URL', async () => {
    const s = await start((_req, res) => {
      res.setHeader('X-Thing', 'yes');
      res.end('hello');
    });
    const response = await open.request({ url: `${s.origin}/file.txt?q=1#frag`, headers: { 'X-Custom': 'abc', Host: 'evil.example' }, ...LIMITS });
    assert.equal(response.status, 200);
    assert.equal(response.body.toString(), 'hello');
    assert.equal(response.headers['x-thing'], 'yes');
    assert.equal(response.finalUrl, `${s.origin}/file.txt?q=1`);
    const seen = s.seen[0];
    assert.equal(seen?.url, '/file.txt?q=1');
    assert.equal(seen?.headers.host, `127.0.0.1:${s.port}`);
    assert.equal(seen?.headers['x-custom'], 'abc');
    assert.equal(seen?.headers['user-agent'], 'switchboard-test');
    assert.equal(seen?.headers.cookie, undefined);
  });

  test('POST sends the body; HEAD reads no body', async () => {
    const s = await start((req, res) => {
      res.setHeader('Content-Length', '5');
      res.end(req.method === 'HEAD' ? undefined : 'fine!');
    });
    const posted = await open.request({ url: s.origin, method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' }, ...LIMITS });
    assert.equal(posted.body.toString(), 'fine!');
    assert.equal(s.seen[0]?.body, '{"a":1}');
    assert.equal(s.seen[0]?.headers['content-length'], '7');
    const head = await open.request({ url: s.origin, method: 'HEAD', ...LIMITS });
    assert.equal(head.status, 200);
    assert.equal(head.body.length, 0);
  });

  test('the system resolver is used for names: localhost reaches the server', async () => {
    const s = await start((_req, res) => res.end('via name'));
    const response = await open.request({ url: `http://localhost:${s.port}/`, ...LIMITS });
    assert.equal(response.body.toString(), 'via name');
    assert.equal(s.seen[0]?.headers.host, `localhost:${s.port}`);
  });

  test('a body over the limit aborts the download with too_large', async () => {
    let finished = false;
    const s = await start((_req, res) => {
      // No Content-Length: the client must count while reading, and hang up early.
      let sent = 0;
      const pump = (): void => {
        if (sent >= 200) {
          finished = true;
          res.end();
          return;
        }
        sent += 1;
        res.write(Buffer.alloc(64 * 1024, 97));
        setTimeout(pump, 5);
      };
      pump();
    });
    const error = await failure(open.request({ url: s.origin, timeoutMs: 10_000, maxBytes: 100_000 }));
    assert.equal(error.reason, 'too_large');
    assert.match(error.message, /limit of 100000 bytes/u);
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.equal(finished, false);
  });

  test('a declared Content-Length over the limit is refused before reading; the limit itself is fine', async () => {
    const s = await start((req, res) => res.end(Buffer.alloc(req.url === '/big' ? 1001 : 1000, 98)));
    const error = await failure(open.request({ url: `${s.origin}/big`, timeoutMs: 5_000, maxBytes: 1000 }));
    assert.equal(error.reason, 'too_large');
    assert.match(error.message, /declares 1001 bytes/u);
    const exact = await open.request({ url: `${s.origin}/exact`, timeoutMs: 5_000, maxBytes: 1000 });
    assert.equal(exact.body.length, 1000);
  });

  test('a server that does not answer in time gives timeout', async () => {
    const s = await start(() => {
      // never answers
    });
    const started = Date.now();
    const error = await failure(open.request({ url: s.origin, timeoutMs: 300, maxBytes: 1000 }));
    assert.equal(error.reason, 'timeout');
    assert.ok(Date.now() - started < 2_000);
  });

  test('a body that trickles past the deadline gives timeout', async () => {
    const s = await start((_req, res) => {
      res.write('a');
      const timer = setInterval(() => res.write('a'), 50);
      res.on('close', () => clearInterval(timer));
    });
    const started = Date.now();
    const error = await failure(open.request({ url: s.origin, timeoutMs: 400, maxBytes: 1_000_000 }));
    assert.equal(error.reason, 'timeout');
    assert.ok(Date.now() - started < 2_000);
  });

  test('a closed port gives connect', async () => {
    const s = await start((_req, res) => res.end());
    s.server.close();
    servers.splice(servers.indexOf(s.server), 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const error = await failure(open.request({ url: s.origin, ...LIMITS }));
    assert.equal(error.reason, 'connect');
  });
});

describe('GuardedHttpClient without private addresses', () => {
  test('a loopback server is refused without a connection', async () => {
    const s = await start((_req, res) => res.end('should not see this'));
    for (const url of [s.origin, `http://[::ffff:127.0.0.1]:${s.port}/`, `http://[::1]:${s.port}/`, `http://localhost:${s.port}/`, `http://2130706433:${s.port}/`]) {
      const error = await failure(strict.request({ url, ...LIMITS }));
      assert.equal(error.reason, 'private_address', url);
    }
    assert.equal(s.seen.length, 0);
  });

  test('metadata and private literals are refused at once', async () => {
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/', 'http://10.0.0.1/', 'http://100.64.1.1/', 'http://[64:ff9b::a9fe:a9fe]/']) {
      const started = Date.now();
      const error = await failure(strict.request({ url, ...LIMITS }));
      assert.equal(error.reason, 'private_address', url);
      // Well under the 5 s time-out a connection attempt to these addresses would wait for.
      assert.ok(Date.now() - started < 2_500, url);
    }
  });

  test('a name that resolves to loopback is refused, and so is a name with any private address; the message does not say where they point', async () => {
    const resolve: Resolver = async (host) =>
      host === 'mixed.example' ? [{ address: '8.8.8.8', family: 4 }, { address: '10.0.0.7', family: 4 }] : [{ address: '127.0.0.1', family: 4 }];
    const client = new GuardedHttpClient({ allowPrivate: false, resolve });
    const loop = await failure(client.request({ url: 'http://rebind.example/', ...LIMITS }));
    // Told like a name that does not resolve: the answer is no oracle for internal names.
    assert.equal(loop.reason, 'dns');
    assert.equal(loop.message, 'the host rebind.example does not resolve to a public address');
    assert.match(String((loop.cause as Error).message), /resolves to 127\.0\.0\.1/u, 'the detail stays in the cause, for logs');
    const mixed = await failure(client.request({ url: 'http://mixed.example/', ...LIMITS }));
    assert.equal(mixed.reason, 'dns');
    assert.doesNotMatch(mixed.message, /10\.0\.0\.7/u);
  });

  test('other schemes, credentials in the URL and unresolvable names are refused', async () => {
    assert.equal((await failure(strict.request({ url: 'file:///etc/passwd', ...LIMITS }))).reason, 'scheme');
    assert.equal((await failure(strict.request({ url: 'https://user:pw@example.com/', ...LIMITS }))).reason, 'invalid_url');
    assert.equal((await failure(strict.request({ url: 'no url', ...LIMITS }))).reason, 'invalid_url');
    const client = new GuardedHttpClient({
      allowPrivate: false,
      resolve: async () => {
        throw Object.assign(new Error('getaddrinfo ENOTFOUND'), { code: 'ENOTFOUND' });
      },
    });
    const dns = await failure(client.request({ url: 'http://nowhere.example/', ...LIMITS }));
    assert.equal(dns.reason, 'dns');
    assert.equal(dns.message, 'the host nowhere.example does not resolve to a public address');
  });

  test('the connection goes to the vetted address: DNS is asked once, Host keeps the name', async () => {
    const s = await start((_req, res) => res.end('pinned'));
    let lookups = 0;
    const client = new GuardedHttpClient({
      allowPrivate: false,
      allowAddresses: ['127.0.0.1'],
      resolve: async () => {
        lookups += 1;
        // A rebinding name would answer differently the second time; it is never asked again.
        return lookups === 1 ? [{ address: '127.0.0.1', family: 4 }] : [{ address: '10.9.9.9', family: 4 }];
      },
    });
    const response = await client.request({ url: `http://rebind.example:${s.port}/x`, ...LIMITS });
    assert.equal(response.body.toString(), 'pinned');
    assert.equal(lookups, 1);
    assert.equal(s.seen[0]?.headers.host, `rebind.example:${s.port}`);
  });
});

describe('GuardedHttpClient redirects', () => {
  test('redirects are followed, re-checked, and counted', async () => {
    const s = await start((req, res) => {
      const n = Number(req.url?.slice(1) || '0');
      if (n < 3) {
        res.writeHead(302, { Location: `/${n + 1}` });
        res.end();
      } else res.end(`arrived at ${n}`);
    });
    const ok = await open.request({ url: `${s.origin}/0`, ...LIMITS });
    assert.equal(ok.body.toString(), 'arrived at 3');
    assert.equal(ok.finalUrl, `${s.origin}/3`);
    const tooMany = await failure(open.request({ url: `${s.origin}/0`, maxRedirects: 2, ...LIMITS }));
    assert.equal(tooMany.reason, 'redirects');
    const notFollowed = await open.request({ url: `${s.origin}/0`, maxRedirects: 0, ...LIMITS });
    assert.equal(notFollowed.status, 302);
    assert.equal(notFollowed.headers.location, '/1');
  });

  test('a redirect to a private or metadata address is refused before connecting', async () => {
    const target = await start((_req, res) => res.end('private data'));
    const s = await start((req, res) => {
      const to = req.url === '/meta' ? 'http://169.254.169.254/latest/meta-data/' : req.url === '/ftp' ? 'ftp://example.com/' : `http://127.0.0.2:${target.port}/`;
      res.writeHead(301, { Location: to });
      res.end();
    });
    // Only 127.0.0.1 itself is let through: everything the redirects point at stays closed.
    const client = new GuardedHttpClient({ allowPrivate: false, allowAddresses: ['127.0.0.1'] });
    const loop = await failure(client.request({ url: `${s.origin}/loop`, ...LIMITS }));
    assert.equal(loop.reason, 'private_address');
    assert.match(loop.message, /127\.0\.0\.2/u);
    const meta = await failure(client.request({ url: `${s.origin}/meta`, ...LIMITS }));
    assert.equal(meta.reason, 'private_address');
    assert.match(meta.message, /169\.254\.169\.254/u);
    const ftp = await failure(client.request({ url: `${s.origin}/ftp`, ...LIMITS }));
    assert.equal(ftp.reason, 'scheme');
    assert.equal(target.seen.length, 0);
  });

  test('303 turns POST into a bodiless GET, 307 keeps both', async () => {
    const s = await start((req, res) => {
      if (req.url === '/see-other') res.writeHead(303, { Location: '/landing' }).end();
      else if (req.url === '/temporary') res.writeHead(307, { Location: '/landing' }).end();
      else res.end(req.method);
    });
    const seeOther = await open.request({ url: `${s.origin}/see-other`, method: 'POST', body: 'payload', headers: { 'content-type': 'text/plain' }, ...LIMITS });
    assert.equal(seeOther.body.toString(), 'GET');
    assert.equal(s.seen[1]?.body, '');
    assert.equal(s.seen[1]?.headers['content-type'], undefined);
    const temporary = await open.request({ url: `${s.origin}/temporary`, method: 'POST', body: 'payload', ...LIMITS });
    assert.equal(temporary.body.toString(), 'POST');
    assert.equal(s.seen[3]?.body, 'payload');
  });

  test('credentials stay with their origin and no cookie jar is kept', async () => {
    const other = await start((_req, res) => res.end('other'));
    const s = await start((req, res) => {
      if (req.url === '/same') res.writeHead(302, { Location: '/end', 'Set-Cookie': 'session=abc' }).end();
      else if (req.url === '/cross') res.writeHead(302, { Location: `${other.origin}/end` }).end();
      else res.end('end');
    });
    await open.request({ url: `${s.origin}/same`, headers: { authorization: 'Bearer t' }, ...LIMITS });
    assert.equal(s.seen[1]?.headers.authorization, 'Bearer t');
    assert.equal(s.seen[1]?.headers.cookie, undefined);
    await open.request({ url: `${s.origin}/cross`, headers: { authorization: 'Bearer t', 'x-keep': '1' }, ...LIMITS });
    assert.equal(other.seen[0]?.headers.authorization, undefined);
    assert.equal(other.seen[0]?.headers['x-keep'], '1');
  });
});

describe('GuardedHttpClient over TLS', () => {
  const cert = readFileSync(new URL('./fixtures/hooks-test.cert.pem', import.meta.url), 'utf8');
  const key = readFileSync(new URL('./fixtures/hooks-test.key.pem', import.meta.url), 'utf8');
  const resolve: Resolver = async () => [{ address: '127.0.0.1', family: 4 }];

  test('connects to the vetted address with SNI, certificate check and Host for the original name', async () => {
    const s = await listen(createTlsServer({ cert, key }), (_req, res) => res.end('secure'), 'https');
    const client = new GuardedHttpClient({ allowPrivate: false, allowAddresses: ['127.0.0.1'], resolve, ca: cert });
    const response = await client.request({ url: `https://hooks.switchboard.test:${s.port}/hook`, ...LIMITS });
    assert.equal(response.body.toString(), 'secure');
    assert.equal(s.seen[0]?.servername, 'hooks.switchboard.test');
    assert.equal(s.seen[0]?.headers.host, `hooks.switchboard.test:${s.port}`);
  });

  test('an untrusted certificate or a name it does not cover fails with connect', async () => {
    const s = await listen(createTlsServer({ cert, key }), (_req, res) => res.end('secure'), 'https');
    const untrusting = new GuardedHttpClient({ allowPrivate: false, allowAddresses: ['127.0.0.1'], resolve });
    assert.equal((await failure(untrusting.request({ url: `https://hooks.switchboard.test:${s.port}/`, ...LIMITS }))).reason, 'connect');
    const trusting = new GuardedHttpClient({ allowPrivate: false, allowAddresses: ['127.0.0.1'], resolve, ca: cert });
    assert.equal((await failure(trusting.request({ url: `https://other.switchboard.test:${s.port}/`, ...LIMITS }))).reason, 'connect');
    assert.equal(s.seen.length, 0);
  });
});
