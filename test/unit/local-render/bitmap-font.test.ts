import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CELL_HEIGHT, CELL_WIDTH, drawText, toFontText, wrapText } from '../../../src/providers/local/render/bitmap-font.ts';
import { seededRandom, seedFrom } from '../../../src/providers/local/render/seeded-random.ts';

function inkCount(alpha: Uint8Array): number {
  return alpha.reduce((sum, a) => sum + (a === 255 ? 1 : 0), 0);
}

describe('bitmap font', () => {
  test('text is upper-cased, accents stripped, dashes and quotes straightened, the rest replaced by ?', () => {
    assert.equal(toFontText('Crème brûlée — “hot”\n\tnow'), 'CREME BRULEE - "HOT" NOW');
    assert.equal(toFontText('cat 🐱 猫'), 'CAT ? ?');
  });

  test('wrapping breaks at spaces, cuts words longer than a line and marks cut-off text', () => {
    assert.deepEqual(wrapText('the quick brown fox jumps', 10, 5), ['THE QUICK', 'BROWN FOX', 'JUMPS']);
    assert.deepEqual(wrapText('abcdefghijklmnop', 6, 5), ['ABCDEF', 'GHIJKL', 'MNOP']);
    assert.deepEqual(wrapText('one two three four five six', 9, 2), ['ONE TWO', 'THREE...']);
    assert.deepEqual(wrapText('', 8, 2), []);
  });

  test('glyphs draw exactly their pixels, scaled as squares', () => {
    // I is a bar of 5 with serifs of 3 at top and bottom: 11 pixels.
    const one = drawText(['I'], 1, 1);
    assert.equal(one.width, CELL_WIDTH);
    assert.equal(one.height, CELL_HEIGHT);
    assert.equal(inkCount(one.alpha), 11);
    const big = drawText(['I'], 1, 3);
    assert.equal(inkCount(big.alpha), 11 * 9);
    // The top row of I is .###. : columns 1 to 3 inked.
    assert.deepEqual([...one.alpha.subarray(0, 5)], [0, 255, 255, 255, 0]);
    assert.equal(inkCount(drawText([' '], 1, 2).alpha), 0);
    // A character the font lacks is drawn as '?'.
    assert.deepEqual(drawText(['€'], 1, 1).alpha, drawText(['?'], 1, 1).alpha);
    assert.notDeepEqual(drawText(['A'], 1, 1).alpha, drawText(['?'], 1, 1).alpha);
  });
});

describe('seeded random', () => {
  test('the same seed gives the same sequence, another seed another one', () => {
    const a = seededRandom(seedFrom('x', 1));
    const b = seededRandom(seedFrom('x', 1));
    const c = seededRandom(seedFrom('x', 2));
    const seqA = Array.from({ length: 8 }, () => a.next());
    assert.deepEqual(seqA, Array.from({ length: 8 }, () => b.next()));
    assert.notDeepEqual(seqA, Array.from({ length: 8 }, () => c.next()));
    assert.ok(seqA.every((v) => v >= 0 && v < 1));
  });

  test('int stays in its inclusive bounds and reaches both ends', () => {
    const r = seededRandom(7);
    const seen = new Set(Array.from({ length: 400 }, () => r.int(2, 5)));
    assert.deepEqual([...seen].sort(), [2, 3, 4, 5]);
  });

  test('seeds separate strings from numbers and part boundaries', () => {
    assert.notEqual(seedFrom('ab', 'c'), seedFrom('a', 'bc'));
    assert.notEqual(seedFrom('1'), seedFrom(1));
    assert.equal(seedFrom('image', 'a fox', 3), seedFrom('image', 'a fox', 3));
  });
});
