/**
 * Replicate against its models' published `openapi_schema` (issue 18, items 1 and 9): the strict fake
 * checks each input against the schema recorded under test/fixtures/upstreams/replicate/, so a size the
 * model lacks, a misspelt field or a missing required one fails here as it would at Replicate.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MediaJob, MediaProvider } from '../../../src/providers/media/media-provider.ts';
import { createMediaProvider } from '../../../src/providers/registries/media.registry.ts';
import { type ReplicateFake, replicateRefusal, startReplicateFake } from '../../fakes/media/replicate.fake.ts';
import { CallbackReceiver, makeJob, pollUntilDone } from './helpers.ts';

let fake: ReplicateFake;
let rx: CallbackReceiver;
const providers: MediaProvider[] = [];

function replicate(options: Record<string, unknown> = {}): MediaProvider {
  const p = createMediaProvider('replicate', { type: 'replicate', baseUrl: `${fake.url}/v1`, apiKey: fake.apiToken, timeoutMs: 2_000, concurrency: 4, options: { pollIntervalMs: 10, retryPollMs: 25, ...options } });
  providers.push(p);
  return p;
}

function job(model: string, input: Record<string, unknown>, upstreamModel: string): MediaJob {
  const made = makeJob(model, input, { upstreamModel });
  return { ...made, callbackUrl: rx.urlFor(made.attemptId) };
}

before(async () => {
  [fake, rx] = await Promise.all([startReplicateFake(), new CallbackReceiver().listen()]);
});

after(async () => {
  await Promise.all([...providers.map((p) => p.close?.()), fake.close(), rx.close()]);
});

function invalidFields(refusal: { body: unknown } | undefined): unknown {
  return (refusal?.body as { invalid_fields?: unknown } | undefined)?.invalid_fields;
}

function lastInput(requests: ReplicateFake['requests']): unknown {
  return (requests.at(-1)?.json as { input?: unknown } | undefined)?.input;
}

const I4_SIZES = ['auto', '1:1', '16:9', '9:16', '4:3', '3:4', '3:2', '2:3', '5:4', '4:5', '2:1', '1:2', '3:1', '1:3', '21:9', '9:21'];

describe('the strict Replicate fake refuses what the model schemas refuse', () => {
  const body = { input: { prompt: 'p', aspect_ratio: '1:1' }, webhook: 'https://cb.example/x', webhook_events_filter: ['completed'] };
  test('an enum value the schema lacks, a misspelt field, a missing required field, an unknown model', () => {
    assert.equal(replicateRefusal(body, 'openai/gpt-image-1.5'), undefined);
    assert.deepEqual(replicateRefusal({ ...body, input: { prompt: 'p', aspect_ratio: '16:9' } }, 'openai/gpt-image-1.5'), {
      status: 422,
      body: {
        title: 'Input validation failed',
        detail: '- input.aspect_ratio: aspect_ratio must be one of the following: "1:1", "3:2", "2:3"',
        status: 422,
        invalid_fields: [{ type: 'enum', field: 'input.aspect_ratio', description: 'aspect_ratio must be one of the following: "1:1", "3:2", "2:3"' }],
      },
    });
    assert.deepEqual(invalidFields(replicateRefusal({ ...body, input: { prompt: 'p', aspectRatio: '1:1' } }, 'openai/gpt-image-1.5')), [
      { type: 'additional_property_not_allowed', field: 'input', description: 'Additional property aspectRatio is not allowed' },
    ]);
    assert.deepEqual(invalidFields(replicateRefusal(body, 'openai/gpt-image-1')), [
      { type: 'required', field: 'input', description: 'openai_api_key is required' },
    ]);
    assert.deepEqual(invalidFields(replicateRefusal({ inptu: {} }, 'openai/gpt-image-1.5')), [{ type: 'required', field: '', description: 'input is required' }]);
    assert.equal(replicateRefusal(body, 'someone/unrecorded')?.status, 404);
  });
});

describe('item 1: GPT Image on Replicate', () => {
  test('every published size: 1:1, 3:2, 2:3 and auto are sent and accepted; the rest are refused before dispatch', async () => {
    const p = replicate();
    for (const size of I4_SIZES) {
      const j = job('gpt-image-1.5', { prompt: 'a fox', size, resolution: '1k' }, 'openai/gpt-image-1.5');
      const refusal = p.refusal?.(j);
      const sent = fake.requests.length;
      const outcome = await p.submit(j);
      if (['1:1', '3:2', '2:3', 'auto'].includes(size)) {
        assert.equal(refusal, undefined, size);
        // Accepted, or already finished when the fake's prediction beat the answer (Replicate's Prefer: wait).
        assert.ok(outcome.kind === 'accepted' || outcome.kind === 'completed', `${size}: ${JSON.stringify(outcome)}`);
        assert.equal((lastInput(fake.requests) as { aspect_ratio?: string } | undefined)?.aspect_ratio, size === 'auto' ? '1:1' : size);
      } else {
        assert.equal(refusal?.field, 'size', size);
        assert.deepEqual(outcome, { kind: 'failed', error: { message: `replicate: ${refusal?.message}`, retryable: true, code: 'unsupported' } });
        assert.equal(fake.requests.length, sent, `${size}: nothing was sent`);
      }
    }
  });

  test('2k and 4k cannot be made there (no resolution input): refused, never delivered at 1k', () => {
    const p = replicate();
    for (const resolution of ['2k', '4k']) {
      assert.deepEqual(p.refusal?.(job('gpt-image-1.5', { prompt: 'p', size: '1:1', resolution }, 'openai/gpt-image-1.5')), {
        field: 'resolution',
        message: `Replicate's openai/gpt-image-1.5 makes 1k images only (no resolution input), not ${resolution}`,
      });
    }
  });

  test('openai/gpt-image-1 needs the operator’s OpenAI key: without it the route refuses, with it the key is sent and accepted', async () => {
    const j = job('gpt-image-1.5', { prompt: 'p', size: '2:3' }, 'openai/gpt-image-1');
    assert.equal(replicate().refusal?.(j)?.scope, 'route');
    const p = replicate({ openaiApiKey: 'sk-operator' });
    assert.equal(p.refusal?.(j), undefined);
    const submitted = await p.submit(j);
    assert.ok(submitted.kind === 'accepted', JSON.stringify(submitted));
    assert.deepEqual(lastInput(fake.requestsTo('POST', '/v1/models/openai/gpt-image-1/predictions')), {
      prompt: 'p',
      aspect_ratio: '2:3',
      quality: 'medium',
      number_of_images: 1,
      output_format: 'png',
      openai_api_key: 'sk-operator',
    });
    assert.equal((await pollUntilDone(p, j, submitted.upstreamId)).outcome.kind, 'completed');
  });
});
