import assert from 'node:assert/strict';
import { test } from 'node:test';
import { idFloor, newId } from '../../../src/domain/ids.ts';

test('ids are prefixed ULIDs in lower-case Crockford base 32', () => {
  const id = newId('led', Date.UTC(2026, 10, 22));
  assert.match(id, /^led_[0-9a-hjkmnp-tv-z]{26}$/);
  // The first ten characters are the time: ids of later milliseconds sort after.
  assert.ok(newId('led', Date.UTC(2026, 10, 22) + 1) > id);
});

test('ids made in one millisecond sort in the order they were made, also when the clock steps back', () => {
  const now = Date.UTC(2030, 0, 1);
  const ids = Array.from({ length: 2000 }, (_, i) => newId('x', i < 1000 ? now : now - 5));
  for (let i = 1; i < ids.length; i++) assert.ok((ids[i] as string) > (ids[i - 1] as string), `${ids[i]} after ${ids[i - 1]}`);
  assert.equal(new Set(ids).size, ids.length);
});

test('idFloor: every id made at a time or later sorts at or above its floor, every id made before sorts below', () => {
  // Later than any id made before (ids are monotonic within the process), in increasing order.
  const at = Date.UTC(2200, 0, 1);
  for (const ms of [at - 1, at, at + 1, at + 86_400_000]) {
    const id = newId('task', ms);
    assert.ok(idFloor('task', ms) <= id, `${id} at ${ms}`);
    assert.ok(id < idFloor('task', ms + 1), `${id} below the next millisecond's floor`);
  }
  assert.ok(idFloor('task', at) < idFloor('task', at + 1));
  assert.match(idFloor('task', at), /^task_[0-9a-hjkmnp-tv-z]{26}$/);
});
