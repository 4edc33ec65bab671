import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { startTestGateway, type TestGateway } from '../support/gateway.ts';

// Issue 29, item 13: 10,050 idle connections from one machine held the global cap of 10,000 and
// every other client met ECONNRESET; an early 401 kept its socket for the full request time-out.

interface RawAnswer {
  /** The status line and headers, lower-cased names; undefined when the server closed without a byte. */
  status: number | undefined;
  headers: Record<string, string>;
}

function open(port: number, localAddress: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port, localAddress });
    socket.once('connect', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Sends `head` (and what `then` writes after it) and reads the answer's head, or sees the close. */
function exchange(socket: Socket, head: string): Promise<RawAnswer> {
  return new Promise((resolve) => {
    let text = '';
    const done = () => {
      socket.off('data', onData);
      const [statusLine = '', ...lines] = text.split('\r\n\r\n')[0]?.split('\r\n') ?? [];
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const status = /^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1];
      resolve({ status: status === undefined ? undefined : Number(status), headers });
    };
    const onData = (chunk: Buffer) => {
      text += chunk.toString('latin1');
      if (text.includes('\r\n\r\n')) done();
    };
    socket.on('data', onData);
    socket.once('close', done);
    // A write to a socket the server refused fails; the close tells the rest.
    socket.on('error', () => {});
    socket.write(head);
  });
}

function closed(socket: Socket): Promise<void> {
  return new Promise((resolve) => {
    if (socket.destroyed) resolve();
    else socket.once('close', () => resolve());
  });
}

const healthz = 'GET /healthz HTTP/1.1\r\nHost: gateway\r\n\r\n';

describe('connections per address', () => {
  const cap = 4;
  let gw: TestGateway;
  let port: number;
  before(async () => {
    gw = await startTestGateway('embedded', { env: { SWITCHBOARD_MAX_CONNECTIONS_PER_ADDRESS: String(cap) } });
    port = Number(new URL(gw.url).port);
  });
  after(async () => {
    await gw?.close();
  });

  test('past the cap an address is refused at accept; another address still connects; a closed connection frees its slot', async () => {
    const held: Socket[] = [];
    try {
      for (let i = 0; i < cap; i++) {
        const socket = await open(port, '127.0.0.1');
        held.push(socket);
        // Answered: the server has counted it.
        assert.equal((await exchange(socket, healthz)).status, 200);
      }
      const excess = await open(port, '127.0.0.1');
      const refused = await exchange(excess, healthz);
      assert.equal(refused.status, undefined, 'the connection past the cap is closed without an answer');
      await closed(excess);

      const other = await open(port, '127.0.0.2');
      assert.equal((await exchange(other, healthz)).status, 200, 'another address is not held up by the first one');
      other.destroy();

      // The server counts the close when it sees it: a new connection is tried until then.
      held.shift()?.destroy();
      let again: RawAnswer | undefined;
      for (let attempt = 0; attempt < 50 && again?.status !== 200; attempt++) {
        if (attempt > 0) await sleep(50);
        const socket = await open(port, '127.0.0.1');
        again = await exchange(socket, healthz);
        socket.destroy();
      }
      assert.equal(again?.status, 200, 'a slot freed by a close is taken again');
    } finally {
      for (const socket of held) socket.destroy();
    }
  });
});

describe('an answer before the body', () => {
  let gw: TestGateway;
  let port: number;
  let key: string;
  before(async () => {
    gw = await startTestGateway('embedded');
    port = Number(new URL(gw.url).port);
    ({ key } = await gw.createUser(500));
    // The chat lane takes a key it has seen: one chat puts it there.
    assert.equal((await gw.api(key, 'POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', max_tokens: 5, messages: [{ role: 'user', content: 'hi' }] })).status, 200);
  });
  after(async () => {
    await gw?.close();
  });

  const cases: Array<{ name: string; head: () => string; status: number }> = [
    {
      name: 'an early 401 (no key, a body still coming)',
      head: () => 'POST /api/v1/generation/create HTTP/1.1\r\nHost: gateway\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n{"model":',
      status: 401,
    },
    {
      name: 'a 413 on the Fastify path (Content-Length over the limit)',
      head: () => `POST /api/v1/generation/create HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{"model":`,
      status: 413,
    },
    {
      name: 'a 413 on the chat lane',
      head: () => `POST /api/v1/chat/completions HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${64 * 1024 * 1024}\r\n\r\n{"model":`,
      status: 413,
    },
  ];
  for (const { name, head, status } of cases) {
    test(`${name}: answered with Connection: close, and the socket goes while the client trickles the rest`, async () => {
      const socket = await open(port, '127.0.0.1');
      const trickle = setInterval(() => {
        if (!socket.destroyed) socket.write(' ');
      }, 100);
      try {
        const answer = await exchange(socket, head());
        assert.equal(answer.status, status);
        assert.equal(answer.headers.connection, 'close');
        await closed(socket);
      } finally {
        clearInterval(trickle);
        socket.destroy();
      }
    });
  }

  test('an error answer to a request without a body keeps its connection', async () => {
    const socket = await open(port, '127.0.0.1');
    try {
      const answer = await exchange(socket, 'GET /api/v1/user/me HTTP/1.1\r\nHost: gateway\r\n\r\n');
      assert.equal(answer.status, 401);
      assert.equal(answer.headers.connection, 'keep-alive');
    } finally {
      socket.destroy();
    }
  });
});
