import assert from 'node:assert/strict';
import { test } from 'node:test';
import { pino } from 'pino';
import { OpenStreams } from '../../../src/http/open-streams.ts';
import type { AppError } from '../../../src/domain/errors.ts';

const quiet = pino({ level: 'silent' });

test('the re-check closes streams whose credential ended even when no revocation message came', async () => {
  const ended = { apiKeyIds: ['key_b'], sessionIds: ['ses_2'] };
  const asked: Array<[string[], string[]]> = [];
  const streams = new OpenStreams({
    maxPerUser: 10,
    logger: quiet,
    check: async (keys, sessions) => {
      asked.push([keys, sessions]);
      return ended;
    },
  });
  const closed: string[] = [];
  const lease = (name: string, keyId: string | undefined, sessionId: string | undefined) => {
    const l = streams.open({ userId: 'usr_1', keyId, sessionId }, { counted: true });
    l.onRevoke((reason) => closed.push(`${name}: ${reason}`));
    return l;
  };
  lease('a', 'key_a', undefined);
  lease('b', 'key_b', undefined);
  lease('c', undefined, 'ses_1');
  lease('d', undefined, 'ses_2');
  await streams.recheck();
  assert.deepEqual(asked, [[['key_a', 'key_b'], ['ses_1', 'ses_2']]]);
  assert.deepEqual(closed.sort(), [
    'b: the API key this stream was opened with has been revoked',
    'd: the session this stream was opened with has ended',
  ]);
  // A second message about the same key closes nothing twice.
  streams.revoke({ apiKeyIds: ['key_b'], sessionIds: [] });
  assert.equal(closed.length, 2);
  await streams.stop();
});

test('the per-user cap counts open counted streams, frees on release, and ignores uncounted ones', async () => {
  const streams = new OpenStreams({ maxPerUser: 2, logger: quiet, check: async () => ({ apiKeyIds: [], sessionIds: [] }) });
  const owner = { userId: 'usr_cap', keyId: 'key_1', sessionId: undefined };
  const first = streams.open(owner, { counted: true });
  streams.open(owner, { counted: true });
  streams.open(owner, { counted: false });
  assert.throws(
    () => streams.open(owner, { counted: true }),
    (error: AppError) => error.code === 'rate_limited' && error.status === 429 && error.retryAfter !== undefined,
  );
  streams.open({ ...owner, userId: 'usr_other' }, { counted: true });
  first.release();
  first.release();
  streams.open(owner, { counted: true });
  assert.throws(() => streams.open(owner, { counted: true }), { name: 'AppError' }, 'a double release frees one place only');
  await streams.stop();
});

test('a stream revoked before it says how to close is closed as soon as it does', async () => {
  const streams = new OpenStreams({ maxPerUser: 2, logger: quiet, check: async () => ({ apiKeyIds: [], sessionIds: [] }) });
  const lease = streams.open({ userId: 'u', keyId: 'k', sessionId: undefined }, { counted: false });
  streams.revoke({ apiKeyIds: ['k'], sessionIds: [] });
  let reason = '';
  lease.onRevoke((r) => {
    reason = r;
  });
  assert.match(reason, /revoked/);
  await streams.stop();
});

test('shutdown ends the streams that asked for it, once, and one that asks later at once; the others run on', async () => {
  const streams = new OpenStreams({ maxPerUser: 10, logger: quiet, check: async () => ({ apiKeyIds: [], sessionIds: [] }) });
  const ended: string[] = [];
  const events = streams.open({ userId: 'usr_1', keyId: 'key_a', sessionId: undefined }, { counted: true });
  events.onShutdown(() => ended.push('events'));
  streams.open({ userId: 'usr_1', keyId: 'key_a', sessionId: undefined }, { counted: false });
  streams.shutdown();
  streams.shutdown();
  assert.deepEqual(ended, ['events']);
  const late = streams.open({ userId: 'usr_2', keyId: 'key_b', sessionId: undefined }, { counted: true });
  late.onShutdown(() => ended.push('late'));
  assert.deepEqual(ended, ['events', 'late']);
  await streams.stop();
});
