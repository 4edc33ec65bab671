import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { blobKeyFor, contentTypeFromKey, isValidBlobKey, newBlobKey } from '../../../src/adapters/blob/blob-keys.ts';
import { parseByteRange } from '../../../src/http/routes/files.route.ts';

describe('blob keys', () => {
  test('newBlobKey: 160 random bits in lower-case base32, then a readable name', () => {
    const key = newBlobKey('task_01abc', 3, 'mp4');
    assert.match(key, /^[a-z2-7]{32}\/task_01abc-3\.mp4$/);
    assert.ok(isValidBlobKey(key));
    assert.notEqual(newBlobKey('task_01abc', 3, 'mp4'), key, 'never the same twice');
  });

  test('blobKeyFor: the same for the same attempt and position, different otherwise and under another seed', () => {
    const seed = 'cb_0123456789abcdefghij';
    const key = blobKeyFor(seed, 'att_1', 0, 'png');
    assert.match(key, /^[a-z2-7]{32}\/att_1-0\.png$/);
    assert.equal(blobKeyFor(seed, 'att_1', 0, 'png'), key);
    assert.notEqual(blobKeyFor(seed, 'att_1', 1, 'png').split('/')[0], key.split('/')[0]);
    assert.notEqual(blobKeyFor(seed, 'att_2', 0, 'png').split('/')[0], key.split('/')[0]);
    assert.notEqual(blobKeyFor(`${seed}x`, 'att_1', 0, 'png').split('/')[0], key.split('/')[0]);
    assert.throws(() => blobKeyFor('short', 'att_1', 0, 'png'), RangeError);
  });

  test('refuses names and extensions that would make a bad key', () => {
    assert.throws(() => newBlobKey('../x', 0, 'png'), RangeError);
    assert.throws(() => newBlobKey('task', -1, 'png'), RangeError);
    assert.throws(() => newBlobKey('task', 0, 'p/ng'), RangeError);
    assert.throws(() => newBlobKey('task', 0, 'PNG'), RangeError);
  });

  test('isValidBlobKey accepts our shapes and the runner’s base64url tokens, nothing that climbs or hides', () => {
    for (const good of ['abc/task_1-0.png', 'Ab-_9zQ/x.y.z', 'single.png']) assert.ok(isValidBlobKey(good), good);
    for (const bad of ['', '/a', 'a/', '../a', 'a/..', 'a/../b', 'a/.b', '.a/b', 'a//b', 'a\\b', 'a b', 'a/b~meta.json', 'a/b?c', 'x'.repeat(513)]) {
      assert.ok(!isValidBlobKey(bad), bad);
    }
  });

  test('content type from the extension, as a fallback', () => {
    assert.equal(contentTypeFromKey('a/b.jpg'), 'image/jpeg');
    assert.equal(contentTypeFromKey('a/b.MP4'), 'video/mp4');
    assert.equal(contentTypeFromKey('a.b/c'), 'application/octet-stream');
  });
});

describe('parseByteRange', () => {
  test('resolves the three forms against the size', () => {
    assert.deepEqual(parseByteRange('bytes=0-99', 1000), { start: 0, end: 99 });
    assert.deepEqual(parseByteRange('bytes=900-', 1000), { start: 900, end: 999 });
    assert.deepEqual(parseByteRange('bytes=-100', 1000), { start: 900, end: 999 });
    assert.deepEqual(parseByteRange('bytes=-5000', 1000), { start: 0, end: 999 });
    assert.deepEqual(parseByteRange('bytes=10-99999999999999999999', 1000), { start: 10, end: 999 });
    assert.deepEqual(parseByteRange('BYTES = 1 - 2', 1000), { start: 1, end: 2 });
  });

  test('unsatisfiable past the end, for an empty suffix or an empty file', () => {
    assert.equal(parseByteRange('bytes=1000-', 1000), 'unsatisfiable');
    assert.equal(parseByteRange('bytes=-0', 1000), 'unsatisfiable');
    assert.equal(parseByteRange('bytes=0-0', 0), 'unsatisfiable');
  });

  test('ignored (null) when malformed, reversed, in another unit or with several ranges', () => {
    for (const header of ['bytes=5-1', 'bytes=-', 'items=0-1', 'bytes=0-1,3-4', 'bytes=a-b', 'bytes 0-1']) assert.equal(parseByteRange(header, 1000), null, header);
  });
});
