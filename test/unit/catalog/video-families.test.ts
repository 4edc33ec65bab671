import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { catalog, cost, IMG, IMG2, refused, rejects, VID, valid, video } from './catalog-helpers.ts';

const P = 'a paper boat on a river';

describe('V1 and V2 (Sora)', () => {
  test('V1 durations select the per-clip tier', () => {
    assert.equal(cost('sora-2', { prompt: P, duration: 15 }), 250_000);
    assert.equal(cost('sora-2', { prompt: P, duration: 25 }), 400_000);
    assert.equal(cost('sora-2-pro', { prompt: P, duration: 25 }), 4_200_000);
    assert.equal(catalog.price('sora-2-pro', valid('sora-2-pro', { prompt: P, duration: 15 })).tierKey, '15s');
    rejects('sora-2', { prompt: P, duration: 20 }, 'duration');
    rejects('sora-2', { prompt: P, aspectRatio: '4:3' }, 'aspectRatio');
  });

  test('V2 is billed per second and takes at most one image', () => {
    assert.equal(cost('sora-2-official', { prompt: P, duration: 20 }), 2_000_000);
    assert.equal(catalog.price('sora-2-official', valid('sora-2-official', { prompt: P, duration: 12 })).units, 12);
    rejects('sora-2-official', { prompt: P, duration: 10 }, 'duration', /4, 8, 12, 16, 20/);
    rejects('sora-2-official', { prompt: P, urls: [IMG, IMG2] }, 'urls', /at most 1/);
  });
});

describe('V3 and V4 (Veo 3.1)', () => {
  test('resolution selects the tier; 720p and 1080p cost the same on fast', () => {
    assert.equal(cost('veo-3.1-fast', { prompt: P, resolution: '720p' }), 300_000);
    assert.equal(cost('veo-3.1-fast', { prompt: P, resolution: '4k' }), 750_000);
    assert.equal(cost('veo-3.1-quality', { prompt: P, resolution: '4k' }), 1_800_000);
    assert.equal(cost('veo-3.1-lite', { prompt: P, resolution: '720p' }), 400_000);
    assert.equal(cost('veo-3.1-lite', { prompt: P, resolution: '4k' }), 1_200_000);
    rejects('veo-3.1-fast', { prompt: P, resolution: '480p' }, 'resolution');
  });

  test('V3 generationType needs urls; frames at most 2, references at most 3', () => {
    rejects('veo-3.1-fast', { prompt: P, generationType: 'frame' }, 'generationType', /requires input.urls/);
    rejects('veo-3.1-fast', { prompt: P, urls: [IMG, IMG, IMG] }, 'urls', /at most 2 items/);
    rejects('veo-3.1-fast', { prompt: P, urls: [IMG, IMG, IMG], generationType: 'frame' }, 'urls', /at most 2 items/);
    assert.doesNotThrow(() => valid('veo-3.1-fast', { prompt: P, urls: [IMG, IMG, IMG], generationType: 'reference' }));
    rejects('veo-3.1-fast', { prompt: P, urls: [IMG, IMG, IMG, IMG], generationType: 'reference' }, 'urls', /at most 3/);
    rejects('veo-3.1-fast', { prompt: P, generationType: 'video' }, 'generationType');
  });

  test('V4 is text-only', () => {
    rejects('veo-3.1-lite', { prompt: P, urls: [IMG] }, 'urls', /not a known field/);
  });
});

describe('V5 (Grok video)', () => {
  test('per second at the resolution rate', () => {
    assert.equal(cost('grok-imagine-video', { prompt: P, resolution: '720p', duration: 30 }), 2_100_000);
    rejects('grok-imagine-video', { prompt: P, duration: 8 }, 'duration', /6, 10, 15, 20, 25, 30/);
    rejects('grok-imagine-video', { prompt: P, resolution: '1080p' }, 'resolution');
    rejects('grok-imagine-video', { prompt: P, size: '4:3' }, 'size');
  });
});

describe('V8 (Seedance 1.5 Pro)', () => {
  test('prompt is required for text-to-video and optional with image input', () => {
    rejects('seedance-1.5-pro', {}, 'prompt', /required unless/);
    assert.doesNotThrow(() => valid('seedance-1.5-pro', { imageUrls: [IMG] }));
    assert.doesNotThrow(() => valid('seedance-1.5-pro', { imageWithRoles: [{ url: IMG, role: 'first_frame' }] }));
  });

  test('imageWithRoles: max 2, roles once each, last needs first, not with imageUrls', () => {
    const first = { url: IMG, role: 'first_frame' };
    const last = { url: IMG2, role: 'last_frame' };
    assert.doesNotThrow(() => valid('seedance-1.5-pro', { prompt: P, imageWithRoles: [first, last] }));
    rejects('seedance-1.5-pro', { prompt: P, imageWithRoles: [first, last, first] }, 'imageWithRoles', /at most 2/);
    rejects('seedance-1.5-pro', { prompt: P, imageWithRoles: [first, first] }, 'imageWithRoles[1].role', /repeats first_frame/);
    rejects('seedance-1.5-pro', { prompt: P, imageWithRoles: [last] }, 'imageWithRoles[0].role', /requires an item with role first_frame/);
    rejects('seedance-1.5-pro', { prompt: P, imageWithRoles: [first], imageUrls: [IMG] }, 'imageWithRoles', /cannot be combined with input.imageUrls/);
    rejects('seedance-1.5-pro', { prompt: P, imageWithRoles: [{ url: IMG, role: 'reference_image' }] }, 'imageWithRoles[0].role');
  });

  test('duration 4 to 15, resolution × audio matrix, silent is half price', () => {
    rejects('seedance-1.5-pro', { prompt: P, duration: 3 }, 'duration');
    rejects('seedance-1.5-pro', { prompt: P, duration: 16 }, 'duration');
    rejects('seedance-1.5-pro', { prompt: P, resolution: '4k' }, 'resolution');
    rejects('seedance-1.5-pro', { prompt: P, imageUrls: Array(10).fill(IMG) }, 'imageUrls', /at most 9/);
    rejects('seedance-1.5-pro', { prompt: 'p'.repeat(4001) }, 'prompt', /at most 4000/);
    assert.equal(cost('seedance-1.5-pro', { prompt: P, resolution: '720p', duration: 8 }), 416_000);
    assert.equal(cost('seedance-1.5-pro', { prompt: P, resolution: '720p', duration: 8, generateAudio: false }), 208_000);
    assert.equal(cost('seedance-1.5-pro', { prompt: P, resolution: '1080p', duration: 12, generateAudio: false }), 702_000);
    const q = catalog.price('seedance-1.5-pro', valid('seedance-1.5-pro', { prompt: P, generateAudio: false }));
    assert.equal(q.tierKey, '480p:silent');
  });
});

describe('V9 (Kling motion control)', () => {
  const base = { imageUrls: [IMG], videoUrls: [VID], characterOrientation: 'video' };

  test('exactly one image and one video, and characterOrientation, are required', () => {
    assert.doesNotThrow(() => valid('kling-3.0-motion-control', base));
    rejects('kling-3.0-motion-control', { ...base, imageUrls: undefined }, 'imageUrls', /is required/);
    rejects('kling-3.0-motion-control', { ...base, imageUrls: [] }, 'imageUrls', /at least 1/);
    rejects('kling-3.0-motion-control', { ...base, imageUrls: [IMG, IMG2] }, 'imageUrls', /at most 1/);
    rejects('kling-3.0-motion-control', { ...base, videoUrls: undefined }, 'videoUrls', /is required/);
    rejects('kling-3.0-motion-control', { ...base, videoUrls: [VID, VID] }, 'videoUrls', /at most 1/);
    rejects('kling-3.0-motion-control', { ...base, characterOrientation: undefined }, 'characterOrientation', /is required/);
    rejects('kling-3.0-motion-control', { ...base, characterOrientation: 'left' }, 'characterOrientation');
    rejects('kling-3.0-motion-control', { ...base, resolution: '480p' }, 'resolution');
  });

  test('both URLs are probed with their format and size bounds', () => {
    const probes = catalog.probeRequests('kling-2.6-motion-control', valid('kling-2.6-motion-control', base));
    assert.deepEqual(probes, [
      { field: 'imageUrls[0]', url: IMG, kind: 'image', maxBytes: 10 * 1024 * 1024, formats: ['jpeg', 'jpg', 'png'] },
      { field: 'videoUrls[0]', url: VID, kind: 'video', maxBytes: 100 * 1024 * 1024, formats: ['mp4', 'mov'] },
    ]);
  });

  test('wrong formats, oversized files and unreadable durations are refused', () => {
    const input = valid('kling-2.6-motion-control', base);
    const okImage = { url: IMG, format: 'png', bytes: 1000 };
    const check = (measured: Parameters<typeof catalog.checkMeasured>[2]) => () => catalog.checkMeasured('kling-2.6-motion-control', input, measured);
    assert.doesNotThrow(check([okImage, video(VID, 8)]));
    refused(check([{ url: IMG, format: 'gif', bytes: 1000 }, video(VID, 8)]), 'input.imageUrls[0]', /jpeg, jpg, png \(detected gif\)/);
    refused(check([{ url: IMG, format: 'png', bytes: 11 * 1024 * 1024 }, video(VID, 8)]), 'input.imageUrls[0]', /at most 10 MB/);
    refused(check([okImage, video(VID, 8, 'webm')]), 'input.videoUrls[0]', /mp4, mov/);
    refused(check([okImage, video(VID, 8, 'mp4', 101 * 1024 * 1024)]), 'input.videoUrls[0]', /at most 100 MB/);
    refused(check([okImage, { url: VID, format: 'mp4', bytes: 1000 }]), 'input.videoUrls[0]', /duration/);
    refused(check([okImage, video(VID, 2.5)]), 'input.videoUrls[0]', /3 to 30 s/);
    refused(check([okImage, video(VID, 30.5)]), 'input.videoUrls[0]', /3 to 30 s/);
    assert.doesNotThrow(check([okImage, video(VID, 30)]));
  });

  test('billed on the probed reference length, rounded up to whole seconds', () => {
    const input = valid('kling-2.6-motion-control', { ...base, resolution: '1080p' });
    const q = catalog.price('kling-2.6-motion-control', input, [video(VID, 12.3)]);
    assert.equal(q.units, 13);
    assert.equal(q.costMicro, 1_365_000);
    assert.equal(catalog.price('kling-2.6-motion-control', input, [video(VID, 12)]).units, 12);
    assert.throws(() => catalog.price('kling-2.6-motion-control', input, []), /measure/);
  });
});

describe('V10 (PixVerse)', () => {
  test('prompt is required', () => {
    rejects('pixverse-v6', { imageUrls: [IMG] }, 'prompt', /is required/);
  });

  test('firstFrameImage and lastFrameImage go together; transition takes 5 or 8 s', () => {
    rejects('pixverse-v6', { prompt: P, firstFrameImage: IMG }, 'lastFrameImage', /is required when input.firstFrameImage/);
    rejects('pixverse-v6', { prompt: P, lastFrameImage: IMG }, 'firstFrameImage', /is required when input.lastFrameImage/);
    assert.doesNotThrow(() => valid('pixverse-v6', { prompt: P, firstFrameImage: IMG, lastFrameImage: IMG2, duration: 8 }));
    assert.doesNotThrow(() => valid('pixverse-v6', { prompt: P, firstFrameImage: IMG, lastFrameImage: IMG2 }));
    rejects('pixverse-v6', { prompt: P, firstFrameImage: IMG, lastFrameImage: IMG2, duration: 7 }, 'duration', /5 or 8 in transition mode/);
  });

  test('imgReferences 1 to 7; modes do not combine; multi-clip only for text and image', () => {
    assert.doesNotThrow(() => valid('pixverse-v6', { prompt: P, imgReferences: Array(7).fill(IMG) }));
    rejects('pixverse-v6', { prompt: P, imgReferences: Array(8).fill(IMG) }, 'imgReferences', /at most 7/);
    rejects('pixverse-v6', { prompt: P, imageUrls: [IMG], imgReferences: [IMG] }, 'imgReferences', /cannot be combined with input.imageUrls/);
    rejects('pixverse-v6', { prompt: P, imageUrls: [IMG], extendFromTaskId: 'task_1' }, 'extendFromTaskId', /separate modes/);
    assert.doesNotThrow(() => valid('pixverse-v6', { prompt: P, imageUrls: [IMG], generateMultiClipSwitch: true }));
    rejects('pixverse-v6', { prompt: P, imgReferences: [IMG], generateMultiClipSwitch: true }, 'generateMultiClipSwitch', /fusion/);
    rejects('pixverse-v6', { prompt: P, extendFromTaskId: 'task_1', generateMultiClipSwitch: true }, 'generateMultiClipSwitch', /extend/);
  });

  test('one model accepts only motionMode normal', () => {
    rejects('pixverse-v6', { prompt: P, motionMode: 'fast' }, 'motionMode', /must be one of "normal"/);
    assert.equal(valid('pixverse-v5.6', { prompt: P, motionMode: 'fast' }).motionMode, 'fast');
    assert.deepEqual(
      catalog.get('pixverse-v6')?.params.find((p) => p.name === 'motionMode')?.options?.map((o) => o.value),
      ['normal'],
    );
  });

  test('seed defaults to 0; duration 1 to 15; negativePrompt bound', () => {
    assert.equal(valid('pixverse-v6', { prompt: P }).seed, 0);
    rejects('pixverse-v6', { prompt: P, duration: 0 }, 'duration');
    rejects('pixverse-v6', { prompt: P, duration: 16 }, 'duration');
    rejects('pixverse-v6', { prompt: P, size: '5:4' }, 'size');
  });

  test('resolution × audio matrix on v6; v5.6 has resolution tiers only', () => {
    assert.equal(cost('pixverse-v6', { prompt: P, resolution: '1080p', duration: 10, audio: true }), 1_150_000);
    assert.equal(cost('pixverse-v6', { prompt: P, resolution: '1080p', duration: 10 }), 900_000);
    assert.equal(cost('pixverse-v6', { prompt: P, resolution: '540p', duration: 4, audio: true }), 180_000);
    assert.equal(cost('pixverse-v5.6', { prompt: P, resolution: '720p', duration: 10, audio: true }), 1_140_000);
    const tiers = catalog.get('pixverse-v6')?.pricing;
    assert.equal(tiers?.length, 8);
    assert.deepEqual(
      tiers?.find((t) => t.key === '720p:audio'),
      { key: '720p:audio', price: '0.06', isDefault: false, dimensions: { resolution: '720p', audio: 'audio' } },
    );
    assert.equal(catalog.get('pixverse-v5.6')?.pricing[0]?.dimensions, undefined);
  });
});

describe('V13 (Midjourney video)', () => {
  test('exactly one of imageUrls and parentTaskId', () => {
    rejects('midjourney-video', { prompt: P }, 'imageUrls', /or input.parentTaskId is required/);
    rejects('midjourney-video', { prompt: P, imageUrls: [IMG], parentTaskId: 'task_1' }, 'parentTaskId', /exactly one/);
    rejects('midjourney-video', { prompt: P, imageUrls: [IMG, IMG2] }, 'imageUrls', /at most 1/);
  });

  test('prompt is optional only when a parent task is reused', () => {
    rejects('midjourney-video', { imageUrls: [IMG] }, 'prompt', /required unless a parent task/);
    assert.doesNotThrow(() => valid('midjourney-video', { parentTaskId: 'task_1', index: 2 }));
  });

  test('auto animateMode requires parentTaskId and index; index needs a parent', () => {
    rejects('midjourney-video', { imageUrls: [IMG], prompt: P, animateMode: 'auto' }, 'parentTaskId', /animateMode is auto/);
    rejects('midjourney-video', { parentTaskId: 'task_1', animateMode: 'auto' }, 'index', /animateMode is auto/);
    assert.doesNotThrow(() => valid('midjourney-video', { parentTaskId: 'task_1', index: 0, animateMode: 'auto' }));
    rejects('midjourney-video', { imageUrls: [IMG], prompt: P, index: 1 }, 'index', /requires input.parentTaskId/);
    rejects('midjourney-video', { parentTaskId: 'task_1', index: 4 }, 'index', /from 0 to 3/);
  });

  test('endUrl upgrades videoType to its start/end tier; start/end needs endUrl', () => {
    assert.equal(valid('midjourney-video', { imageUrls: [IMG], prompt: P, endUrl: IMG2 }).videoType, 'vid_1.1_i2v_start_end_480');
    assert.equal(valid('midjourney-video', { imageUrls: [IMG], prompt: P, endUrl: IMG2, videoType: 'vid_1.1_i2v_720' }).videoType, 'vid_1.1_i2v_start_end_720');
    rejects('midjourney-video', { imageUrls: [IMG], prompt: P, videoType: 'vid_1.1_i2v_start_end_720' }, 'videoType', /requires input.endUrl/);
    rejects('midjourney-video', { imageUrls: [IMG], prompt: P, videoType: 'vid_2_i2v_480' }, 'videoType');
  });

  test('billed per video: 720 tiers at the 720p rate, times batchSize', () => {
    assert.equal(cost('midjourney-video', { imageUrls: [IMG], prompt: P, videoType: 'vid_1.1_i2v_720', batchSize: 4 }), 2_000_000);
    assert.equal(cost('midjourney-video', { imageUrls: [IMG], prompt: P, endUrl: IMG2, batchSize: 2 }), 500_000);
    const q = catalog.price('midjourney-video', valid('midjourney-video', { imageUrls: [IMG], prompt: P, endUrl: IMG2, videoType: 'vid_1.1_i2v_720' }));
    assert.equal(q.tierKey, '720p');
    assert.equal(q.units, 1);
    rejects('midjourney-video', { imageUrls: [IMG], prompt: P, batchSize: 3 }, 'batchSize', /1, 2, 4/);
    rejects('midjourney-video', { imageUrls: [IMG], prompt: P, batchSize: '2' }, 'batchSize');
    rejects('midjourney-video', { imageUrls: [IMG], prompt: P, motion: 'medium' }, 'motion');
  });
});
