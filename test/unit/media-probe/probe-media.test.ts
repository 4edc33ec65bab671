import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { MediaProbeError, probeMedia } from '../../../src/adapters/media/probe-media.ts';
import { renderAudio } from '../../../src/providers/local/render/render-audio.ts';
import { renderImage } from '../../../src/providers/local/render/render-image.ts';
import { renderVideo } from '../../../src/providers/local/render/render-video.ts';

// Files from our own renderers: the renderers and the probe check each other.
const files: Record<string, Buffer> = {};
before(async () => {
  files.png = await renderImage({ prompt: 'probe me', seed: 1, width: 640, height: 480, format: 'png' });
  files.jpeg = await renderImage({ prompt: 'probe me', seed: 1, width: 300, height: 200, format: 'jpeg' });
  files.mp4 = await renderVideo({ prompt: 'probe me', seed: 1, width: 320, height: 180, durationS: 7, fps: 24, withAudio: true, format: 'mp4' });
  files.mov = await renderVideo({ prompt: 'probe me', seed: 1, width: 180, height: 320, durationS: 2.5, fps: 24, withAudio: false, format: 'mov' });
  files.wav = await renderAudio({ seed: 1, durationS: 3.25, format: 'wav' });
  files.mp3 = await renderAudio({ seed: 1, durationS: 5, format: 'mp3', title: 'x' });
});

function file(name: string): Buffer {
  const data = files[name];
  assert.ok(data, `fixture ${name}`);
  return data;
}

async function refusal(promise: Promise<unknown>): Promise<MediaProbeError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  assert.ok(error instanceof MediaProbeError, `expected a MediaProbeError, got ${String(error)}`);
  return error;
}

describe('probeMedia', () => {
  test('pictures: format and size from the bytes', async () => {
    assert.deepEqual(await probeMedia(file('png'), { kind: 'image' }), { format: 'png', kind: 'image', width: 640, height: 480, bytes: file('png').length });
    assert.deepEqual(await probeMedia(file('jpeg'), { kind: 'image' }), { format: 'jpeg', kind: 'image', width: 300, height: 200, bytes: file('jpeg').length });
  });

  test('a 7 s MP4 probes to 7 s with its size and sound', async () => {
    const probe = await probeMedia(file('mp4'), { kind: 'video' });
    assert.equal(probe.format, 'mp4');
    assert.equal(probe.kind, 'video');
    assert.ok(Math.abs((probe.durationS ?? 0) - 7) <= 0.1, `duration ${probe.durationS}`);
    assert.deepEqual([probe.width, probe.height, probe.hasAudio, probe.bytes], [320, 180, true, file('mp4').length]);
  });

  test('a silent portrait MOV probes to its size and length, without sound', async () => {
    const probe = await probeMedia(file('mov'), { kind: 'video' });
    assert.deepEqual(probe, { format: 'mov', kind: 'video', durationS: 2.5, width: 180, height: 320, hasAudio: false, bytes: file('mov').length });
  });

  test('WAV and MP3 probe to their durations', async () => {
    const wav = await probeMedia(file('wav'), { kind: 'audio' });
    assert.deepEqual(wav, { format: 'wav', kind: 'audio', durationS: 3.25, bytes: file('wav').length });
    const mp3 = await probeMedia(file('mp3'), { kind: 'audio' });
    assert.equal(mp3.format, 'mp3');
    assert.ok(Math.abs((mp3.durationS ?? 0) - 5) < 0.06, `duration ${mp3.durationS}`);
  });

  test('the sound track of an MP4 can be used as audio', async () => {
    const probe = await probeMedia(file('mp4'), { kind: 'audio' });
    assert.equal(probe.format, 'mp4');
    assert.equal(probe.kind, 'audio');
    assert.ok(Math.abs((probe.durationS ?? 0) - 7) <= 0.1);
  });

  test('truncated files are refused even when their headers look complete', async () => {
    for (const [name, kind] of [['mp4', 'video'], ['mov', 'video'], ['wav', 'audio'], ['mp3', 'audio'], ['png', 'image'], ['jpeg', 'image']] as const) {
      const whole = file(name);
      const cut = whole.subarray(0, Math.floor(whole.length * 0.6));
      const error = await refusal(probeMedia(cut, { kind }));
      assert.equal(error.reason, 'unreadable', name);
      assert.equal(error.format, name, name);
    }
  });

  test('garbage and empty input are refused as unsupported', async () => {
    const garbage = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 7919) % 251));
    assert.equal((await refusal(probeMedia(garbage, { kind: 'video' }))).reason, 'unsupported_format');
    assert.equal((await refusal(probeMedia(Buffer.from('<html>404</html>'), { kind: 'image' }))).reason, 'unsupported_format');
    const empty = await refusal(probeMedia(Buffer.alloc(0), { kind: 'audio' }));
    assert.equal(empty.reason, 'unsupported_format');
    assert.match(empty.message, /empty/u);
  });

  test('a file of the wrong kind is refused by what it is, not what it is called', async () => {
    const pictureAsVideo = await refusal(probeMedia(file('png'), { kind: 'video' }));
    assert.equal(pictureAsVideo.reason, 'wrong_kind');
    assert.match(pictureAsVideo.message, /expected a video, but the file is png/u);
    assert.equal((await refusal(probeMedia(file('mp3'), { kind: 'video' }))).reason, 'wrong_kind');
    assert.equal((await refusal(probeMedia(file('mp4'), { kind: 'image' }))).reason, 'wrong_kind');
    // A MOV with no sound track is not audio.
    const silent = await refusal(probeMedia(file('mov'), { kind: 'audio' }));
    assert.equal(silent.reason, 'wrong_kind');
    assert.match(silent.message, /no sound track/u);
  });

  test('damaged data after a valid signature is refused as unreadable', async () => {
    const png = Buffer.from(file('png'));
    png.fill(0x41, 100, 400);
    assert.equal((await refusal(probeMedia(png, { kind: 'image' }))).reason, 'unreadable');
    const mp4 = Buffer.from(file('mp4'));
    mp4.writeUInt32BE(0xfffffff0, 0);
    assert.equal((await refusal(probeMedia(mp4, { kind: 'video' }))).reason, 'unreadable');
  });
});
