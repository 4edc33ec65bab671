import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AUD, AUD2, catalog, cost, IMG, rejects, valid } from './catalog-helpers.ts';

const S = 'suno';
const src = { sourceTaskId: 'task_song' };
const tracks = (n: number) => Array.from({ length: n }, (_, i) => `https://media.example.com/t${i}.mp3`);

describe('M1 (Suno): modes of the music action', () => {
  test('simple mode needs gptDescriptionPrompt and refuses the custom-mode fields', () => {
    rejects(S, {}, 'gptDescriptionPrompt', /required in simple mode/);
    rejects(S, { gptDescriptionPrompt: 'x', prompt: 'la la' }, 'prompt', /only used in custom mode/);
    rejects(S, { gptDescriptionPrompt: 'x', tags: 'pop' }, 'tags', /only used in custom mode/);
    assert.deepEqual(valid(S, { gptDescriptionPrompt: 'a song about rain' }), {
      action: 'music',
      custom: false,
      gptDescriptionPrompt: 'a song about rain',
      makeInstrumental: false,
    });
  });

  test('custom mode needs tags, and a prompt unless instrumental', () => {
    rejects(S, { custom: true, prompt: 'verse' }, 'tags', /required in custom mode/);
    rejects(S, { custom: true, tags: 'pop' }, 'prompt', /unless makeInstrumental/);
    assert.doesNotThrow(() => valid(S, { custom: true, tags: 'pop', makeInstrumental: true }));
    assert.doesNotThrow(() => valid(S, { custom: true, tags: 'pop', prompt: '[Verse] rain', title: 'Rain', mv: 'v5.5' }));
    rejects(S, { custom: true, tags: 'pop', prompt: 'x', gptDescriptionPrompt: 'y' }, 'gptDescriptionPrompt', /simple mode/);
  });

  test('mv: audio actions take the audio engines, lyrics takes remi-v1 or default; custom needs customModel', () => {
    rejects(S, { gptDescriptionPrompt: 'x', mv: 'remi-v1' }, 'mv', /"v3.5", "v4.0".*for action music/);
    rejects(S, { gptDescriptionPrompt: 'x', mv: 'v6' }, 'mv', /must be one of/);
    rejects(S, { action: 'lyrics', prompt: 'rain', mv: 'v5.0' }, 'mv', /"remi-v1", "default" for action lyrics/);
    assert.doesNotThrow(() => valid(S, { action: 'lyrics', prompt: 'rain', mv: 'remi-v1' }));
    rejects(S, { gptDescriptionPrompt: 'x', mv: 'custom' }, 'customModel', /required when mv is custom/);
    rejects(S, { gptDescriptionPrompt: 'x', customModel: { name: 'me', audioUrls: tracks(6) } }, 'customModel', /only used when mv is custom/);
    assert.doesNotThrow(() => valid(S, { gptDescriptionPrompt: 'x', mv: 'custom', customModel: { name: 'me', audioUrls: tracks(6) } }));
    rejects(S, { gptDescriptionPrompt: 'x', mv: 'custom', customModel: { name: 'me', audioUrls: tracks(5) } }, 'customModel.audioUrls', /at least 6/);
    rejects(S, { gptDescriptionPrompt: 'x', mv: 'custom', customModel: { name: 'me', audioUrls: tracks(25) } }, 'customModel.audioUrls', /at most 24/);
    rejects(S, { gptDescriptionPrompt: 'x', mv: 'custom', customModel: { audioUrls: tracks(6) } }, 'customModel.name', /is required/);
    rejects(S, { action: 'stems', ...src, mv: 'v5.0' }, 'mv', /not used by action stems/);
  });

  test('weights 0 to 1; vocalGender enum', () => {
    rejects(S, { gptDescriptionPrompt: 'x', styleWeight: 1.2 }, 'styleWeight', /from 0 to 1/);
    rejects(S, { gptDescriptionPrompt: 'x', audioWeight: -0.1 }, 'audioWeight');
    rejects(S, { gptDescriptionPrompt: 'x', vocalGender: 'Other' }, 'vocalGender');
  });
});

describe('M1 (Suno): per-action requirements', () => {
  test('each action refuses fields it does not use', () => {
    rejects(S, { gptDescriptionPrompt: 'x', continueAt: 30 }, 'continueAt', /not used by action music/);
    rejects(S, { action: 'lyrics', prompt: 'x', tags: 'pop' }, 'tags', /not used by action lyrics/);
    rejects(S, { gptDescriptionPrompt: 'x', aspectRatio: '16:9' }, 'aspectRatio', /not used by action music/);
    assert.equal(valid(S, { gptDescriptionPrompt: 'x' }).aspectRatio, undefined);
    assert.equal(valid(S, { action: 'music-video', ...src }).aspectRatio, '9:16');
  });

  test('extend needs a source and continueAt', () => {
    rejects(S, { action: 'extend', continueAt: 60 }, 'sourceTaskId', /or input.audioUrl is required for action extend/);
    rejects(S, { action: 'extend', ...src }, 'continueAt', /required for action extend/);
    rejects(S, { action: 'extend', ...src, audioUrl: AUD, continueAt: 60 }, 'audioUrl', /one source track/);
    assert.doesNotThrow(() => valid(S, { action: 'extend', ...src, audioId: 'a1', continueAt: 60 }));
    assert.doesNotThrow(() => valid(S, { action: 'extend', audioUrl: AUD, continueAt: 60, custom: true, tags: 'rock', prompt: 'more' }));
  });

  test('uploads: cover, add-instrumental, add-vocals, upload need audioUrl', () => {
    rejects(S, { action: 'cover' }, 'audioUrl', /required for action cover/);
    rejects(S, { action: 'add-instrumental', audioUrl: AUD }, 'tags', /required for action add-instrumental/);
    rejects(S, { action: 'add-vocals', audioUrl: AUD, tags: 'soul' }, 'prompt', /required for action add-vocals/);
    assert.doesNotThrow(() => valid(S, { action: 'add-vocals', audioUrl: AUD, tags: 'soul', prompt: 'la' }));
    rejects(S, { action: 'upload' }, 'audioUrl', /required for action upload/);
    rejects(S, { action: 'upload', audioUrl: 'file:///etc/passwd' }, 'audioUrl', /http or https/);
  });

  test('sourceTaskId actions and sections', () => {
    for (const action of ['wav', 'timestamped-lyrics', 'music-cover', 'music-video', 'concat']) rejects(S, { action }, 'sourceTaskId', new RegExp(`required for action ${action}`));
    rejects(S, { action: 'replace-section', ...src, startS: 10, endS: 20 }, 'prompt', /required for action replace-section/);
    for (const action of ['crop', 'remove-section', 'vox', 'sample']) {
      rejects(S, { action, ...src, startS: 10 }, 'endS', new RegExp(`required for action ${action}`));
      rejects(S, { action, ...src, startS: 30, endS: 30 }, 'endS', /greater than input.startS/);
    }
    assert.doesNotThrow(() => valid(S, { action: 'crop', ...src, startS: 10, endS: 40.5 }));
    rejects(S, { action: 'stems' }, 'sourceTaskId', /source track/);
    assert.equal(valid(S, { action: 'stems', ...src }).stemType, 'lead_vocal');
  });

  test('mashup: exactly 2 sources, audioIds not longer', () => {
    rejects(S, { action: 'mashup' }, 'sourceTaskIds', /required for action mashup/);
    rejects(S, { action: 'mashup', sourceTaskIds: ['task_a'] }, 'sourceTaskIds', /at least 2/);
    rejects(S, { action: 'mashup', sourceTaskIds: ['task_a', 'task_b', 'task_c'] }, 'sourceTaskIds', /at most 2/);
    rejects(S, { action: 'mashup', sourceTaskIds: ['task_a', 'task_b'], audioIds: ['a', 'b', 'c'] }, 'audioIds', /at most 2/);
    assert.doesNotThrow(() => valid(S, { action: 'mashup', sourceTaskIds: ['task_a', 'task_b'], audioIds: ['a'] }));
  });

  test('voice: from a recording or from a vox clip, with a name', () => {
    const upload = { voiceAudioUrl: AUD, verificationAudioUrl: AUD2, phraseId: 'ph_1', name: 'Ava' };
    assert.doesNotThrow(() => valid(S, { action: 'voice', ...upload, singerSkillLevel: 'Advanced' }));
    rejects(S, { action: 'voice', ...upload, name: undefined }, 'name', /required for action voice/);
    rejects(S, { action: 'voice', voiceAudioUrl: AUD, name: 'Ava' }, 'verificationAudioUrl', /required for action voice/);
    rejects(S, { action: 'voice', name: 'Ava', ...src, voxAudioId: 'vox_1' }, 'startS', /required for action voice/);
    assert.doesNotThrow(() => valid(S, { action: 'voice', name: 'Ava', ...src, voxAudioId: 'vox_1', startS: 5, endS: 20 }));
    rejects(S, { action: 'voice', ...upload, voxAudioId: 'vox_1' }, 'voiceAudioUrl', /recording or from a track/);
    rejects(S, { action: 'voice', ...upload, singerSkillLevel: 'Expert' }, 'singerSkillLevel');
  });

  test('inspo, fades, adjust-speed, sound, music-video bounds', () => {
    rejects(S, { action: 'inspo' }, 'audioUrls', /required for action inspo/);
    rejects(S, { action: 'inspo', audioUrls: tracks(5) }, 'audioUrls', /at most 4/);
    assert.doesNotThrow(() => valid(S, { action: 'inspo', audioUrls: tracks(4), autoLyrics: true }));
    rejects(S, { action: 'fade-in', ...src }, 'durationS', /required for action fade-in/);
    rejects(S, { action: 'adjust-speed', ...src }, 'speed', /required for action adjust-speed/);
    rejects(S, { action: 'adjust-speed', ...src, speed: 0.2 }, 'speed', /from 0.25 to 4/);
    rejects(S, { action: 'adjust-speed', ...src, speed: 4.5 }, 'speed', /from 0.25 to 4/);
    assert.equal(valid(S, { action: 'adjust-speed', ...src, speed: 1.5 }).keepPitch, true);
    rejects(S, { action: 'sound' }, 'prompt', /required for action sound/);
    rejects(S, { action: 'sound', prompt: 'door slam', key: 'H' }, 'key');
    assert.doesNotThrow(() => valid(S, { action: 'sound', prompt: 'drum loop', key: 'F#m', bpm: 120, type: 'loop' }));
    rejects(S, { action: 'music-video', ...src, author: 'a'.repeat(51) }, 'author', /at most 50/);
    rejects(S, { action: 'music-video', ...src, domainName: 'd'.repeat(51) }, 'domainName', /at most 50/);
    rejects(S, { action: 'music-video', ...src, backgroundColors: [] }, 'backgroundColors', /at least 1/);
    rejects(S, { action: 'music-video', ...src, backgroundColors: ['#fff', '#000', '#123', '#456', '#789'] }, 'backgroundColors', /at most 4/);
    rejects(S, { action: 'music-video', ...src, backgroundColors: ['red'] }, 'backgroundColors[0]', /hex colour/);
    assert.doesNotThrow(() => valid(S, { action: 'music-video', ...src, backgroundColors: ['#ff0000', '#0f0'], imageUrl: IMG, quality: 'max' }));
    rejects(S, { action: 'boost-style' }, 'tags', /required for action boost-style/);
    rejects(S, { action: 'sound', prompt: 'kick', bpm: 0 }, 'bpm', /from 1 to 300/);
    rejects(S, { action: 'fade-out', ...src, durationS: 0 }, 'durationS', /from 0.1 to 60/);
    rejects(S, { action: 'extend', ...src, continueAt: -1 }, 'continueAt');
    rejects(S, { action: 'crop', ...src, startS: -1, endS: 5 }, 'startS');
    rejects(S, { action: 'karaoke' }, 'action');
  });

  test('billed per action', () => {
    assert.equal(cost(S, { action: 'stems', ...src }), 50_000);
    assert.equal(cost(S, { action: 'stems-all', ...src }), 200_000);
    assert.equal(cost(S, { action: 'lyrics', prompt: 'rain' }), 12_000);
    assert.equal(cost(S, { action: 'extend', ...src, continueAt: 30 }), 60_000);
    assert.equal(catalog.get(S)?.pricing.length, 31);
    assert.equal(catalog.price(S, valid(S, { action: 'bpm', ...src })).tierKey, 'bpm');
  });
});

describe('M1 (Suno): the catalog publishes which fields each action uses', () => {
  const params = catalog.list().find((m) => m.id === S)?.params ?? [];
  const action = params.find((p) => p.name === 'action');

  test('every action lists its fields, all of them published params, with distinct labels', () => {
    const byValue = action?.fieldsByValue;
    assert.ok(byValue, 'action carries fieldsByValue');
    assert.deepEqual(Object.keys(byValue).sort(), (action?.options ?? []).map((o) => String(o.value)).sort());
    const names = new Set(params.map((p) => p.name));
    for (const [value, fields] of Object.entries(byValue)) {
      for (const f of fields) assert.ok(names.has(f), `${value}: ${f} is a published param`);
      const labels = fields.map((f) => params.find((p) => p.name === f)?.label);
      assert.equal(new Set(labels).size, labels.length, `${value}: no two fields share a label (${labels.join(', ')})`);
    }
    assert.deepEqual(byValue.bpm, ['sourceTaskId', 'audioId', 'audioUrl']);
    assert.ok(byValue.music?.includes('gptDescriptionPrompt'));
    assert.ok(!byValue.music?.includes('sourceTaskId'));
  });

  test('a field outside the chosen action\'s list is refused, as the list says', () => {
    rejects(S, { action: 'bpm', sourceTaskId: 'task_song', tags: 'pop' }, 'tags', /./);
    valid(S, { action: 'bpm', sourceTaskId: 'task_song' });
  });

  test('no other model publishes fieldsByValue', () => {
    for (const model of catalog.list()) if (model.id !== S) for (const p of model.params ?? []) assert.equal(p.fieldsByValue, undefined, `${model.id}.${p.name}`);
  });
});
