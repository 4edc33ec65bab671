import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { type SwitchboardFake, startSwitchboardFake } from '../../fakes/media/switchboard.fake.ts';
import { CallbackReceiver, download, isMp3, makeJob, pollUntilDone, sleep } from './helpers.ts';

let fake: SwitchboardFake;
let rx: CallbackReceiver;
const providers: MediaProvider[] = [];

function upstream(options: Record<string, unknown> = {}, timeoutMs = 2_000, baseUrl = fake.url, apiKey = fake.apiKey): MediaProvider {
  const p = createMediaProvider('sb-peer', { type: 'switchboard', baseUrl, apiKey, timeoutMs, concurrency: 4, options: { pollIntervalMs: 10, retryPollMs: 25, ...options } });
  providers.push(p);
  return p;
}

function job(model: string, input: Record<string, unknown>): MediaJob {
  const made = makeJob(model, input);
  return { ...made, callbackUrl: rx.urlFor(made.attemptId) };
}

before(async () => {
  [fake, rx] = await Promise.all([startSwitchboardFake(), new CallbackReceiver().listen()]);
});

after(async () => {
  await Promise.all([...providers.map((p) => p.close?.()), fake.close(), rx.close()]);
});

describe('switchboard upstream', () => {
  test('the input goes verbatim with the attempt id as Idempotency-Key; files come back typed', async () => {
    const p = upstream();
    const j = job('z-image-turbo', { prompt: 'a harbour', size: '3:2' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const sent = fake.requestsTo('POST', '/api/v1/generation/create').at(-1);
    assert.equal(sent?.headers.authorization, 'Bearer sb_test_key');
    assert.equal(sent?.headers['idempotency-key'], j.attemptId);
    assert.deepEqual(sent?.json, { model: 'z-image-turbo', input: { prompt: 'a harbour', size: '3:2' }, webhook: j.callbackUrl });
    const { outcome } = await pollUntilDone(p, j, submitted.upstreamId);
    assert.deepEqual(outcome, { kind: 'completed', result: { files: [{ fileType: 'image', url: `${fake.url}/files/${submitted.upstreamId}/0.png` }], output: null } });
    assert.equal(fake.requestsTo('GET', `/api/v1/task/status/${submitted.upstreamId}`).length >= 1, true);
  });

  test('music keeps the upstream tracks; a data action is output only', async () => {
    const p = upstream();
    const song = job('suno', { gptDescriptionPrompt: 'a song about tea' });
    const s1 = await p.submit(song);
    assert.ok(s1.kind === 'accepted');
    const { outcome } = await pollUntilDone(p, song, s1.upstreamId);
    assert.ok(outcome.kind === 'completed');
    assert.deepEqual(outcome.result.files.map((f) => f.fileType), ['music', 'music']);
    assert.deepEqual(outcome.result.output, {
      tracks: [
        { title: 'Song 1', duration: 1, lyrics: 'la la', tags: 'pop', coverImageUrls: [`${fake.url}/files/${s1.upstreamId}/cover-0.jpg`], audioId: `${s1.upstreamId}_0` },
        { title: 'Song 2', duration: 1, lyrics: 'la la', tags: 'pop', coverImageUrls: [`${fake.url}/files/${s1.upstreamId}/cover-1.jpg`], audioId: `${s1.upstreamId}_1` },
      ],
    });
    assert.ok(isMp3((await download(outcome.result.files[0]?.url ?? '')).body));
    const lyrics = job('suno', { action: 'lyrics', prompt: 'rain' });
    const s2 = await p.submit(lyrics);
    assert.ok(s2.kind === 'accepted');
    assert.deepEqual((await pollUntilDone(p, lyrics, s2.upstreamId)).outcome, {
      kind: 'completed',
      result: { files: [], output: { lyrics: [{ title: 'Rain', text: '[Verse]\nrain rain' }] } },
    });
  });

  test('a baseUrl given with /api/v1 works the same', async () => {
    const outcome = await upstream({}, 2_000, `${fake.url}/api/v1`).submit(job('z-image-turbo', { prompt: 'p' }));
    assert.equal(outcome.kind, 'accepted');
  });
});

describe('switchboard errors', () => {
  test('invalid input is not retryable; insufficient balance and a wrong key are', async () => {
    fake.script({ failOnSubmit: { status: 400, body: { code: 400, error: { message: 'input.size must be one of …', type: 'InvalidInput', code: 'invalid_input' } } } });
    assert.deepEqual(await upstream().submit(job('z-image-turbo', { prompt: 'p' })), {
      kind: 'failed',
      error: { message: 'switchboard create: 400 invalid_input input.size must be one of …', retryable: false, status: 400, code: 'invalid_request' },
    });
    fake.script({ failOnSubmit: { status: 402, body: { code: 402, error: { message: 'Insufficient balance.', type: 'PaymentRequired', code: 'insufficient_balance' } } } });
    const broke = await upstream().submit(job('z-image-turbo', { prompt: 'p' }));
    assert.ok(broke.kind === 'failed');
    assert.deepEqual([broke.error.retryable, broke.error.code], [true, 'credits']);
    const denied = await upstream({}, 2_000, fake.url, 'sb_wrong').submit(job('z-image-turbo', { prompt: 'p' }));
    assert.ok(denied.kind === 'failed');
    assert.deepEqual([denied.error.retryable, denied.error.code, denied.error.status], [true, 'auth', 401]);
  });

  test('the same attempt still being created upstream is unknown, not failed', async () => {
    fake.script({ failOnSubmit: { status: 409, body: { code: 409, error: { message: 'in progress', type: 'Conflict', code: 'idempotency_in_progress' } } } });
    const outcome = await upstream().submit(job('z-image-turbo', { prompt: 'p' }));
    assert.ok(outcome.kind === 'unknown');
    assert.equal(outcome.error.status, 409);
  });

  test('a failed upstream task is a retryable generation failure with its message', async () => {
    const p = upstream();
    fake.script({ acceptThenFail: { message: 'All providers failed' }, completeAfterMs: 10 });
    const j = job('z-image-turbo', { prompt: 'p' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.deepEqual((await pollUntilDone(p, j, submitted.upstreamId)).outcome, {
      kind: 'failed',
      error: { message: 'switchboard: All providers failed', retryable: true, code: 'generation_failed' },
    });
  });
});

describe('switchboard reconcile and webhooks', () => {
  test('a hung create is unknown; reconcile re-sends with the same key and gets the same task, charged once', async () => {
    const p = upstream({ idempotentCreate: true }, 250);
    fake.script({ hangOnSubmit: true, noCallback: true });
    const j = job('z-image-turbo', { prompt: 'lost answer' });
    const charges = fake.charges;
    const outcome = await p.submit(j);
    assert.ok(outcome.kind === 'unknown');
    assert.equal(outcome.error.code, 'timeout');
    const created = [...fake.jobs.values()].find((t) => t.meta.input.prompt === 'lost answer');
    assert.ok(created);
    const slow = upstream({ idempotentCreate: true });
    const reconciled = await slow.reconcile(j);
    assert.deepEqual(reconciled, { kind: 'found', upstreamId: created.id });
    assert.equal(fake.charges, charges + 1);
    const creates = fake.requestsTo('POST', '/api/v1/generation/create').filter((r) => r.headers['idempotency-key'] === j.attemptId);
    assert.equal(creates.length, 2);
    assert.equal((await pollUntilDone(slow, j, created.id)).outcome.kind, 'completed');
  });

  test('reconcile of a create that was refused finds nothing', async () => {
    const p = upstream({ idempotentCreate: true });
    fake.script({ failOnSubmit: { status: 400, body: { code: 400, error: { message: 'bad', type: 'InvalidInput', code: 'invalid_input' } } } });
    const j = job('z-image-turbo', { prompt: 'refused' });
    assert.equal((await p.submit(j)).kind, 'failed');
    assert.deepEqual(await p.reconcile(j), { kind: 'absent' });
  });

  test('signed webhooks carry the task; a bad signature is refused; without a secret only the id', async () => {
    const p = upstream({ webhookSecret: fake.webhookSecret });
    const j = job('z-image-turbo', { prompt: 'hook' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    const [hook] = await rx.waitFor(`/callbacks/${j.attemptId}`);
    assert.ok(hook);
    assert.deepEqual(p.parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody }), {
      upstreamId: submitted.upstreamId,
      outcome: { kind: 'completed', result: { files: [{ fileType: 'image', url: `${fake.url}/files/${submitted.upstreamId}/0.png` }], output: null } },
    });
    const forged = Buffer.from(hook.rawBody.toString().replace('"finished"', '"failed"'));
    assert.equal(p.parseCallback?.({ headers: hook.headers, rawBody: forged }), undefined);
    assert.equal(upstream({ webhookSecret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }).parseCallback?.({ headers: hook.headers, rawBody: hook.rawBody }), undefined);
    assert.deepEqual(upstream().parseCallback?.({ headers: {}, rawBody: hook.rawBody }), { upstreamId: submitted.upstreamId });
    // A bare task and an event envelope are read too.
    const task = (JSON.parse(hook.rawBody.toString()) as { data: Record<string, unknown> }).data;
    for (const shape of [task, { type: 'task.finished', timestamp: new Date().toISOString(), data: task }]) {
      const raw = JSON.stringify(shape);
      assert.equal(p.parseCallback?.({ headers: fake.signedHeaders(raw), rawBody: Buffer.from(raw) })?.outcome?.kind, 'completed');
    }
  });

  test('a late success is observable through polling', async () => {
    const p = upstream();
    fake.script({ completeAfterMs: 20, lateSuccessAfterMs: 400 });
    const j = job('z-image-turbo', { prompt: 'late' });
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted');
    assert.equal((await pollUntilDone(p, j, submitted.upstreamId)).outcome.kind, 'failed');
    await sleep(420);
    assert.equal((await p.poll(j, submitted.upstreamId)).kind, 'completed');
  });
});

describe('item 6: re-sending a create is for peers that deduplicate it', () => {
  test('a peer that is not Switchboard ignores Idempotency-Key: an unknown create is left unknowable, not re-sent into a second paid task', async () => {
    const other = await startSwitchboardFake({ honoursIdempotencyKey: false, callbacks: false });
    try {
      const p = upstream({}, 250, other.url, other.apiKey);
      other.script({ hangOnSubmit: true, noCallback: true });
      const j = job('z-image-turbo', { prompt: 'lost at another peer' });
      assert.equal((await p.submit(j)).kind, 'unknown');
      assert.equal(other.charges, 1);
      assert.deepEqual(await upstream({}, 2_000, other.url, other.apiKey).reconcile(j), { kind: 'unknowable' });
      assert.equal(other.requestsTo('POST', '/api/v1/generation/create').length, 1, 'nothing was re-sent');
      assert.equal(other.charges, 1, 'one paid task');
    } finally {
      await other.close();
    }
  });

  test('with webhookSecret set, an unsigned callback is refused (the interface signs nothing: leave it unset for such a peer)', () => {
    const body = Buffer.from(JSON.stringify({ code: 200, data: { taskId: 'task_x', status: 'finished', files: [] } }));
    assert.equal(upstream({ webhookSecret: fake.webhookSecret }).parseCallback?.({ headers: { 'content-type': 'application/json' }, rawBody: body }), undefined);
    assert.deepEqual(upstream().parseCallback?.({ headers: {}, rawBody: body }), { upstreamId: 'task_x' });
  });

  test('the capability is declared per route: idempotentCreate must be a boolean', () => {
    assert.throws(() => upstream({ idempotentCreate: 'yes' }), /providers\.sb-peer\.options\.idempotentCreate/u);
  });

  test('the strict peer refuses a create member the interface lacks', async () => {
    const res = await fetch(`${fake.url}/api/v1/generation/create`, {
      method: 'POST',
      headers: { authorization: `Bearer ${fake.apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'z-image-turbo', input: { prompt: 'p' }, callback: 'https://x.example/' }),
    });
    assert.equal(res.status, 400);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, 'invalid_input');
  });
});
