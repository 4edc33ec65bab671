/**
 * Live catalog changes (issue 32, item 5): `adopt` makes the running instance, held by every service,
 * serve a newly built catalog at once; a bad candidate is refused by `build` and changes nothing; what
 * a request captured before the change (a frozen definition, a snapshot, an estimate) keeps its prices.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AddedChatModel, AddedMediaModel, ModelOverride } from '../../../src/domain/catalog/catalog-overrides.ts';
import { Catalog } from '../../../src/domain/catalog/catalog.ts';
import type { MeasuredMedia, ProbeRequest } from '../../../src/domain/catalog/catalog.types.ts';
import { ConfigError } from '../../../src/domain/config-error.ts';
import type { MediaMeasurer } from '../../../src/ports/media-measurer.port.ts';
import { EstimateService } from '../../../src/services/generation/estimate.service.ts';
import { VID, video } from './catalog-helpers.ts';

function build(models: Record<string, ModelOverride> = {}, addedChatModels: AddedChatModel[] = [], addedMediaModels: AddedMediaModel[] = []): Catalog {
  return Catalog.build({ models, addedChatModels, addedMediaModels });
}

const P = 'a quiet harbour';

const LLAMA: AddedChatModel = {
  id: 'llama-4-local',
  name: 'Llama 4 (local)',
  vendor: 'Meta',
  inputPrice: '0.1',
  outputPrice: '0.2',
  cachedInputPrice: undefined,
  protocols: ['openai'],
  contextWindow: 128_000,
  maxOutputTokens: 8192,
};

describe('Catalog.adopt', () => {
  test('every holder of the instance sees the new prices at once: chat, media, embeddings, published entries', () => {
    const live = build();
    const held = live; // what a service captured at start
    const oldChat = live.chat('gpt-5.4-mini');
    assert.ok(oldChat);
    const oldImage = live.price('z-image-turbo', live.validate('z-image-turbo', { prompt: P })).costMicro;
    assert.equal(oldImage, 10_000);

    live.adopt(build({
      'gpt-5.4-mini': { inputPrice: '7.5', outputPrice: '45' },
      'z-image-turbo': { pricing: [{ key: 'default', price: '0.05' }] },
      'text-embedding-3-small': { inputPrice: '0.5' },
    }));

    assert.equal(held.chat('gpt-5.4-mini')?.inputMicroPerMillion, 7_500_000);
    assert.equal(held.chat('gpt-5.4-mini')?.outputMicroPerMillion, 45_000_000);
    assert.equal(held.chatModels().find((m) => m.id === 'gpt-5.4-mini')?.inputMicroPerMillion, 7_500_000);
    assert.equal(held.price('z-image-turbo', held.validate('z-image-turbo', { prompt: P })).costMicro, 50_000);
    assert.equal(held.embedding('text-embedding-3-small')?.inputMicroPerMillion, 500_000);
    assert.equal(held.get('z-image-turbo')?.priceFrom, '0.05');
    assert.equal(held.list().find((m) => m.id === 'gpt-5.4-mini')?.priceFrom, '7.5');
    // The definition taken before the change is the old one, untouched (a request holding it keeps its prices).
    assert.equal(oldChat.inputMicroPerMillion, 750_000);
    assert.ok(Object.isFrozen(oldChat));
  });

  test('visibility, names and descriptions follow; an override removed brings the built-in back', () => {
    const live = build({ 'sora-2': { name: 'Sora (ours)' } });
    assert.equal(live.get('sora-2')?.name, 'Sora (ours)');
    const input = live.validate('z-image-turbo', { prompt: P });
    live.adopt(build({ 'gpt-5.4-mini': { hidden: true }, 'z-image-turbo': { hidden: true, description: 'gone' }, 'bge-m3': { hidden: true } }));
    assert.equal(live.chat('gpt-5.4-mini'), undefined);
    assert.equal(live.get('gpt-5.4-mini'), undefined);
    assert.equal(live.media('z-image-turbo'), undefined);
    assert.ok(!live.list().some((m) => m.id === 'z-image-turbo' || m.id === 'gpt-5.4-mini'));
    assert.ok(!live.embeddingModels().some((m) => m.id === 'bge-m3'));
    assert.equal(live.get('sora-2')?.name, 'Sora 2');
    // A task created before the model was hidden still runs (its steps read hidden models too).
    assert.equal(live.outputSpec('z-image-turbo', input).kind, 'image');
    assert.equal(live.price('z-image-turbo', input).costMicro, 10_000);

    live.adopt(build({ 'z-image-turbo': { name: 'Z back' } }));
    assert.equal(live.chat('gpt-5.4-mini')?.id, 'gpt-5.4-mini');
    assert.equal(live.get('z-image-turbo')?.name, 'Z back');
  });

  test('added models appear and disappear with the catalog that has them', () => {
    const live = build();
    assert.equal(live.chat('llama-4-local'), undefined);
    live.adopt(build({}, [LLAMA], [{ id: 'cheap-z', name: 'Cheap Z', basedOn: 'z-image-turbo', vendor: undefined, pricing: [{ key: 'default', price: '0.002' }] }]));
    assert.equal(live.chat('llama-4-local')?.inputMicroPerMillion, 100_000);
    assert.equal(live.price('cheap-z', live.validate('cheap-z', { prompt: P })).costMicro, 2_000);
    assert.ok(live.list().some((m) => m.id === 'cheap-z'));
    live.adopt(build());
    assert.equal(live.chat('llama-4-local'), undefined);
    assert.equal(live.get('cheap-z'), undefined);
  });

  test('a bad override is refused by build (ConfigError) and the running catalog keeps serving what it served', () => {
    const live = build({ 'gpt-5.4-mini': { inputPrice: '1' } });
    const before = live.version;
    const candidates: Array<() => Catalog> = [
      () => build({ 'gpt-5.4-mini': { inputPrice: '0.1234567' } }),
      () => build({ 'z-image-turbo': { pricing: [{ key: 'nope', price: '1' }] } }),
      () => build({ 'no-such-model': { name: 'x' } }),
      // The first override is good, the second bad: nothing of the candidate may leak into the live one.
      () => build({ 'gpt-5.4': { inputPrice: '9' }, 'z-image-turbo': { inputPrice: '1' } }),
      () => build({}, [{ ...LLAMA, id: 'gpt-5.4-mini' }]),
    ];
    for (const candidate of candidates) {
      let built: Catalog | undefined;
      assert.throws(() => {
        built = candidate();
      }, ConfigError);
      if (built) live.adopt(built);
    }
    assert.equal(live.version, before);
    assert.equal(live.chat('gpt-5.4-mini')?.inputMicroPerMillion, 1_000_000);
    assert.equal(live.chat('gpt-5.4')?.inputMicroPerMillion, build().chat('gpt-5.4')?.inputMicroPerMillion);
    assert.equal(live.price('z-image-turbo', live.validate('z-image-turbo', { prompt: P })).costMicro, 10_000);
  });

  test('version goes up at each adopt; adopting itself is no change; a snapshot keeps its version and contents', () => {
    const live = build();
    assert.equal(live.version, 0);
    const pinned = live.snapshot();
    live.adopt(build({ 'gpt-5.4-mini': { inputPrice: '2' } }));
    assert.equal(live.version, 1);
    live.adopt(live);
    assert.equal(live.version, 1);
    live.adopt(build({ 'gpt-5.4-mini': { inputPrice: '3' } }));
    assert.equal(live.version, 2);
    assert.equal(pinned.version, 0);
    assert.equal(pinned.chat('gpt-5.4-mini')?.inputMicroPerMillion, 750_000);
    assert.equal(live.chat('gpt-5.4-mini')?.inputMicroPerMillion, 3_000_000);
  });

  test('a catalog adopted by two instances is not changed through either (a later adopt replaces, never edits)', () => {
    const a = build();
    const b = build();
    const next = build({ 'gpt-5.4-mini': { inputPrice: '2' } });
    a.adopt(next);
    b.adopt(next);
    a.adopt(build({ 'gpt-5.4-mini': { inputPrice: '4' } }));
    assert.equal(b.chat('gpt-5.4-mini')?.inputMicroPerMillion, 2_000_000);
    assert.equal(next.chat('gpt-5.4-mini')?.inputMicroPerMillion, 2_000_000);
  });
});

describe('an estimate is priced by one catalog version', () => {
  test('a price adopted while the input media is measured does not change the estimate that is debited', async () => {
    const live = build();
    const body = { model: 'seedance-2.0', input: { prompt: P, videoUrls: [VID] } };
    const expected = (await new EstimateService(build(), { measure: async () => [video(VID, 4)] }).price(body)).quote.costMicro;
    const measurer: MediaMeasurer = {
      async measure(_probes: ProbeRequest[]): Promise<MeasuredMedia[]> {
        // The operator's change lands between validation and pricing.
        live.adopt(build({ 'seedance-2.0': { pricing: live.get('seedance-2.0')?.pricing.map((t) => ({ key: t.key, price: '9' })) ?? [] } }));
        return [video(VID, 4)];
      },
    };
    const priced = await new EstimateService(live, measurer).price(body);
    assert.equal(priced.quote.costMicro, expected);
    assert.equal(priced.catalog.version, 0, 'the rest of the create reads the version that priced it');
    assert.equal(live.version, 1);
    // The next request is priced at the new price.
    const after = await new EstimateService(live, { measure: async () => [video(VID, 4)] }).price(body);
    assert.ok(after.quote.costMicro > expected, `${after.quote.costMicro} > ${expected}`);
  });
});
