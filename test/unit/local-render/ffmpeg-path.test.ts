import assert from 'node:assert/strict';
import { accessSync, constants } from 'node:fs';
import { describe, test } from 'node:test';
import { FfmpegError, ffmpegPath, runFfmpeg } from '../../../src/providers/local/render/ffmpeg-path.ts';

describe('ffmpeg', () => {
  test('is found, executable, and has the encoders the renderers use', async () => {
    const path = ffmpegPath();
    assert.equal(ffmpegPath(), path);
    accessSync(path, constants.X_OK);
    const { stdout } = await runFfmpeg(['-encoders'], { timeoutMs: 20_000 });
    const list = stdout.toString('utf8');
    for (const encoder of ['libx264', 'aac', 'libmp3lame']) assert.match(list, new RegExp(` ${encoder} `, 'u'));
  });

  test('a failure rejects with the exit code and what ffmpeg said', async () => {
    const error = await runFfmpeg(['-loglevel', 'error', '-i', '/nonexistent/input.wav', '-f', 'null', '-'], { timeoutMs: 20_000 }).catch((e: unknown) => e);
    assert.ok(error instanceof FfmpegError);
    assert.equal(error.timedOut, false);
    assert.notEqual(error.exitCode, 0);
    assert.match(error.stderr, /No such file or directory/u);
  });

  test('a run past its time limit is killed', async () => {
    const started = performance.now();
    // An endless tone: only the time limit ends it.
    const error = await runFfmpeg(['-loglevel', 'error', '-re', '-f', 'lavfi', '-i', 'sine', '-f', 'null', '-'], { timeoutMs: 300 }).catch((e: unknown) => e);
    assert.ok(error instanceof FfmpegError);
    assert.equal(error.timedOut, true);
    assert.ok(performance.now() - started < 5_000);
  });

  test('stdin is fed to ffmpeg and stdout collected', async () => {
    const wavHeader = Buffer.alloc(44);
    wavHeader.write('RIFF', 0, 'latin1');
    wavHeader.writeUInt32LE(36 + 800, 4);
    wavHeader.write('WAVEfmt ', 8, 'latin1');
    wavHeader.writeUInt32LE(16, 16);
    wavHeader.writeUInt16LE(1, 20);
    wavHeader.writeUInt16LE(1, 22);
    wavHeader.writeUInt32LE(8000, 24);
    wavHeader.writeUInt32LE(16000, 28);
    wavHeader.writeUInt16LE(2, 32);
    wavHeader.writeUInt16LE(16, 34);
    wavHeader.write('data', 36, 'latin1');
    wavHeader.writeUInt32LE(800, 40);
    const { stdout } = await runFfmpeg(['-loglevel', 'error', '-f', 'wav', '-i', 'pipe:0', '-f', 's16le', '-ar', '8000', 'pipe:1'], {
      timeoutMs: 20_000,
      stdin: Buffer.concat([wavHeader, Buffer.alloc(800, 1)]),
    });
    assert.equal(stdout.length, 800);
    assert.equal(stdout[0], 1);
  });
});
