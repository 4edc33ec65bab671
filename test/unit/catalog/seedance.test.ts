import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MeasuredMedia } from '../../../src/domain/catalog/catalog.types.ts';
import { AUD, AUD2, audio, catalog, cost, IMG, IMG2, refused, rejects, VID, VID2, valid, video } from './catalog-helpers.ts';

const P = 'a dancer in a red coat';
const first = { url: IMG, role: 'first_frame' };
const last = { url: IMG2, role: 'last_frame' };

function measuredCheck(model: string, input: Record<string, unknown>, measured: MeasuredMedia[]) {
  return () => catalog.checkMeasured(model, valid(model, input), measured);
}

describe('V6 (Seedance 2.0 and Mini)', () => {
  test('prompt is required unless image or video reference media is given', () => {
    rejects('seedance-2.0', {}, 'prompt', /required unless input.imageUrls, input.imageWithRoles or input.videoUrls/);
    assert.doesNotThrow(() => valid('seedance-2.0', { imageUrls: [IMG] }));
    assert.doesNotThrow(() => valid('seedance-2.0', { videoUrls: [VID] }));
    assert.doesNotThrow(() => valid('seedance-2.0', { imageWithRoles: [first] }));
  });

  test('imageWithRoles cannot be combined with other reference media', () => {
    for (const other of [{ imageUrls: [IMG] }, { videoUrls: [VID] }, { audioUrls: [AUD] }]) {
      rejects('seedance-2.0', { prompt: P, imageWithRoles: [first], ...other }, 'imageWithRoles', /cannot be combined with input\.(imageUrls|videoUrls|audioUrls)/);
    }
    rejects('seedance-2.0', { prompt: P, imageWithRoles: [first, last, first] }, 'imageWithRoles', /at most 2/);
    rejects('seedance-2.0', { prompt: P, imageWithRoles: [{ url: IMG, role: 'reference_image' }] }, 'imageWithRoles[0].role', /"first_frame", "last_frame"/);
    rejects('seedance-2.0', { prompt: P, imageWithRoles: [{ role: 'first_frame' }] }, 'imageWithRoles[0].url', /is required/);
    rejects('seedance-2.0', { prompt: P, imageWithRoles: [last] }, 'imageWithRoles[0].role', /first_frame/);
  });

  test('audioUrls requires imageUrls or videoUrls; array bounds', () => {
    rejects('seedance-2.0', { prompt: P, audioUrls: [AUD] }, 'audioUrls', /requires input.imageUrls or input.videoUrls/);
    assert.doesNotThrow(() => valid('seedance-2.0', { prompt: P, audioUrls: [AUD], imageUrls: [IMG] }));
    rejects('seedance-2.0', { prompt: P, videoUrls: [VID, VID, VID, VID] }, 'videoUrls', /at most 3/);
    rejects('seedance-2.0', { prompt: P, videoUrls: [VID], audioUrls: [AUD, AUD, AUD, AUD] }, 'audioUrls', /at most 3/);
  });

  test('tools accept only web_search', () => {
    assert.deepEqual(valid('seedance-2.0', { prompt: P, tools: [{ type: 'web_search' }] }).tools, [{ type: 'web_search' }]);
    rejects('seedance-2.0', { prompt: P, tools: [{ type: 'browser' }] }, 'tools[0].type', /"web_search"/);
    rejects('seedance-2.0', { prompt: P, tools: [{}] }, 'tools[0].type', /is required/);
    rejects('seedance-2.0', { prompt: P, tools: [{ type: 'web_search' }, { type: 'web_search' }] }, 'tools', /at most 1/);
  });

  test('enums and ranges, and the mini variant resolutions', () => {
    rejects('seedance-2.0', { prompt: P, size: '2:3' }, 'size');
    rejects('seedance-2.0', { prompt: P, resolution: '2k' }, 'resolution');
    assert.equal(valid('seedance-2.0', { prompt: P, resolution: '4k' }).resolution, '4k');
    rejects('seedance-2.0-mini', { prompt: P, resolution: '1080p' }, 'resolution', /must be one of "480p", "720p"/);
    assert.equal(valid('seedance-2.0-mini', { prompt: P }).resolution, '720p');
    rejects('seedance-2.0-mini', { prompt: P, audioUrls: [AUD] }, 'audioUrls', /requires/);
  });

  test('probes list the videos and audio with bounds', () => {
    const probes = catalog.probeRequests('seedance-2.0', valid('seedance-2.0', { prompt: P, videoUrls: [VID, VID2], audioUrls: [AUD] }));
    assert.deepEqual(
      probes.map((p) => [p.field, p.kind, p.maxBytes]),
      [
        ['videoUrls[0]', 'video', 50 * 1024 * 1024],
        ['videoUrls[1]', 'video', 50 * 1024 * 1024],
        ['audioUrls[0]', 'audio', 15 * 1024 * 1024],
      ],
    );
    assert.deepEqual(catalog.probeRequests('seedance-2.0', valid('seedance-2.0', { prompt: P })), []);
  });

  test('video total must be more than 1.8 s and less than 15.2 s; audio at most 15 s', () => {
    const input = { prompt: P, videoUrls: [VID, VID2], audioUrls: [AUD, AUD2] };
    const ok = [video(VID, 7), video(VID2, 8.1), audio(AUD, 7), audio(AUD2, 8)];
    assert.doesNotThrow(measuredCheck('seedance-2.0', input, ok));
    refused(measuredCheck('seedance-2.0', input, [video(VID, 1), video(VID2, 0.8), audio(AUD, 1), audio(AUD2, 1)]), 'input.videoUrls', /more than 1.8 s/);
    refused(measuredCheck('seedance-2.0', input, [video(VID, 7.2), video(VID2, 8), audio(AUD, 1), audio(AUD2, 1)]), 'input.videoUrls', /less than 15.2 s/);
    refused(measuredCheck('seedance-2.0', input, [video(VID, 7), video(VID2, 8), audio(AUD, 7.5), audio(AUD2, 7.6)]), 'input.audioUrls', /at most 15 s/);
    refused(measuredCheck('seedance-2.0', input, [video(VID, 7), video(VID2, 8), audio(AUD, 7, 'ogg'), audio(AUD2, 7)]), 'input.audioUrls[0]', /detected ogg/);
  });

  test('per second: with reference videos, output and input seconds use the refInput tier', () => {
    assert.equal(cost('seedance-2.0', { prompt: P, resolution: '4k', duration: 10 }), 9_025_000);
    const input = valid('seedance-2.0', { prompt: P, resolution: '720p', videoUrls: [VID, VID2] });
    const q = catalog.price('seedance-2.0', input, [video(VID, 3.2), video(VID2, 4.5)]);
    assert.equal(q.tierKey, '720p:refInput');
    assert.equal(q.units, 13);
    assert.equal(q.costMicro, 1_394_900);
    assert.equal(cost('seedance-2.0-mini', { prompt: P, resolution: '480p', videoUrls: [VID] }, [video(VID, 2.4)]), 64_000);
    assert.equal(cost('seedance-2.0', { imageUrls: [IMG], audioUrls: [AUD] }, [audio(AUD, 9)]), 412_500);
  });
});

describe('V7 (Seedance 2.5)', () => {
  test('prompt is required; durations 4 to 30; size defaults to adaptive', () => {
    rejects('seedance-2.5', { imageUrls: [IMG] }, 'prompt', /is required/);
    rejects('seedance-2.5', { prompt: P, duration: 31 }, 'duration', /from 4 to 30/);
    assert.equal(valid('seedance-2.5', { prompt: P, duration: 30 }).size, 'adaptive');
    rejects('seedance-2.5', { prompt: P, resolution: '4k' }, 'resolution');
    rejects('seedance-2.5', { prompt: P, outputFormat: 'webm' }, 'outputFormat', /"mp4", "mov"/);
  });

  test('omniReferenceTaskType edit is refused with a clear message', () => {
    rejects('seedance-2.5', { prompt: P, omniReferenceTaskType: 'edit' }, 'omniReferenceTaskType', /the value "edit" is unavailable for this model; allowed: "auto", "reference", "extend"/);
    rejects('seedance-2.5', { prompt: P, omniReferenceTaskType: 'other' }, 'omniReferenceTaskType', /must be one of/);
  });

  test('at most 30 images across imageUrls and imageWithRoles', () => {
    const refs = (n: number) => Array.from({ length: n }, () => ({ url: IMG, role: 'reference_image' }));
    assert.doesNotThrow(() => valid('seedance-2.5', { prompt: P, imageUrls: Array(20).fill(IMG), imageWithRoles: refs(10) }));
    rejects('seedance-2.5', { prompt: P, imageUrls: Array(20).fill(IMG), imageWithRoles: refs(11) }, 'imageUrls', /together must have at most 30 images \(got 31\)/);
    rejects('seedance-2.5', { prompt: P, imageUrls: Array(31).fill(IMG) }, 'imageUrls', /at most 30/);
    rejects('seedance-2.5', { prompt: P, imageWithRoles: refs(31) }, 'imageWithRoles', /at most 30/);
  });

  test('first/last-frame and extend jobs require size adaptive; extend needs a video', () => {
    assert.doesNotThrow(() => valid('seedance-2.5', { prompt: P, imageWithRoles: [first, last] }));
    rejects('seedance-2.5', { prompt: P, size: '16:9', imageWithRoles: [first] }, 'size', /must be "adaptive" for first\/last-frame jobs/);
    assert.doesNotThrow(() => valid('seedance-2.5', { prompt: P, size: '16:9', imageWithRoles: [{ url: IMG, role: 'reference_image' }] }));
    rejects('seedance-2.5', { prompt: P, size: '9:16', omniReferenceTaskType: 'extend', videoUrls: [VID] }, 'size', /extend jobs/);
    rejects('seedance-2.5', { prompt: P, omniReferenceTaskType: 'extend' }, 'videoUrls', /is required when omniReferenceTaskType is extend/);
    rejects('seedance-2.5', { prompt: P, imageWithRoles: [first, first] }, 'imageWithRoles[1].role', /repeats/);
  });

  test('videos 2 to 30 s each and 30 s in total; audio 30 s in total', () => {
    const input = { prompt: P, videoUrls: [VID, VID2], audioUrls: [AUD, AUD2] };
    assert.doesNotThrow(measuredCheck('seedance-2.5', input, [video(VID, 2), video(VID2, 28), audio(AUD, 15), audio(AUD2, 15)]));
    refused(measuredCheck('seedance-2.5', input, [video(VID, 1.5), video(VID2, 10), audio(AUD, 1), audio(AUD2, 1)]), 'input.videoUrls[0]', /2 to 30 s/);
    refused(measuredCheck('seedance-2.5', input, [video(VID, 10), video(VID2, 30.5), audio(AUD, 1), audio(AUD2, 1)]), 'input.videoUrls[1]', /2 to 30 s/);
    refused(measuredCheck('seedance-2.5', input, [video(VID, 16), video(VID2, 15), audio(AUD, 1), audio(AUD2, 1)]), 'input.videoUrls', /at most 30 s in total/);
    refused(measuredCheck('seedance-2.5', input, [video(VID, 5), video(VID2, 5), audio(AUD, 16), audio(AUD2, 15)]), 'input.audioUrls', /at most 30 s in total/);
    rejects('seedance-2.5', { prompt: P, videoUrls: Array(11).fill(VID) }, 'videoUrls', /at most 10/);
    rejects('seedance-2.5', { prompt: P, audioUrls: Array(11).fill(AUD) }, 'audioUrls', /at most 10/);
  });

  test('reference-input tier bills output plus input seconds', () => {
    const q = catalog.price('seedance-2.5', valid('seedance-2.5', { prompt: P, resolution: '1080p', duration: 10, videoUrls: [VID] }), [video(VID, 12.2)]);
    assert.equal(q.tierKey, '1080p:refInput');
    assert.equal(q.units, 23);
    assert.equal(q.costMicro, 6_610_200);
    assert.equal(cost('seedance-2.5', { prompt: P, resolution: '720p', duration: 30 }), 8_100_000);
  });
});
