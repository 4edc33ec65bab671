/**
 * Abuse limits against whole gateways: failed admin bearer checks per client address, sign-in
 * throttling that counts an IPv6 /64 as one address and slows a guessed account without locking its
 * owner out, and where webhooks may point (ports, and HTTPS for agent destinations). Client
 * addresses come from X-Forwarded-For (TRUST_PROXY=loopback), so one test can be many clients.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADMIN_TOKEN, describeEachMode, startTestGateway, type TestGateway } from '../support/gateway.ts';

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

    test('sign-in: an account guessed from many addresses makes each address\'s guesses cost more; the right password from a new address is never refused (issue 29)', async () => {
      const home = '203.0.113.70';
      const user = await signup(ctx.gw, home);
      // 25 wrong passwords from 5 addresses: past 20 the account is being guessed, and an address that
      // failed at it must wait before its next guess.
      const statuses: number[] = [];
      for (let a = 1; a <= 5; a++) for (let i = 1; i <= 5; i++) statuses.push((await login(ctx.gw, user.email, `guess ${a}.${i} password`, `192.0.2.${a}`)).status);
      assert.ok(statuses.every((s) => s === 401 || s === 429), statuses.join(','));
      assert.ok(statuses.filter((s) => s === 401).length >= 21, statuses.join(','));
      // Guessing on from the same addresses: each waits.
      for (let a = 1; a <= 5; a++) {
        const again = await login(ctx.gw, user.email, `guess ${a}.again password`, `192.0.2.${a}`);
        assert.equal(again.status, 429, `192.0.2.${a}`);
        const wait = Number(again.headers.get('retry-after'));
        assert.ok(wait >= 1 && wait <= 15 * 60, `a wait, not a lock-out: ${wait} s`);
        assert.match(((await again.json()) as { error: { message: string } }).error.message, /sign-in link by email/);
      }
      // Each new address is checked once (a guesser needs a fresh address per guess), then waits.
      for (let b = 1; b <= 3; b++) {
        assert.equal((await login(ctx.gw, user.email, `guess new ${b} password`, `198.51.100.${b}`)).status, 401);
        assert.equal((await login(ctx.gw, user.email, `guess new ${b}b password`, `198.51.100.${b}`)).status, 429);
      }
      // The owner, with the right password, from an address never seen before: in at once.
      const away = await login(ctx.gw, user.email, user.password, '198.51.100.77');
      assert.equal(away.status, 200, JSON.stringify(await away.json()));
      // From home too, even after a typo there (the account signed in from it).
      assert.equal((await login(ctx.gw, user.email, 'a typo password', home)).status, 401);
      assert.equal((await login(ctx.gw, user.email, user.password, home)).status, 200);
    });

    test('sign-in: one wrong guess every 30 s from rotating addresses, for an hour, never keeps the owner out (the clock is the service\'s argument)', async () => {
      const auth = ctx.gw.gateway.services.auth;
      const user = await signup(ctx.gw, '203.0.113.80');
      const client = (ip: string) => ({ ip, userAgent: 'test' });
      const outcome = (attempt: Promise<unknown>) =>
        attempt.then(
          () => 200,
          (error: { status?: number }) => error.status ?? 500,
        );
      let now = Date.now();
      for (let a = 1; a <= 5; a++) {
        for (let i = 1; i <= 5; i++) {
          now += 100;
          await outcome(auth.login(user.email, `guess ${a}.${i} password`, client(`192.0.2.${10 + a}`), now));
        }
      }
      let checkedGuesses = 0;
      for (let cycle = 0; cycle < 120; cycle++) {
        now += 30_000;
        const guess = await outcome(auth.login(user.email, `guess cycle ${cycle} password`, client(`192.0.2.${11 + (cycle % 5)}`), now));
        assert.ok(guess === 401 || guess === 429, String(guess));
        if (guess === 401) checkedGuesses += 1;
        // The owner shows up from a new address every ten minutes, right after a guess.
        if (cycle % 20 === 0) assert.equal(await outcome(auth.login(user.email, user.password, client(`198.51.100.${100 + cycle / 20}`), now + 1)), 200, `cycle ${cycle}`);
      }
      // Five addresses, an hour: each got a handful of its guesses checked, not one every 30 s.
      assert.ok(checkedGuesses <= 5 * 8, `${checkedGuesses} of 120 guesses were checked`);
    });

    test('sign-in: an unknown email is slowed the same way (the schedule tells nothing about who has an account)', async () => {
      const email = uniqueEmail();
      const known = await signup(ctx.gw, '203.0.113.90');
      for (const target of [email, known.email]) {
        for (let i = 1; i <= 20; i++) assert.equal((await login(ctx.gw, target, `guess ${i} password`, `192.0.2.${100 + i}`)).status, 401);
        assert.equal((await login(ctx.gw, target, 'guess 21 password', '192.0.2.101')).status, 429, target);
        assert.equal((await login(ctx.gw, target, 'guess 22 password', '192.0.2.200')).status, 401, target);
      }
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
