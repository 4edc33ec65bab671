/**
 * Issue 21, item 11: which Suno fields are required in which action and mode comes from one list.
 * The catalog publishes it on the params; the functions the dashboard uses to mark and check fields,
 * fed with the published params, must agree with the service's validation for every action and mode:
 * a complete input passes both, and leaving out any one required field is refused by the service
 * on exactly the field the published rules name.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { missingOf, requiredFieldNames, requiredMarks, rulesOfParams, unmetRequirements } from '../../../src/domain/catalog/dsl/required-when.ts';
import { SUNO_ACTIONS } from '../../../src/domain/catalog/families/suno.fields.ts';
import { SUNO_REQUIRED } from '../../../src/domain/catalog/families/suno.required.ts';
import { AUD, AUD2, catalog, rejects, valid } from './catalog-helpers.ts';

const S = 'suno';
const params = catalog.list().find((m) => m.id === S)?.params ?? [];
const published = rulesOfParams(params);

/** A value each field accepts. */
const SAMPLE: Record<string, unknown> = {
  sourceTaskId: 'task_song',
  audioUrl: AUD,
  continueAt: 30,
  tags: 'synthwave',
  prompt: '[Verse] rain on the window',
  gptDescriptionPrompt: 'a song about rain',
  name: 'Ava',
  voiceAudioUrl: AUD,
  verificationAudioUrl: AUD2,
  phraseId: 'phrase_1',
  voxAudioId: 'vox_1',
  durationS: 2,
  speed: 1.5,
  audioUrls: [AUD, AUD2],
  sourceTaskIds: ['task_a', 'task_b'],
  startS: 10,
  endS: 20,
  customModel: { name: 'mine', audioUrls: Array.from({ length: 6 }, (_, i) => `https://media.example.com/t${i}.mp3`) },
};

/** The input a form with defaults holds before anything is filled in. */
function defaults(base: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const p of params) if (p.default !== undefined && p.default !== null) out[p.name] = p.default;
  return { ...out, ...base };
}

/** The mode an action can run in: every action, plus custom mode, instrumental custom mode and the custom engine where they apply. */
function cases(): Array<{ name: string; base: Record<string, unknown> }> {
  const out = SUNO_ACTIONS.map((o) => ({ name: `action ${o.value}`, base: { action: o.value } as Record<string, unknown> }));
  out.push({ name: 'music in custom mode', base: { action: 'music', custom: true } });
  out.push({ name: 'music in custom mode, instrumental', base: { action: 'music', custom: true, makeInstrumental: true } });
  out.push({ name: 'extend in custom mode', base: { action: 'extend', custom: true } });
  out.push({ name: 'music with the custom engine', base: { action: 'music', mv: 'custom' } });
  return out;
}

/**
 * The fields the rules require for `base`, each filled with its sample: the first of an or-group
 * only, and the whole first set of an either/or rule.
 */
function complete(base: Record<string, unknown>): { input: Record<string, unknown>; required: string[] } {
  const input = defaults(base);
  const applying = published.filter((r) => requiredFieldNames([r], input).size > 0);
  const required = applying.flatMap((r) => (r.alternatives ? [...(r.alternatives[0] ?? [])] : [r.field]));
  for (const field of required) input[field] = SAMPLE[field];
  return { input, required: [...new Set(required)] };
}

describe('Suno required fields: one list for the service and the form', () => {
  test('the catalog publishes exactly the declared list, each rule on the param it names', () => {
    const sorted = (list: typeof published) => list.map((r) => JSON.stringify(r)).sort();
    assert.deepEqual(sorted(published), sorted([...SUNO_REQUIRED]));
    for (const rule of SUNO_REQUIRED) assert.ok(params.some((p) => p.name === rule.field), `${rule.field} is a published param`);
    assert.ok(published.length > 30, 'every action with a requirement is listed');
  });

  for (const { name, base } of cases()) {
    test(`${name}: a complete input passes; each required field left out is refused on that field`, () => {
      const { input, required } = complete(base);
      assert.deepEqual(unmetRequirements(published, input), [], `the form finds nothing missing in ${JSON.stringify(input)}`);
      assert.doesNotThrow(() => valid(S, input), `the service accepts ${JSON.stringify(input)}`);
      for (const field of required) {
        const without = { ...input };
        delete without[field];
        const unmet = unmetRequirements(published, without);
        assert.ok(unmet[0], `the form finds ${field} missing`);
        assert.equal(missingOf(unmet[0], without)[0]?.[0], field, `the form names ${field} as missing`);
        rejects(S, without, field, /is required/);
      }
    });
  }

  test('the modes: simple mode needs a description, custom mode a style and lyrics unless instrumental', () => {
    const names = (base: Record<string, unknown>) => [...requiredFieldNames(published, defaults(base))].sort();
    assert.deepEqual(names({ action: 'music' }), ['gptDescriptionPrompt']);
    assert.deepEqual(names({ action: 'music', custom: true }), ['prompt', 'tags']);
    assert.deepEqual(names({ action: 'music', custom: true, makeInstrumental: true }), ['tags']);
    assert.deepEqual(names({ action: 'extend' }), ['audioUrl', 'continueAt', 'sourceTaskId']);
    assert.deepEqual(names({ action: 'bpm' }), ['audioUrl', 'sourceTaskId']);
    assert.deepEqual(names({ action: 'crop' }), ['audioUrl', 'endS', 'sourceTaskId', 'startS']);
    assert.deepEqual(names({ action: 'sound' }), ['prompt']);
  });

  test('a source track: either field satisfies it, the message names both', () => {
    const [rule] = unmetRequirements(published, defaults({ action: 'stems' }));
    assert.deepEqual([rule?.field, rule?.orFields], ['sourceTaskId', ['audioUrl']]);
    assert.deepEqual(unmetRequirements(published, defaults({ action: 'stems', audioUrl: AUD })), []);
    rejects(S, { action: 'stems' }, 'sourceTaskId', /or input.audioUrl is required for action stems/);
  });

  test('a voice: one of two sets (a recording, or a clip of a track), marked, named and refused alike', () => {
    const [rule] = published.filter((r) => r.alternatives);
    assert.deepEqual(rule?.alternatives, [
      ['voiceAudioUrl', 'verificationAudioUrl', 'phraseId'],
      ['sourceTaskId', 'voxAudioId', 'startS', 'endS'],
    ]);
    assert.ok(rule && params.find((p) => p.name === rule.field)?.requiredWhen?.some((r) => r.alternatives), 'published on the param it names');
    const marks = (base: Record<string, unknown>) => Object.fromEntries([...requiredMarks(published, defaults({ action: 'voice', ...base }))].sort());
    const need = (base: Record<string, unknown>) => unmetRequirements(published, defaults({ action: 'voice', name: 'Ava', ...base })).flatMap((r) => missingOf(r, defaults({ action: 'voice', name: 'Ava', ...base })));

    // Nothing chosen yet: the first field of each set, as alternatives to each other.
    assert.deepEqual(marks({}), { name: [], sourceTaskId: ['voiceAudioUrl'], voiceAudioUrl: ['sourceTaskId'] });
    assert.deepEqual(need({}), [['voiceAudioUrl', 'sourceTaskId']]);
    rejects(S, { action: 'voice', name: 'Ava' }, 'voiceAudioUrl', /or input.sourceTaskId is required for action voice/);

    // A recording begun: its set is required, the track's is not.
    assert.deepEqual(marks({ voiceAudioUrl: AUD }), { name: [], phraseId: [], verificationAudioUrl: [], voiceAudioUrl: [] });
    assert.deepEqual(need({ voiceAudioUrl: AUD }), [['verificationAudioUrl'], ['phraseId']]);
    rejects(S, { action: 'voice', name: 'Ava', voiceAudioUrl: AUD }, 'verificationAudioUrl', /is required for action voice/);

    // A clip of a track begun: the track's set.
    assert.deepEqual(marks({ voxAudioId: 'vox_1' }), { endS: [], name: [], sourceTaskId: [], startS: [], voxAudioId: [] });
    assert.deepEqual(need({ voxAudioId: 'vox_1', sourceTaskId: 'task_song' }), [['startS'], ['endS']]);
    rejects(S, { action: 'voice', name: 'Ava', voxAudioId: 'vox_1', sourceTaskId: 'task_song' }, 'startS', /is required for action voice/);

    assert.deepEqual(need({ voxAudioId: 'vox_1', sourceTaskId: 'task_song', startS: 5, endS: 20 }), []);
    assert.doesNotThrow(() => valid(S, { action: 'voice', name: 'Ava', voxAudioId: 'vox_1', sourceTaskId: 'task_song', startS: 5, endS: 20 }));
    assert.doesNotThrow(() => valid(S, { action: 'voice', name: 'Ava', voiceAudioUrl: AUD, verificationAudioUrl: AUD2, phraseId: 'phrase_1' }));
  });
});
