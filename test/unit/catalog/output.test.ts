import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { MeasuredMedia } from '../../../src/domain/catalog/catalog.types.ts';
import { catalog, IMG, IMG2, VID, valid, video } from './catalog-helpers.ts';

const P = 'a comet over mountains';

function spec(model: string, input: Record<string, unknown>, measured: MeasuredMedia[] = []) {
  return catalog.outputSpec(model, valid(model, input), measured);
}

describe('output specs for the local provider', () => {
  test('images: tier is the long side, aspect sets the short side', () => {
    assert.deepEqual(spec('nano-banana-2', { prompt: P }), { kind: 'image', count: 1, width: 1024, height: 576, format: 'png' });
    assert.deepEqual(spec('nano-banana-2', { prompt: P, size: '1:1', resolution: '4K' }), { kind: 'image', count: 1, width: 4096, height: 4096, format: 'png' });
    assert.deepEqual(spec('nano-banana-2', { prompt: P, size: '9:16', resolution: '2K' }), { kind: 'image', count: 1, width: 1152, height: 2048, format: 'png' });
    assert.deepEqual(spec('nano-banana-2', { prompt: P, size: '21:9', resolution: '1K' }), { kind: 'image', count: 1, width: 1024, height: 440, format: 'png' });
    assert.deepEqual(spec('gpt-image-2', { prompt: P, size: 'auto', resolution: '2k' }), { kind: 'image', count: 1, width: 2048, height: 2048, format: 'png' });
    assert.deepEqual(spec('seedream-5.0-pro', { prompt: P, outputFormat: 'png', size: '4:3' }), { kind: 'image', count: 1, width: 2048, height: 1536, format: 'png' });
    assert.deepEqual(spec('seedream-4.5', { prompt: P, outputFormat: 'png' }), { kind: 'image', count: 1, width: 2048, height: 2048, format: 'jpeg' });
    assert.deepEqual(spec('wan-2.7-image', { prompt: P, width: 1280, height: 720 }), { kind: 'image', count: 1, width: 1280, height: 720, format: 'png' });
    assert.deepEqual(spec('qwen-image', { prompt: P, urls: [IMG] }), { kind: 'image', count: 1, width: 1024, height: 1024, format: 'png' });
  });

  test('midjourney: a grid of 4 tiles, one upscale, describe is data', () => {
    assert.deepEqual(spec('midjourney', { prompt: P }), { kind: 'image', count: 4, width: 1024, height: 1024, format: 'png' });
    assert.deepEqual(spec('midjourney', { prompt: P, size: '16:9', repeat: 2 }), { kind: 'image', count: 8, width: 1024, height: 576, format: 'png' });
    assert.deepEqual(spec('midjourney', { action: 'upscale', parentTaskId: 't', index: 1 }), { kind: 'image', count: 1, width: 2048, height: 2048, format: 'png' });
    assert.deepEqual(spec('midjourney', { action: 'blend', imageUrls: [IMG, IMG2], dimensions: 'PORTRAIT' }), { kind: 'image', count: 4, width: 680, height: 1024, format: 'png' });
    assert.deepEqual(spec('midjourney', { action: 'describe', imageUrls: [IMG] }), { kind: 'data', dataType: 'image-description', items: 4 });
  });

  test('videos: resolution is the short side, duration and audio as requested', () => {
    assert.deepEqual(spec('sora-2', { prompt: P, duration: 15, aspectRatio: '9:16' }), {
      kind: 'video',
      count: 1,
      width: 720,
      height: 1280,
      durationS: 15,
      fps: 24,
      withAudio: true,
      format: 'mp4',
    });
    assert.deepEqual(spec('seedance-2.0', { prompt: P }), { kind: 'video', count: 1, width: 854, height: 480, durationS: 5, fps: 24, withAudio: true, format: 'mp4' });
    const s25 = spec('seedance-2.5', { prompt: P, outputFormat: 'mov', generateAudio: false, resolution: '1080p', size: '21:9' });
    assert.deepEqual(s25, { kind: 'video', count: 1, width: 2520, height: 1080, durationS: 5, fps: 24, withAudio: false, format: 'mov' });
    assert.deepEqual(spec('veo-3.1-lite', { prompt: P, resolution: '4k' }), { kind: 'video', count: 1, width: 3840, height: 2160, durationS: 8, fps: 24, withAudio: true, format: 'mp4' });
    assert.deepEqual(spec('wan-3.0', { prompt: P, size: '9:16', resolution: '1080p', duration: 12, audio: false }), {
      kind: 'video',
      count: 1,
      width: 1080,
      height: 1920,
      durationS: 12,
      fps: 24,
      withAudio: false,
      format: 'mp4',
    });
    assert.deepEqual(spec('pixverse-v6', { prompt: P, audio: true, resolution: '540p', size: '1:1', duration: 3 }), {
      kind: 'video',
      count: 1,
      width: 540,
      height: 540,
      durationS: 3,
      fps: 24,
      withAudio: true,
      format: 'mp4',
    });
  });

  test('measured inputs drive V9 and V11 durations; V13 count is the batch', () => {
    const v9 = spec('kling-2.6-motion-control', { imageUrls: [IMG], videoUrls: [VID], characterOrientation: 'image' }, [video(VID, 7.5)]);
    assert.equal(v9.kind === 'video' ? v9.durationS : 0, 7.5);
    const edit = spec('wan-2.7', { prompt: P, editVideoUrl: VID }, [video(VID, 6)]);
    assert.equal(edit.kind === 'video' ? edit.durationS : 0, 6);
    const cont = spec('wan-2.7', { continueVideoUrl: VID, duration: 8 }, [video(VID, 4)]);
    assert.equal(cont.kind === 'video' ? cont.durationS : 0, 12);
    assert.deepEqual(spec('midjourney-video', { imageUrls: [IMG], prompt: P, batchSize: 4, videoType: 'vid_1.1_i2v_720' }), {
      kind: 'video',
      count: 4,
      width: 720,
      height: 720,
      durationS: 5,
      fps: 24,
      withAudio: false,
      format: 'mp4',
    });
  });

  test('music: two takes per song, stems, wav, edits, data actions', () => {
    const src = { sourceTaskId: 'task_song' };
    assert.deepEqual(spec('suno', { gptDescriptionPrompt: 'x' }), { kind: 'audio', tracks: 2, durationS: 120, format: 'mp3', withLyrics: true });
    assert.deepEqual(spec('suno', { gptDescriptionPrompt: 'x', makeInstrumental: true }), { kind: 'audio', tracks: 2, durationS: 120, format: 'mp3', withLyrics: false });
    assert.deepEqual(spec('suno', { action: 'wav', ...src }), { kind: 'audio', tracks: 1, durationS: 120, format: 'wav', withLyrics: true });
    const all = spec('suno', { action: 'stems-all', ...src });
    assert.equal(all.kind === 'audio' ? all.tracks : 0, 12);
    assert.deepEqual(spec('suno', { action: 'stems', ...src, stemType: 'bass' }), { kind: 'audio', tracks: 2, durationS: 120, format: 'mp3', withLyrics: false, stems: ['bass', 'without_bass'] });
    assert.deepEqual(spec('suno', { action: 'crop', ...src, startS: 10, endS: 40 }), { kind: 'audio', tracks: 1, durationS: 30, format: 'mp3', withLyrics: true });
    assert.deepEqual(spec('suno', { action: 'sound', prompt: 'loop', type: 'loop' }), { kind: 'audio', tracks: 2, durationS: 8, format: 'mp3', withLyrics: false });
    assert.deepEqual(spec('suno', { action: 'lyrics', prompt: 'rain' }), { kind: 'data', dataType: 'lyrics', items: 2 });
    assert.deepEqual(spec('suno', { action: 'bpm', ...src }), { kind: 'data', dataType: 'bpm', items: 1 });
    assert.deepEqual(spec('suno', { action: 'voice', name: 'A', voiceAudioUrl: IMG, verificationAudioUrl: IMG2, phraseId: 'p' }), { kind: 'data', dataType: 'persona', items: 1 });
    const mv = spec('suno', { action: 'music-video', ...src, aspectRatio: '16:9', quality: 'high' });
    assert.deepEqual(mv, { kind: 'video', count: 1, width: 1280, height: 720, durationS: 60, fps: 24, withAudio: true, format: 'mp4' });
  });
});

describe('task references', () => {
  test('the parent task ids an input names', () => {
    assert.deepEqual(catalog.taskReferences('midjourney', valid('midjourney', { action: 'upscale', parentTaskId: 'task_a', index: 1 })), ['task_a']);
    assert.deepEqual(catalog.taskReferences('midjourney-video', valid('midjourney-video', { parentTaskId: 'task_b' })), ['task_b']);
    assert.deepEqual(catalog.taskReferences('pixverse-v6', valid('pixverse-v6', { prompt: P, extendFromTaskId: 'task_c' })), ['task_c']);
    assert.deepEqual(catalog.taskReferences('suno', valid('suno', { action: 'wav', sourceTaskId: 'task_d' })), ['task_d']);
    assert.deepEqual(catalog.taskReferences('suno', valid('suno', { action: 'mashup', sourceTaskIds: ['task_e', 'task_f'] })), ['task_e', 'task_f']);
    assert.deepEqual(catalog.taskReferences('sora-2', valid('sora-2', { prompt: P })), []);
    assert.deepEqual(catalog.taskReferences('midjourney', valid('midjourney', { prompt: P })), []);
  });
});
