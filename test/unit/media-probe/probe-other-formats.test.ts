import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { MediaKind } from '../../../src/domain/files/media-format.ts';
import { probeMedia } from '../../../src/adapters/media/probe-media.ts';
import { runFfmpeg } from '../../../src/providers/local/render/ffmpeg-path.ts';

// Containers the local renderers do not make, produced by ffmpeg: 2 s of tone, 160×120 pictures.
const SOURCES: Record<string, string[]> = {
  aac: ['-f', 'lavfi', '-i', 'sine=d=2', '-c:a', 'aac', '-f', 'adts'],
  m4a: ['-f', 'lavfi', '-i', 'sine=d=2', '-c:a', 'aac', '-f', 'ipod'],
  ogg: ['-f', 'lavfi', '-i', 'sine=d=2', '-c:a', 'libvorbis', '-f', 'ogg'],
  flac: ['-f', 'lavfi', '-i', 'sine=d=2', '-c:a', 'flac', '-f', 'flac'],
  webm: ['-f', 'lavfi', '-i', 'testsrc=s=160x120:d=2', '-f', 'lavfi', '-i', 'sine=d=2', '-c:v', 'libvpx', '-deadline', 'realtime', '-c:a', 'libopus', '-f', 'webm'],
  silentWebm: ['-f', 'lavfi', '-i', 'testsrc=s=160x120:d=2', '-c:v', 'libvpx', '-deadline', 'realtime', '-f', 'webm'],
  webp: ['-f', 'lavfi', '-i', 'testsrc=s=160x120', '-frames:v', '1', '-f', 'webp'],
  gif: ['-f', 'lavfi', '-i', 'testsrc=s=160x120', '-frames:v', '1', '-f', 'gif'],
};

let dir = '';
const files: Record<string, Buffer> = {};
before(async () => {
  dir = await mkdtemp(join(tmpdir(), 'probe-formats-'));
  for (const [name, args] of Object.entries(SOURCES)) {
    const out = join(dir, name);
    await runFfmpeg(['-loglevel', 'error', ...args, '-y', out], { timeoutMs: 30_000 });
    files[name] = await readFile(out);
  }
});
after(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function probe(name: string, kind: MediaKind) {
  const data = files[name];
  assert.ok(data, name);
  return probeMedia(data, { kind });
}

describe('probeMedia on other containers', () => {
  test('AAC, M4A, Ogg and FLAC report their format and about 2 s', async () => {
    for (const name of ['aac', 'm4a', 'ogg', 'flac']) {
      const result = await probe(name, 'audio');
      assert.equal(result.format, name);
      assert.ok(Math.abs((result.durationS ?? 0) - 2) < 0.05, `${name}: ${result.durationS}`);
    }
  });

  test('WebM reports size, length and whether it has sound', async () => {
    const withSound = await probe('webm', 'video');
    assert.deepEqual([withSound.format, withSound.width, withSound.height, withSound.hasAudio], ['webm', 160, 120, true]);
    assert.ok(Math.abs((withSound.durationS ?? 0) - 2) < 0.05);
    const silent = await probe('silentWebm', 'video');
    assert.equal(silent.hasAudio, false);
  });

  test('WebP and GIF report their size', async () => {
    for (const name of ['webp', 'gif']) {
      const result = await probe(name, 'image');
      assert.deepEqual([result.format, result.width, result.height], [name, 160, 120]);
    }
  });
});
