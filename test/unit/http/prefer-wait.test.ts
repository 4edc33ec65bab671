import assert from 'node:assert/strict';
import { test } from 'node:test';
import { preferWaitSeconds } from '../../../src/http/prefer-wait.ts';

test('Prefer: wait=N is read as Replicate reads it: 1 to 60, bare wait 60, more held to 60, the rest ignored', () => {
  const cases: Array<[string | string[] | undefined, number | undefined]> = [
    ['wait=1', 1],
    ['wait=60', 60],
    ['wait=61', 60],
    ['wait=999999999', 60],
    ['wait', 60],
    ['WAIT = 5', 5],
    ['respond-async, wait=7', 7],
    ['wait=8; foo=bar', 8],
    [['return=minimal', 'wait=9'], 9],
    ['wait="3"', 3],
    ['wait=0', undefined],
    ['wait=-1', undefined],
    ['wait=1.5', undefined],
    ['wait=abc', undefined],
    ['wait=', undefined],
    ['waiting=5', undefined],
    ['return=minimal', undefined],
    ['', undefined],
    [undefined, undefined],
  ];
  for (const [header, expected] of cases) assert.equal(preferWaitSeconds(header), expected, JSON.stringify(header));
});
