import { type FalFake, startFalFake } from '../../fakes/media/fal.fake.ts';
import type { FakeBehaviour, RecordedRequest } from '../../fakes/media/fake-core.ts';
import { type KieFake, startKieFake } from '../../fakes/media/kie.fake.ts';
import { OpenAiChatFake } from '../../fakes/openai-chat.fake.ts';

/**
 * What a create asks its upstreams to do, written in its prompt as `[kind]` (the fakes read it):
 * - ok: the primary (kie) accepts and finishes after 300 ms;
 * - p500: the primary answers the submit with HTTP 500; the reserve (fal) finishes;
 * - hang: the primary never answers the submit (an unknown outcome: reconciled, abandoned, then fal);
 * - later: the primary accepts and fails the job later; fal finishes;
 * - late: the primary fails, then calls back a late success (recorded and ignored); fal finishes;
 * - slow: the primary finishes after 4 s (its callback arrives across a fault);
 * - doom: both fail after accepting: the task fails and is refunded.
 */
export const CREATE_KINDS = ['ok', 'p500', 'ok', 'hang', 'later', 'ok', 'late', 'slow', 'ok', 'doom'] as const;
export type CreateKind = (typeof CREATE_KINDS)[number];

export const MEDIA_MODEL = 'z-image-turbo';
export const CHAT_MODEL = 'gpt-5.4';

const PRIMARY: Record<CreateKind, FakeBehaviour> = {
  ok: { completeAfterMs: 300 },
  p500: { failOnSubmit: { status: 500, body: { code: 500, msg: 'Internal Server Error' } } },
  hang: { hangOnSubmit: true, noCallback: true },
  later: { acceptThenFail: { message: 'upstream generation failed' }, completeAfterMs: 400 },
  late: { acceptThenFail: { message: 'upstream generation failed' }, completeAfterMs: 300, lateSuccessAfterMs: 2500 },
  slow: { completeAfterMs: 4000 },
  doom: { acceptThenFail: { message: 'content rejected upstream' }, completeAfterMs: 200 },
};

function tagged(kind: CreateKind): (request: RecordedRequest) => boolean {
  const tag = `[${kind}]`;
  return (request) => request.body.includes(tag);
}

export interface ChaosUpstreams {
  kie: KieFake;
  fal: FalFake;
  chat: OpenAiChatFake;
  /** `providers` and `routes` of the gateway's configuration file. */
  config: { providers: Record<string, unknown>; routes: Record<string, unknown> };
  close(): Promise<void>;
}

/**
 * The fake upstreams of a chaos run (the reconcile windows are short, 2 s instead of 10 minutes, so
 * that an attempt whose submit a crash interrupted is settled within the run): kie as the media primary that fails, hangs and calls back late;
 * fal as the reserve that works (except for `[doom]`); an OpenAI-style chat upstream whose primary
 * route answers 500 to a message tagged `[p500]` (failover before the first byte) and streams slowly,
 * so that streams are open when faults strike.
 */
export async function startChaosUpstreams(): Promise<ChaosUpstreams> {
  const kie = await startKieFake({ record: false });
  const fal = await startFalFake({ record: false });
  const chat = await OpenAiChatFake.start();
  for (const kind of CREATE_KINDS) if (kind !== 'ok') kie.script(PRIMARY[kind], { times: Number.POSITIVE_INFINITY, match: tagged(kind) });
  kie.defaultBehaviour = PRIMARY.ok;
  fal.script({ acceptThenFail: { message: 'reserve failed too' }, completeAfterMs: 200 }, { times: Number.POSITIVE_INFINITY, match: tagged('doom') });
  fal.defaultBehaviour = { completeAfterMs: 200 };
  chat.setDefault({ text: 'Chaos is a ladder, and this answer climbs it one small word at a time.', chunkDelayMs: 25, usage: { input: 20, output: 16 } });
  chat.respondWith((body) => {
    const b = body as { model?: string; messages?: Array<{ content?: unknown }> };
    const last = JSON.stringify(b.messages?.at(-1)?.content ?? '');
    return b.model === 'gpt-primary' && last.includes('[p500]') ? { error: { status: 500, message: 'The server had an error.' } } : undefined;
  });
  const openai = { type: 'openai', baseUrl: chat.baseUrl, apiKey: chat.apiKey, timeoutMs: 5000 };
  return {
    kie,
    fal,
    chat,
    config: {
      providers: {
        'kie-main': {
          type: 'kie',
          baseUrl: kie.url,
          apiKey: kie.apiKey,
          timeoutMs: 1000,
          options: { pollIntervalMs: 500, reconcileWindowMs: 2000, maxPollIntervalMs: 1000 },
        },
        'fal-reserve': { type: 'fal', baseUrl: fal.url, apiKey: 'fal-test-key', options: { pollIntervalMs: 200, reconcileWindowMs: 2000, maxPollIntervalMs: 1000 } },
        'oa-primary': openai,
        'oa-backup': openai,
      },
      routes: {
        [MEDIA_MODEL]: [
          { provider: 'kie-main', model: 'z-image' },
          { provider: 'fal-reserve', model: 'fal-ai/z-image/turbo' },
        ],
        [CHAT_MODEL]: [
          { provider: 'oa-primary', model: 'gpt-primary' },
          { provider: 'oa-backup', model: 'gpt-backup' },
        ],
      },
    },
    async close() {
      await kie.close();
      await fal.close();
      await chat.close();
    },
  };
}

