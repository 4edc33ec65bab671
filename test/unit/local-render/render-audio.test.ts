import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBuffer } from 'music-metadata';
import { encodeWav, renderAudio, synthesizeMelody } from '../../../src/providers/local/render/render-audio.ts';

describe('renderAudio', () => {
  test('WAV holds exactly round(duration × 44100) mono 16-bit samples', async () => {
    for (const durationS of [0.5, 7, 12.345]) {
      const wav = await renderAudio({ seed: 1, durationS, format: 'wav' });
      assert.equal(wav.toString('latin1', 0, 4), 'RIFF');
      assert.equal(wav.readUInt32LE(4), wav.length - 8);
      const dataAt = wav.indexOf('data', 12, 'latin1');
      assert.equal(wav.readUInt32LE(dataAt + 4), Math.round(durationS * 44_100) * 2);
      const meta = await parseBuffer(wav);
      assert.equal(meta.format.sampleRate, 44_100);
      assert.equal(meta.format.numberOfChannels, 1);
      assert.ok(Math.abs((meta.format.duration ?? 0) - durationS) < 1e-4);
    }
  });

  test('MP3 lasts the requested time within two MPEG frames and carries title and genre', async () => {
    const mp3 = await renderAudio({ seed: 2, durationS: 7, format: 'mp3', title: 'Neon Tide', tags: ['synthwave', 'chill'] });
    assert.equal(mp3.toString('latin1', 0, 3), 'ID3');
    const meta = await parseBuffer(mp3);
    assert.equal(meta.format.container, 'MPEG');
    assert.ok(Math.abs((meta.format.duration ?? 0) - 7) < 0.06, `duration ${meta.format.duration}`);
    assert.equal(meta.common.title, 'Neon Tide');
    assert.deepEqual(meta.common.genre, ['synthwave, chill']);
  });

  test('the title and genre also go into the WAV INFO list', async () => {
    const wav = await renderAudio({ seed: 2, durationS: 1, format: 'wav', title: 'Paper Harbor', tags: ['folk'] });
    const meta = await parseBuffer(wav);
    assert.equal(meta.common.title, 'Paper Harbor');
    assert.deepEqual(meta.common.genre, ['folk']);
  });

  test('the same seed gives the same bytes, another seed another melody', async () => {
    const a = await renderAudio({ seed: 5, durationS: 2, format: 'mp3' });
    const b = await renderAudio({ seed: 5, durationS: 2, format: 'mp3' });
    assert.ok(a.equals(b));
    const one = await synthesizeMelody({ seed: 5, durationS: 2, sampleRate: 44_100 });
    const two = await synthesizeMelody({ seed: 6, durationS: 2, sampleRate: 44_100 });
    assert.notDeepEqual(one, two);
  });

  test('the melody is audible, not clipped, and fades to silence at both ends', async () => {
    const samples = await synthesizeMelody({ seed: 11, durationS: 3, sampleRate: 44_100 });
    let peak = 0;
    let energy = 0;
    for (const s of samples) {
      peak = Math.max(peak, Math.abs(s));
      energy += s * s;
    }
    const rms = Math.sqrt(energy / samples.length);
    assert.ok(rms > 1500, `rms ${rms}`);
    assert.ok(peak < 32_000, `peak ${peak}`);
    assert.equal(samples[0], 0);
    assert.equal(samples[samples.length - 1], 0);
  });

  test('encodeWav writes a canonical header', () => {
    const wav = encodeWav(Int16Array.from([0, 1000, -1000, 32767]), 8000);
    assert.equal(wav.length, 44 + 8);
    assert.equal(wav.toString('latin1', 8, 16), 'WAVEfmt ');
    assert.equal(wav.readUInt32LE(24), 8000);
    assert.equal(wav.readInt16LE(44 + 4), -1000);
    assert.equal(wav.readInt16LE(44 + 6), 32767);
  });

  test('impossible durations are refused', async () => {
    await assert.rejects(renderAudio({ seed: 1, durationS: 0, format: 'wav' }), RangeError);
    await assert.rejects(renderAudio({ seed: 1, durationS: Number.NaN, format: 'mp3' }), RangeError);
    await assert.rejects(renderAudio({ seed: 1, durationS: 601, format: 'wav' }), RangeError);
    await assert.rejects(renderAudio({ seed: 1, durationS: 1, format: 'ogg' as 'wav' }), /unsupported audio format ogg/);
  });
});
