import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parseBuffer } from 'music-metadata';
import { runFfmpeg } from '../../../src/providers/local/render/ffmpeg-path.ts';
import { renderVideo, videoDimensions } from '../../../src/providers/local/render/render-video.ts';

const BASE = { prompt: 'A red fox running through snow', seed: 3, width: 320, height: 180, durationS: 3, fps: 24, withAudio: true, format: 'mp4' } as const;

let dir = '';
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'render-video-test-'));
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Decodes one frame at `atS` seconds to raw RGB. */
async function frameAt(video: Buffer, atS: number, name: string): Promise<Buffer> {
  const input = join(dir, `${name}.mp4`);
  const output = join(dir, `${name}-${atS}.rgb`);
  await writeFile(input, video);
  await runFfmpeg(['-loglevel', 'error', '-ss', String(atS), '-i', input, '-frames:v', '1', '-f', 'rawvideo', '-pix_fmt', 'rgb24', '-y', output], { timeoutMs: 30_000 });
  return readFile(output);
}

describe('renderVideo', () => {
  test('an MP4 with H.264 video and AAC sound, at the requested size and duration', async () => {
    const video = await renderVideo(BASE);
    assert.equal(video.toString('latin1', 4, 8), 'ftyp');
    const meta = await parseBuffer(video);
    const picture = meta.format.trackInfo.find((t) => t.video !== undefined);
    assert.deepEqual([picture?.video?.pixelWidth, picture?.video?.pixelHeight], [320, 180]);
    assert.equal(picture?.codecName, '<avc1>');
    assert.equal(picture?.duration, 3);
    const sound = meta.format.trackInfo.find((t) => t.audio !== undefined);
    assert.equal(sound?.codecName, 'MPEG-4/AAC');
    // AAC rounds up to whole 1024-sample frames: at most one video frame longer.
    assert.ok(Math.abs((sound?.duration ?? 0) - 3) < 1 / 24, `audio ${sound?.duration}`);
  });

  test('the same inputs give the same bytes; another seed gives another video', async () => {
    const a = await renderVideo({ ...BASE, durationS: 1 });
    const b = await renderVideo({ ...BASE, durationS: 1 });
    assert.ok(a.equals(b));
    const c = await renderVideo({ ...BASE, durationS: 1, seed: 4 });
    assert.ok(!a.equals(c));
  });

  test('the picture moves between frames', async () => {
    const video = await renderVideo({ ...BASE, withAudio: false, durationS: 2 });
    const early = await frameAt(video, 0.2, 'motion');
    const late = await frameAt(video, 1.2, 'motion');
    assert.equal(early.length, 320 * 180 * 3);
    let changed = 0;
    for (let i = 0; i < early.length; i += 1) if (Math.abs((early[i] as number) - (late[i] as number)) > 40) changed += 1;
    // The square (26×26 here) glides and the progress bar grows: together well over 1% of the bytes.
    assert.ok(changed > early.length / 100, `only ${changed} bytes changed`);
  });

  test('MOV without sound has the QuickTime brand and a single track', async () => {
    const video = await renderVideo({ ...BASE, format: 'mov', withAudio: false, width: 180, height: 320, durationS: 2.5 });
    assert.equal(video.toString('latin1', 8, 12), 'qt  ');
    const meta = await parseBuffer(video);
    assert.equal(meta.format.trackInfo.length, 1);
    // 2.5 s at 24 fps is 60 frames exactly.
    assert.equal(meta.format.trackInfo[0]?.duration, 2.5);
  });

  test('odd sizes, silly durations and frame rates are refused before ffmpeg runs', async () => {
    await assert.rejects(renderVideo({ ...BASE, width: 321 }), /even integer/);
    await assert.rejects(renderVideo({ ...BASE, durationS: 0 }), RangeError);
    await assert.rejects(renderVideo({ ...BASE, durationS: 61 }), RangeError);
    await assert.rejects(renderVideo({ ...BASE, fps: 23.976 }), /fps/);
    await assert.rejects(renderVideo({ ...BASE, width: 7680, height: 4320 }), /pixels/);
  });
});

describe('videoDimensions', () => {
  test('the short side is the resolution, both sides even', () => {
    assert.deepEqual(videoDimensions('16:9', '480p'), { width: 854, height: 480 });
    assert.deepEqual(videoDimensions('16:9', '1080p'), { width: 1920, height: 1080 });
    assert.deepEqual(videoDimensions('9:16', '720p'), { width: 720, height: 1280 });
    assert.deepEqual(videoDimensions('1:1', '720p'), { width: 720, height: 720 });
    assert.deepEqual(videoDimensions('21:9', '4k'), { width: 5040, height: 2160 });
    assert.deepEqual(videoDimensions('4:3', '360p'), { width: 480, height: 360 });
    assert.throws(() => videoDimensions('adaptive', '720p'), RangeError);
    assert.throws(() => videoDimensions('16:9', 'huge'), RangeError);
  });
});
