/**
 * Provider key tests (issue 32 item 7), each style against its fake on 127.0.0.1: the right key
 * passes with the call named and its latency measured; a wrong key is `auth`; a spent balance is
 * `quota`; a 5xx, a closed port and a silent upstream past the deadline are `transient`; the caller's
 * signal ends the call; and neither the key nor a vendor's echo of it ever reaches the result.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { checkProviderKey, createKeyCheckClient, type KeyCheckResult, type KeyCheckTarget } from '../../../src/providers/key-check.ts';
import { AnthropicMessagesFake } from '../../fakes/anthropic-messages.fake.ts';
import { type FalFake, startFalFake } from '../../fakes/media/fal.fake.ts';
import { type GoogleFake, startGoogleFake } from '../../fakes/media/google.fake.ts';
import { type KieFake, startKieFake } from '../../fakes/media/kie.fake.ts';
import { type OpenAiFake, startOpenAiFake } from '../../fakes/media/openai.fake.ts';
import { type ReplicateFake, startReplicateFake } from '../../fakes/media/replicate.fake.ts';
import { type SwitchboardFake, startSwitchboardFake } from '../../fakes/media/switchboard.fake.ts';
import { OpenAiChatFake } from '../../fakes/openai-chat.fake.ts';

const http = createKeyCheckClient();
const deps = { http };

let openaiChat: OpenAiChatFake;
let anthropic: AnthropicMessagesFake;
let openaiMedia: OpenAiFake;
let kie: KieFake;
let fal: FalFake;
let replicate: ReplicateFake;
let switchboard: SwitchboardFake;
let google: GoogleFake;

/** A bare server for answers no fake scripts on a GET (a 5xx, silence, an echoed key). */
async function stub(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; server: Server }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

async function closeStub(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** A port nothing listens on: one that was just closed. */
async function closedPort(): Promise<string> {
  const { url, server } = await stub(() => undefined);
  await closeStub(server);
  return url;
}

function target(type: string, baseUrl: string | undefined, secret: string | undefined, options: Record<string, unknown> = {}, timeoutMs = 2_000): KeyCheckTarget {
  return { type, baseUrl, secret, options, timeoutMs };
}

function assertNoSecret(result: KeyCheckResult, ...secrets: string[]): void {
  const text = JSON.stringify(result);
  for (const secret of secrets) assert.ok(!text.includes(secret), `the result holds a secret: ${text}`);
}

interface Style {
  name: string;
  type: string;
  call: string;
  baseUrl(): string;
  secret(): string;
  options?: Record<string, unknown>;
}

const STYLES: Style[] = [
  { name: 'openai (chat fake)', type: 'openai', call: 'GET /v1/models', baseUrl: () => openaiChat.baseUrl, secret: () => openaiChat.apiKey },
  { name: 'openai (media fake)', type: 'openai', call: 'GET /v1/models', baseUrl: () => `${openaiMedia.url}/v1`, secret: () => openaiMedia.apiKey },
  { name: 'anthropic', type: 'anthropic', call: 'GET /v1/models', baseUrl: () => anthropic.baseUrl, secret: () => anthropic.apiKey },
  { name: 'kie', type: 'kie', call: 'GET /api/v1/chat/credit', baseUrl: () => kie.url, secret: () => kie.apiKey },
  { name: 'fal', type: 'fal', call: 'GET /v1/models/pricing', baseUrl: () => fal.url, secret: () => fal.apiKey },
  { name: 'replicate', type: 'replicate', call: 'GET /v1/account', baseUrl: () => `${replicate.url}/v1`, secret: () => replicate.apiToken },
  { name: 'switchboard', type: 'switchboard', call: 'GET /api/v1/user/me', baseUrl: () => `${switchboard.url}/api/v1`, secret: () => switchboard.apiKey },
  { name: 'google', type: 'google', call: 'GET /v1beta/models', baseUrl: () => google.url, secret: () => google.apiKey },
];

before(async () => {
  [openaiChat, anthropic, openaiMedia, kie, fal, replicate, switchboard, google] = await Promise.all([
    OpenAiChatFake.start(),
    AnthropicMessagesFake.start(),
    startOpenAiFake(),
    startKieFake(),
    startFalFake(),
    startReplicateFake(),
    startSwitchboardFake(),
    startGoogleFake(),
  ]);
});

after(async () => {
  await Promise.all([openaiChat, anthropic, openaiMedia, kie, fal, replicate, switchboard, google].map((fake) => fake.close()));
  await http.close();
});

for (const style of STYLES) {
  describe(`key test: ${style.name}`, () => {
    test('the right key passes, with the call named and its latency measured', async () => {
      const result = await checkProviderKey(target(style.type, style.baseUrl(), style.secret(), style.options), deps);
      assert.equal(result.ok, true, JSON.stringify(result));
      assert.equal(result.call, style.call);
      assert.equal(result.status, 200);
      assert.equal(typeof result.latencyMs, 'number');
      assert.ok(result.latencyMs >= 0 && result.latencyMs < 2_000);
      assert.equal(result.error, undefined);
      assert.equal(result.kind, undefined);
      assertNoSecret(result, style.secret());
    });

    test('a wrong key is auth, in words without the key', async () => {
      const wrong = `wrong-key-${style.type}-0123456789`;
      const result = await checkProviderKey(target(style.type, style.baseUrl(), wrong, style.options), deps);
      assert.equal(result.ok, false);
      assert.equal(result.kind, 'auth', JSON.stringify(result));
      assert.equal(result.call, style.call);
      assert.match(result.error ?? '', /^the upstream refused the key: /u);
      assert.ok((result.error ?? '').length <= 200);
      assertNoSecret(result, wrong, style.secret());
    });

    test('a 5xx is transient, with its status', async () => {
      const { url, server } = await stub((_req, res) => res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":{"message":"overloaded"}}'));
      try {
        const result = await checkProviderKey(target(style.type, url, style.secret(), style.options), deps);
        assert.equal(result.ok, false);
        assert.equal(result.kind, 'transient', JSON.stringify(result));
        assert.equal(result.status, 503);
        assertNoSecret(result, style.secret());
      } finally {
        await closeStub(server);
      }
    });

    test('a closed port is transient', async () => {
      const result = await checkProviderKey(target(style.type, await closedPort(), style.secret(), style.options), deps);
      assert.equal(result.ok, false);
      assert.equal(result.kind, 'transient', JSON.stringify(result));
      assert.equal(result.status, undefined);
      assertNoSecret(result, style.secret());
    });

    test('an upstream silent past the deadline is transient, ended at the deadline', async () => {
      const { url, server } = await stub(() => undefined);
      try {
        const result = await checkProviderKey(target(style.type, url, style.secret(), style.options, 150), deps);
        assert.equal(result.ok, false);
        assert.equal(result.kind, 'transient', JSON.stringify(result));
        assert.match(result.error ?? '', /no answer within 150 ms/u);
        assert.ok(result.latencyMs >= 140 && result.latencyMs < 1_500, `latency ${result.latencyMs}`);
      } finally {
        await closeStub(server);
      }
    });
  });
}

describe('key test: what each vendor says beyond the key', () => {
  test('openai: another key of the account passes; a key whose calls fail is transient with that status', async () => {
    openaiChat.moreKeys.add('sk-fake-second-key');
    openaiChat.failingKeys.set('sk-fake-failing-key', 502);
    openaiChat.moreKeys.add('sk-fake-failing-key');
    const second = await checkProviderKey(target('openai', openaiChat.baseUrl, 'sk-fake-second-key'), deps);
    assert.equal(second.ok, true);
    const failing = await checkProviderKey(target('openai', openaiChat.baseUrl, 'sk-fake-failing-key'), deps);
    assert.equal(failing.ok, false);
    assert.equal(failing.kind, 'transient');
    assert.equal(failing.status, 502);
    openaiChat.moreKeys.delete('sk-fake-second-key');
    const revoked = await checkProviderKey(target('openai', openaiChat.baseUrl, 'sk-fake-second-key'), deps);
    assert.equal(revoked.kind, 'auth');
    assert.equal(revoked.status, 401);
  });

  test('openai: a spent quota (429 insufficient_quota) is quota, a plain 429 is rate_limited', async () => {
    openaiChat.enqueue({ error: { status: 429, type: 'insufficient_quota', message: 'You exceeded your current quota, please check your plan and billing details.' } });
    const spent = await checkProviderKey(target('openai', openaiChat.baseUrl, openaiChat.apiKey), deps);
    assert.equal(spent.kind, 'quota');
    openaiChat.enqueue({ error: { status: 429, message: 'Rate limit reached for requests', retryAfter: 2 } });
    const limited = await checkProviderKey(target('openai', openaiChat.baseUrl, openaiChat.apiKey), deps);
    assert.equal(limited.kind, 'rate_limited');
    assert.equal(limited.status, 429);
  });

  test('openai: the call is the unauthenticated model list when no key is set (a vLLM next door)', async () => {
    const result = await checkProviderKey(target('openai', openaiChat.baseUrl, undefined), deps);
    assert.equal(result.kind, 'auth');
    const sent = openaiChat.requests.at(-1);
    assert.equal(sent?.path, '/v1/models');
    assert.equal(sent?.headers.authorization, undefined);
  });

  test('anthropic: the headers are the Messages adapter\'s (x-api-key, anthropic-version, beta, extra headers)', async () => {
    const result = await checkProviderKey(target('anthropic', anthropic.baseUrl, anthropic.apiKey, { version: '2023-06-01', beta: 'fake-beta-1', headers: { 'x-extra': 'yes' } }), deps);
    assert.equal(result.ok, true);
    const sent = anthropic.requests.at(-1);
    assert.equal(sent?.path, '/v1/models?limit=1');
    assert.equal(sent?.headers['x-api-key'], anthropic.apiKey);
    assert.equal(sent?.headers['anthropic-version'], '2023-06-01');
    assert.equal(sent?.headers['anthropic-beta'], 'fake-beta-1');
    assert.equal(sent?.headers['x-extra'], 'yes');
    anthropic.enqueue({ error: { status: 529 } });
    const overloaded = await checkProviderKey(target('anthropic', anthropic.baseUrl, anthropic.apiKey), deps);
    assert.equal(overloaded.kind, 'transient');
    assert.equal(overloaded.status, 529);
  });

  test('kie: no credits left is quota', async () => {
    kie.credits = 0;
    try {
      const result = await checkProviderKey(target('kie', kie.url, kie.apiKey), deps);
      assert.equal(result.ok, false);
      assert.equal(result.kind, 'quota');
      assert.match(result.error ?? '', /0 credits/u);
    } finally {
      kie.credits = 1000;
    }
  });

  test('switchboard: a balance of zero is quota', async () => {
    switchboard.balance = 0;
    try {
      const result = await checkProviderKey(target('switchboard', switchboard.url, switchboard.apiKey), deps);
      assert.equal(result.kind, 'quota');
      assert.equal(result.call, 'GET /api/v1/user/me');
    } finally {
      switchboard.balance = 10_000;
    }
  });

  test('fal: an account locked for its exhausted balance is quota; one locked by fal is auth', async () => {
    fal.lockedReason = 'Exhausted balance. Top up your balance at fal.ai/dashboard/billing';
    try {
      const spent = await checkProviderKey(target('fal', fal.url, fal.apiKey), deps);
      assert.equal(spent.kind, 'quota');
      assert.equal(spent.status, 403);
      fal.lockedReason = 'Admin lock. Please contact support@fal.ai';
      const locked = await checkProviderKey(target('fal', fal.url, fal.apiKey), deps);
      assert.equal(locked.kind, 'auth');
    } finally {
      fal.lockedReason = undefined;
    }
    const sent = fal.requests.at(-1);
    assert.equal(sent?.query.endpoint_id, 'fal-ai/flux/dev');
    assert.equal(sent?.headers.authorization, `Key ${fal.apiKey}`);
  });

  test('fal: the queue host is tested on the Platform API host; option platformUrl names it outright', async () => {
    const result = await checkProviderKey(target('fal', 'http://127.0.0.1:1/queue', fal.apiKey, { platformUrl: `${fal.url}/v1` }), deps);
    assert.equal(result.ok, true);
  });

  test('google: a bad key is 400 API_KEY_INVALID, counted as auth; option apiVersion is followed', async () => {
    const bad = await checkProviderKey(target('google', google.url, 'AIzaWrongKey0123456789'), deps);
    assert.equal(bad.kind, 'auth');
    assert.equal(bad.status, 400);
    const odd = await checkProviderKey(target('google', google.url, google.apiKey, { apiVersion: '../x' }), deps);
    assert.equal(odd.ok, false);
    assert.equal(odd.kind, undefined);
    assert.equal(google.requests.at(-1)?.path, '/v1beta/models');
  });

  test('media styles without a key do not call and say so', async () => {
    const before = kie.requests.length;
    const result = await checkProviderKey(target('kie', kie.url, undefined), deps);
    assert.equal(result.ok, false);
    assert.equal(result.kind, 'auth');
    assert.match(result.error ?? '', /no API key is set/u);
    assert.equal(kie.requests.length, before);
  });
});

describe('key test: what never depends on a vendor', () => {
  test('local passes without a call', async () => {
    const result = await checkProviderKey(target('local', undefined, undefined), deps);
    assert.deepEqual(result, { ok: true, latencyMs: 0, call: 'none (the local provider has no upstream)' });
  });

  test('an unknown type fails without a health kind', async () => {
    const result = await checkProviderKey(target('nosuch', 'http://127.0.0.1:1', 'k'), deps);
    assert.equal(result.ok, false);
    assert.equal(result.kind, undefined);
    assert.match(result.error ?? '', /no key test for provider type "nosuch"/u);
  });

  test('an upstream that echoes the key, whole or masked, has it cut from the words', async () => {
    const secret = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123';
    const { url, server } = await stub((_req, res) =>
      res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Incorrect API key provided: ${secret} (also sk-proj-********************0123). ${'x'.repeat(400)}`, type: 'invalid_request_error' } })),
    );
    try {
      const result = await checkProviderKey(target('openai', `${url}/v1`, secret), deps);
      assert.equal(result.kind, 'auth');
      assertNoSecret(result, secret, '********');
      assert.ok((result.error ?? '').length <= 200);
      assert.match(result.error ?? '', /\[redacted\]/u);
    } finally {
      await closeStub(server);
    }
  });

  test('the caller\'s signal ends the call, which then says nothing about the upstream', async () => {
    const { url, server } = await stub(() => undefined);
    try {
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 50);
      const result = await checkProviderKey(target('replicate', url, 'r8_whatever_token', {}, 5_000), deps, controller.signal);
      assert.equal(result.ok, false);
      assert.equal(result.kind, undefined);
      assert.match(result.error ?? '', /cancelled by the caller/u);
      assert.ok(result.latencyMs < 2_000);
    } finally {
      await closeStub(server);
    }
  });
});
