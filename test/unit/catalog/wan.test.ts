import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MeasuredMedia } from '../../../src/domain/catalog/catalog.types.ts';
import { wan27Duration, wan27Workflow, wan3GenerationType } from '../../../src/domain/catalog/index.ts';
import { AUD, audio, catalog, cost, IMG, IMG2, refused, rejects, VID, VID2, valid, video } from './catalog-helpers.ts';

const P = 'waves breaking on black sand';
const W = 'wan-2.7';

describe('V11 (Wan 2.7) workflows', () => {
  test('workflow selection follows SPEC', () => {
    assert.equal(wan27Workflow(valid(W, { prompt: P })), 'text-to-video');
    assert.equal(wan27Workflow(valid(W, { imageUrls: [IMG] })), 'image-to-video');
    assert.equal(wan27Workflow(valid(W, { prompt: P, referenceImageUrls: [IMG] })), 'reference-to-video');
    assert.equal(wan27Workflow(valid(W, { prompt: P, referenceVideoUrls: [VID] })), 'reference-to-video');
    assert.equal(wan27Workflow(valid(W, { prompt: P, editVideoUrl: VID })), 'edit-video');
    assert.equal(wan27Workflow(valid(W, { continueVideoUrl: VID })), 'continuation');
  });

  test('prompt: required for text-, reference- and edit-video; optional for image-to-video and continuation', () => {
    rejects(W, {}, 'prompt', /required for text-to-video/);
    rejects(W, { referenceImageUrls: [IMG] }, 'prompt', /required for reference-to-video/);
    rejects(W, { referenceVideoUrls: [VID] }, 'prompt', /required for reference-to-video/);
    rejects(W, { editVideoUrl: VID }, 'prompt', /required for edit-video/);
    assert.doesNotThrow(() => valid(W, { imageUrls: [IMG, IMG2] }));
    assert.doesNotThrow(() => valid(W, { continueVideoUrl: VID }));
    rejects(W, { imageUrls: [IMG, IMG2, IMG] }, 'imageUrls', /at most 2/);
  });

  test('allowed durations per workflow; no default duration', () => {
    assert.equal(valid(W, { prompt: P }).duration, undefined);
    assert.equal(wan27Duration(valid(W, { prompt: P })), 5);
    assert.equal(wan27Duration(valid(W, { prompt: P, editVideoUrl: VID })), 0);
    assert.doesNotThrow(() => valid(W, { prompt: P, duration: 15 }));
    rejects(W, { prompt: P, duration: 7 }, 'duration', /5, 10 or 15 for text-to-video/);
    assert.doesNotThrow(() => valid(W, { imageUrls: [IMG], duration: 2 }));
    rejects(W, { imageUrls: [IMG], duration: 1 }, 'duration', /2 to 15 for image-to-video/);
    rejects(W, { prompt: P, referenceImageUrls: [IMG], duration: 12 }, 'duration', /2 to 10 for reference-to-video/);
    assert.doesNotThrow(() => valid(W, { prompt: P, editVideoUrl: VID, duration: 0 }));
    rejects(W, { prompt: P, editVideoUrl: VID, duration: 1 }, 'duration', /0 \(follow the source video\) or 2 to 10/);
    rejects(W, { prompt: P, editVideoUrl: VID, duration: 11 }, 'duration', /edit-video/);
    rejects(W, { prompt: P, duration: 0 }, 'duration', /text-to-video/);
    rejects(W, { prompt: P, duration: 16 }, 'duration', /from 0 to 15/);
  });

  test('continueVideoUrl is not combined with imageUrls or audioUrl; workflows do not mix', () => {
    rejects(W, { continueVideoUrl: VID, imageUrls: [IMG] }, 'continueVideoUrl', /cannot be combined with input.imageUrls/);
    rejects(W, { continueVideoUrl: VID, audioUrl: AUD }, 'continueVideoUrl', /cannot be combined with input.audioUrl/);
    rejects(W, { prompt: P, editVideoUrl: VID, referenceImageUrls: [IMG] }, 'editVideoUrl', /separate workflows/);
    rejects(W, { prompt: P, imageUrls: [IMG], referenceVideoUrls: [VID] }, 'referenceVideoUrls', /separate workflows/);
  });

  test('audioUrl only for text- and image-to-video; referenceImageUrl and audioSetting only for edit; multiShots not for text-to-video', () => {
    assert.doesNotThrow(() => valid(W, { prompt: P, audioUrl: AUD }));
    assert.doesNotThrow(() => valid(W, { imageUrls: [IMG], audioUrl: AUD }));
    rejects(W, { prompt: P, referenceImageUrls: [IMG], audioUrl: AUD }, 'audioUrl', /only available for text-to-video and image-to-video/);
    rejects(W, { prompt: P, editVideoUrl: VID, audioUrl: AUD }, 'audioUrl', /edit-video/);
    assert.doesNotThrow(() => valid(W, { prompt: P, editVideoUrl: VID, referenceImageUrl: IMG, audioSetting: 'origin', multiShots: true }));
    rejects(W, { prompt: P, referenceImageUrl: IMG }, 'referenceImageUrl', /only available for edit-video/);
    rejects(W, { imageUrls: [IMG], audioSetting: 'auto' }, 'audioSetting', /only available for edit-video/);
    rejects(W, { prompt: P, multiShots: true }, 'multiShots', /text-to-video/);
    rejects(W, { continueVideoUrl: VID, multiShots: false }, 'multiShots', /continuation/);
    rejects(W, { prompt: P, resolution: '480p' }, 'resolution');
    rejects(W, { prompt: P, size: '21:9' }, 'size');
  });

  test('the edit and continuation sources are probed; continuation lasts 2 to 10 s', () => {
    const cont = valid(W, { continueVideoUrl: VID });
    assert.deepEqual(
      catalog.probeRequests(W, cont).map((p) => [p.field, p.kind, p.maxBytes]),
      [['continueVideoUrl', 'video', 100 * 1024 * 1024]],
    );
    assert.deepEqual(catalog.probeRequests(W, valid(W, { prompt: P })), []);
    assert.doesNotThrow(() => catalog.checkMeasured(W, cont, [video(VID, 6)]));
    refused(() => catalog.checkMeasured(W, cont, [video(VID, 1.5)]), 'input.continueVideoUrl', /2 to 10 s/);
    refused(() => catalog.checkMeasured(W, cont, [video(VID, 10.5)]), 'input.continueVideoUrl', /2 to 10 s/);
    const edit = valid(W, { prompt: P, editVideoUrl: VID });
    refused(() => catalog.checkMeasured(W, edit, [video(VID, 12)]), 'input.editVideoUrl', /2 to 10 s/);
    assert.doesNotThrow(() => catalog.checkMeasured(W, valid(W, { prompt: P, editVideoUrl: VID, duration: 5 }), [video(VID, 12)]));
  });

  test('prices: per second; edit and continuation bill the input seconds too', () => {
    assert.equal(cost(W, { prompt: P, resolution: '1080p', duration: 10 }), 1_500_000);
    assert.equal(cost(W, { imageUrls: [IMG] }), 500_000);
    const edit = catalog.price(W, valid(W, { prompt: P, editVideoUrl: VID }), [video(VID, 6.4)]);
    assert.equal(edit.units, 14);
    assert.equal(edit.costMicro, 1_400_000);
    assert.equal(cost(W, { prompt: P, editVideoUrl: VID, duration: 5 }, [video(VID, 8)]), 1_300_000);
    assert.equal(cost(W, { continueVideoUrl: VID, resolution: '1080p' }, [video(VID, 4.2)]), 1_500_000);
    assert.throws(() => catalog.price(W, valid(W, { continueVideoUrl: VID })), /measure/);
  });
});

describe('V12 (Wan 3.0)', () => {
  const V = 'wan-3.0';

  test('prompt is required unless a media input or fileUrl is given', () => {
    rejects(V, {}, 'prompt', /required unless/);
    rejects(V, { linkUrl: 'https://example.com/page' }, 'prompt', /required unless/);
    for (const media of [{ imageUrls: [IMG] }, { imageWithRoles: [{ url: IMG, role: 'first_frame' }] }, { videoUrls: [VID] }, { audioUrls: [AUD] }, { fileUrl: 'https://example.com/brief.pdf' }]) {
      assert.doesNotThrow(() => valid(V, media));
    }
    assert.doesNotThrow(() => valid(V, { prompt: 'p'.repeat(20_000) }));
  });

  test('fileUrl and linkUrl are exclusive', () => {
    rejects(V, { prompt: P, fileUrl: 'https://example.com/a.pdf', linkUrl: 'https://example.com' }, 'fileUrl', /cannot be combined with input.linkUrl/);
  });

  test('frame and reference families are not mixed', () => {
    rejects(V, { imageWithRoles: [{ url: IMG, role: 'first_frame' }, { url: IMG2, role: 'reference_image' }] }, 'imageWithRoles[1].role', /cannot be mixed/);
    rejects(V, { generationType: 'frame', videoUrls: [VID] }, 'videoUrls', /reference family/);
    rejects(V, { generationType: 'frame', audioUrls: [AUD] }, 'audioUrls', /reference family/);
    rejects(V, { generationType: 'reference', imageWithRoles: [{ url: IMG, role: 'first_frame' }] }, 'imageWithRoles[0].role', /frame family/);
    rejects(V, { imageWithRoles: [{ url: IMG, role: 'first_frame' }], videoUrls: [VID] }, 'imageWithRoles[0].role', /frame family/);
    rejects(V, { imageUrls: [IMG, IMG, IMG] }, 'imageUrls', /at most 2 frames/);
    assert.doesNotThrow(() => valid(V, { imageUrls: [IMG, IMG, IMG], generationType: 'reference' }));
    assert.doesNotThrow(() => valid(V, { imageUrls: [IMG], imageWithRoles: [{ url: IMG2, role: 'last_frame' }] }));
    assert.equal(wan3GenerationType(valid(V, { imageUrls: [IMG] })), 'frame');
    assert.equal(wan3GenerationType(valid(V, { imageUrls: [IMG], videoUrls: [VID] })), 'reference');
    assert.doesNotThrow(() => valid(V, { imageWithRoles: [{ url: 'data:image/png;base64,iVBORw0KGgo=', role: 'reference_image' }] }));
  });

  test('seed 0 to 2147483647, duration 2 to 30, array bounds', () => {
    assert.doesNotThrow(() => valid(V, { prompt: P, seed: 2_147_483_647 }));
    rejects(V, { prompt: P, seed: 2_147_483_648 }, 'seed', /from 0 to 2147483647/);
    rejects(V, { prompt: P, seed: -1 }, 'seed');
    rejects(V, { prompt: P, duration: 1 }, 'duration', /from 2 to 30/);
    rejects(V, { prompt: P, duration: 31 }, 'duration');
    rejects(V, { prompt: P, videoUrls: Array(6).fill(VID) }, 'videoUrls', /at most 5/);
    rejects(V, { prompt: P, audioUrls: Array(6).fill(AUD) }, 'audioUrls', /at most 5/);
    rejects(V, { prompt: P, imageUrls: Array(11).fill(IMG), generationType: 'reference' }, 'imageUrls', /at most 10/);
    rejects(V, { prompt: P, resolution: '4k' }, 'resolution');
    rejects(V, { prompt: P, size: '21:9' }, 'size');
  });

  test('clips 1 to 15 s, totals at most 15 s, input video plus output at most 30 s', () => {
    const check = (input: Record<string, unknown>, m: MeasuredMedia[]) => () => catalog.checkMeasured(V, valid(V, input), m);
    const two = { prompt: P, videoUrls: [VID, VID2] };
    assert.doesNotThrow(check(two, [video(VID, 7), video(VID2, 8)]));
    refused(check(two, [video(VID, 0.5), video(VID2, 8)]), 'input.videoUrls[0]', /1 to 15 s/);
    refused(check({ prompt: P, videoUrls: [VID] }, [video(VID, 15.5)]), 'input.videoUrls[0]', /1 to 15 s/);
    refused(check(two, [video(VID, 8), video(VID2, 8)]), 'input.videoUrls', /at most 15 s in total/);
    refused(check({ prompt: P, audioUrls: [AUD, VID2] }, [audio(AUD, 8), audio(VID2, 8)]), 'input.audioUrls', /at most 15 s in total/);
    refused(check({ prompt: P, videoUrls: [VID], duration: 25 }, [video(VID, 10)]), 'input.duration', /at most 30 s/);
    assert.doesNotThrow(check({ prompt: P, videoUrls: [VID], duration: 20 }, [video(VID, 10)]));
  });

  test('prices: per-second tiers, input video seconds billed, 1080p is four times 480p', () => {
    assert.equal(cost(V, { prompt: P, resolution: '1080p', duration: 10, videoUrls: [VID] }, [video(VID, 4.2)]), 2_400_000);
    assert.equal(cost('wan-3.0-prime', { prompt: P, resolution: '720p' }), 630_000);
    assert.equal(cost(V, { prompt: P, resolution: '1080p' }), 4 * cost(V, { prompt: P }));
    assert.equal(cost(V, { prompt: P, audioUrls: [AUD] }, [audio(AUD, 9)]), 200_000);
  });
});
