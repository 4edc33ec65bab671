import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseBuffer } from 'music-metadata';
import sharp from 'sharp';
import { makeLyrics, renderMusicTrack, renderSong } from '../../../src/providers/local/render/render-music.ts';
import { seededRandom } from '../../../src/providers/local/render/seeded-random.ts';

const PROMPT = 'a summer song about lighthouses and the ocean breeze';

describe('renderMusicTrack', () => {
  test('a song is two different tracks with audio, cover, title, tags and lyrics', async () => {
    const [first, second] = await renderSong({ prompt: PROMPT, seed: 1, durationS: 4, format: 'mp3' });
    assert.deepEqual([first.index, second.index], [0, 1]);
    assert.ok(!first.audio.equals(second.audio));
    assert.ok(!first.cover.equals(second.cover));
    for (const track of [first, second]) {
      const meta = await parseBuffer(track.audio);
      assert.ok(Math.abs((meta.format.duration ?? 0) - 4) < 0.06);
      assert.equal(meta.common.title, track.title);
      assert.equal(track.durationS, 4);
      assert.match(track.title, /^[A-Z][a-z]+ [A-Z][a-z-]+$/u);
      assert.equal(track.tags.length, 3);
      assert.match(track.lyrics, /^\[Verse 1\]\n/u);
      assert.equal(track.lyrics.split('\n').filter((l) => l.startsWith('[')).length, 4);
      const cover = await sharp(track.cover).metadata();
      assert.deepEqual([cover.format, cover.width, cover.height], ['jpeg', 512, 512]);
    }
  });

  test('the same request gives the same track; given title, tags and lyrics are kept', async () => {
    const options = { prompt: PROMPT, seed: 8, durationS: 2, format: 'wav', title: 'Harbor Lights', tags: ['folk', 'acoustic'], lyrics: 'la la la\n' } as const;
    const a = await renderMusicTrack(options);
    const b = await renderMusicTrack(options);
    assert.ok(a.audio.equals(b.audio));
    assert.ok(a.cover.equals(b.cover));
    assert.equal(a.title, 'Harbor Lights');
    assert.deepEqual(a.tags, ['folk', 'acoustic']);
    assert.equal(a.lyrics, 'la la la');
    assert.equal(a.format, 'wav');
  });

  test('an instrumental has no lyrics; cover size and format can be chosen', async () => {
    const track = await renderMusicTrack({ prompt: PROMPT, seed: 2, durationS: 1, format: 'wav', instrumental: true, coverSize: 300, coverFormat: 'png' });
    assert.equal(track.lyrics, '');
    const cover = await sharp(track.cover).metadata();
    assert.deepEqual([cover.format, cover.width, cover.height], ['png', 300, 300]);
  });

  test('generated lyrics sing the words of the prompt', () => {
    const lyrics = makeLyrics(seededRandom(4), PROMPT);
    const words = new Set(['summer', 'song', 'about', 'lighthouses', 'ocean', 'breeze']);
    const used = lyrics.toLowerCase().match(/\p{L}+/gu)?.filter((w) => words.has(w)) ?? [];
    assert.ok(used.length >= 4, `prompt words used: ${used.join(', ')}`);
    assert.equal(makeLyrics(seededRandom(4), PROMPT), lyrics);
  });
});
