/**
 * Abuse limits against whole gateways: failed admin bearer checks per client address, sign-in
 * throttling that counts an IPv6 /64 as one address and slows a guessed account without locking its
 * owner out, and where webhooks may point (ports, and HTTPS for agent destinations). Client
 * addresses come from X-Forwarded-For (TRUST_PROXY=loopback), so one test can be many clients.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADMIN_TOKEN, describeEachMode, startTestGateway, type TestGateway } from '../support/gateway.ts';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let counter = 0;
const uniqueEmail = () => `limits.${process.pid}.${Date.now()}.${counter++}@example.com`;

function adminAs(gw: TestGateway, token: string, ip: string): Promise<Response> {
  return fetch(`${gw.url}/admin/v1/users?limit=1`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': ip } });
}

function login(gw: TestGateway, email: string, password: string, ip: string): Promise<Response> {
  return fetch(`${gw.url}/api/v1/auth/login`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify({ email, password }) });
}

async function signup(gw: TestGateway, ip: string): Promise<{ email: string; password: string }> {
  const email = uniqueEmail();
  const password = 'correct horse battery';
  const res = await fetch(`${gw.url}/api/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': ip }, body: JSON.stringify({ email, password }) });
  assert.equal(res.status, 200);
  return { email, password };
}

describeEachMode(
  'abuse limits: admin tokens and sign-in',
  (ctx) => {
    test('failed admin bearer checks are limited per client address; past the limit even the right token waits there, not elsewhere', async () => {
      const attacker = '198.51.100.20';
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await adminAs(ctx.gw, `wrong-token-${i}`, attacker)).status);
      assert.deepEqual(statuses, Array(10).fill(401));
      const limited = await adminAs(ctx.gw, 'wrong-again', attacker);
      assert.equal(limited.status, 429);
      assert.ok(Number(limited.headers.get('retry-after')) > 0, 'Retry-After is sent');
      const body = (await limited.json()) as { code: number; error: { code: string } };
      assert.deepEqual([body.code, body.error.code], [429, 'rate_limited']);
      assert.equal((await adminAs(ctx.gw, ADMIN_TOKEN, attacker)).status, 429, 'no more tries from there, the right one included');
      assert.equal((await adminAs(ctx.gw, ADMIN_TOKEN, '198.51.100.21')).status, 200, 'the operator elsewhere is not affected');
    });

    test('an IPv6 /64 is one client address for the admin limit', async () => {
      for (let i = 1; i <= 10; i++) assert.equal((await adminAs(ctx.gw, 'guess', `2001:db8:5:6::${i.toString(16)}`)).status, 401);
      assert.equal((await adminAs(ctx.gw, ADMIN_TOKEN, '2001:db8:5:6:ffff:ffff:ffff:fffe')).status, 429, 'another address of the same /64');
      assert.equal((await adminAs(ctx.gw, ADMIN_TOKEN, '2001:db8:5:7::1')).status, 200, 'the next /64 is another client');
    });

    test('sign-in: wrong passwords from many addresses of one IPv6 /64 slow down like one address', async () => {
      const user = await signup(ctx.gw, '203.0.113.60');
      const statuses = [];
      for (let i = 1; i <= 10; i++) statuses.push((await login(ctx.gw, user.email, `guess ${i} password`, `2001:db8:aa:bb::${i}`)).status);
      assert.ok(statuses.slice(0, 5).every((s) => s === 401), statuses.join(','));
      assert.ok(statuses.slice(5).includes(429), `the /64 waits after five failures: ${statuses.join(',')}`);
    });

    test('sign-in: an account guessed from many addresses slows new addresses down, never its owner\'s, and never locks', async () => {
      const home = '203.0.113.70';
      const user = await signup(ctx.gw, home);
      // Twenty failures from twenty addresses: each is within every per-address limit.
      for (let i = 1; i <= 20; i++) assert.equal((await login(ctx.gw, user.email, `guess ${i} password`, `192.0.2.${i}`)).status, 401);
      const slowed = await login(ctx.gw, user.email, 'guess 21 password', '192.0.2.21');
      assert.equal(slowed.status, 429);
      const wait = Number(slowed.headers.get('retry-after'));
      assert.ok(wait >= 1 && wait <= 30, `a short wait, not a lock-out: ${wait} s`);
      // The owner, from the address they signed in from before: at once.
      assert.equal((await login(ctx.gw, user.email, user.password, home)).status, 200);
      // The owner from a new address: slowed like anyone new, then in.
      const away = await login(ctx.gw, user.email, user.password, '198.51.100.77');
      if (away.status === 429) await sleep(Number(away.headers.get('retry-after')) * 1000 + 100);
      else assert.equal(away.status, 200);
      assert.equal((await login(ctx.gw, user.email, user.password, '198.51.100.77')).status, 200);
    });

    test('sign-in: an unknown email is slowed the same way (the limit tells nothing about who has an account)', async () => {
      const email = uniqueEmail();
      for (let i = 1; i <= 20; i++) assert.equal((await login(ctx.gw, email, `guess ${i} password`, `192.0.2.${100 + i}`)).status, 401);
      assert.equal((await login(ctx.gw, email, 'guess 21 password', '192.0.2.200')).status, 429);
    });
  },
  { env: { TRUST_PROXY: 'loopback' } },
);

test('webhooks may name ports 443 and 80 only by default, and private addresses do not lift HTTPS for agent destinations', async () => {
  // The harness allows any port and plain http; this gateway keeps the defaults (private addresses still allowed).
  const gw = await startTestGateway('embedded', { env: { SWITCHBOARD_WEBHOOK_PORTS: '', SWITCHBOARD_ALLOW_HTTP_WEBHOOKS: '0' } });
  try {
    const { key } = await gw.createUser(1000);
    const create = (webhook: string) => gw.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'x' }, webhook });
    for (const webhook of ['https://hooks.example.com:8443/done', 'http://127.0.0.1:9000/done', 'https://hooks.example.com:22/done']) {
      const res = await create(webhook);
      assert.equal(res.status, 400, webhook);
      const error = (res.body as { error: { param: string; message: string } }).error;
      assert.equal(error.param, 'webhook');
      assert.match(error.message, /port \d+ is not allowed/);
    }
    assert.equal((await create('https://hooks.example.com/done')).status, 200);
    assert.equal((await create('http://hooks.example.com:80/done')).status, 200);

    const destination = (url: string) => gw.api(key, 'POST', '/api/v1/agent/webhooks', { url, eventTypes: ['*'], scope: 'user' });
    const plain = await destination('http://127.0.0.1/hooks');
    assert.equal(plain.status, 400, 'plain http, although private addresses are allowed');
    assert.match((plain.body as { error: { message: string } }).error.message, /HTTPS/);
    const port = await destination('https://127.0.0.1:8443/hooks');
    assert.equal(port.status, 400);
    assert.match((port.body as { error: { message: string } }).error.message, /port 8443 is not allowed/);
    assert.equal((await destination('https://127.0.0.1/hooks')).status, 200);
  } finally {
    await gw.close();
  }

  const widened = await startTestGateway('embedded', { env: { SWITCHBOARD_WEBHOOK_PORTS: '443,8443', SWITCHBOARD_ALLOW_HTTP_WEBHOOKS: '0' } });
  try {
    const { key } = await widened.createUser(1000);
    const res = await widened.api(key, 'POST', '/api/v1/generation/create', { model: 'z-image-turbo', input: { prompt: 'x' }, webhook: 'https://hooks.example.com:8443/done' });
    assert.equal(res.status, 200, 'the operator allowed 8443');
  } finally {
    await widened.close();
  }
});
