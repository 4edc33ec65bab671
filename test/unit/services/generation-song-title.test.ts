import assert from 'node:assert/strict';
import { test } from 'node:test';
import { songTitle } from '../../../src/services/stats/generation-list.service.ts';

test('a music generation is named by its song: the distinct track titles, in order', () => {
  assert.equal(songTitle({ tracks: [{ title: 'Rain on the Window' }, { title: 'Rain on the Window' }] }), 'Rain on the Window');
  assert.equal(songTitle({ tracks: [{ title: ' Rain ' }, { title: 'Rain (take 2)' }] }), 'Rain / Rain (take 2)');
});

test('no title without tracks that have one', () => {
  assert.equal(songTitle(null), null);
  assert.equal(songTitle({ images: [] }), null);
  assert.equal(songTitle({ tracks: [{ title: '' }, { audioId: 'a1' }, null, 'x'] }), null);
});
