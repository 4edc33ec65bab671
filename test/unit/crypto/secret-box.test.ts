/**
 * The sealed upstream keys are only as safe as the box and its key: these pin that a sealed value opens
 * only unaltered and under its own key, that no error leaks a secret, and that the key is found (or made,
 * once, whoever races) where the modes say.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { AesSecretBox, secretKeyId } from '../../../src/adapters/crypto/aes-secret-box.ts';
import { loadSecretBox } from '../../../src/adapters/crypto/load-secret-box.ts';
import { SecretBoxError } from '../../../src/ports/secret-box.port.ts';

const SECRET = 'sk-live-7f3a9c1e5b2d4f6a8c0e';
const SEALED_SHAPE = /^sb1\.[0-9a-f]{8}\.[A-Za-z0-9_-]{16}\.[A-Za-z0-9_-]*\.[A-Za-z0-9_-]{22}$/;

const dirs: string[] = [];
async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'secret-box-test-'));
  dirs.push(dir);
  return dir;
}
after(async () => {
  await Promise.all(dirs.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** Refused with a SecretBoxError whose message names neither the secret nor the sealed text. */
function assertRefused(box: AesSecretBox, sealed: string, message?: RegExp): void {
  assert.throws(
    () => box.open(sealed),
    (error: unknown) => {
      assert.ok(error instanceof SecretBoxError, `a SecretBoxError, not ${String(error)}`);
      assert.equal(error.name, 'SecretBoxError');
      assert.ok(!error.message.includes(SECRET), 'the message does not name the secret');
      if (sealed.length > 8) assert.ok(!error.message.includes(sealed), 'the message does not echo the sealed text');
      if (message) assert.match(error.message, message);
      return true;
    },
  );
}

/** Replaces part `index` (0-based, split on '.') of a sealed value. */
function withPart(sealed: string, index: number, change: (part: string) => string): string {
  const parts = sealed.split('.');
  parts[index] = change(parts[index]!);
  return parts.join('.');
}

/** Flips one bit of a base64url part, keeping it canonical base64url of the same length. */
function flipBit(part: string): string {
  const bytes = Buffer.from(part, 'base64url');
  bytes[0] = bytes[0]! ^ 1;
  return bytes.toString('base64url');
}

describe('AesSecretBox', () => {
  const box = new AesSecretBox(randomBytes(32));

  test('opens what it sealed: ascii, unicode, long and empty', () => {
    for (const secret of [SECRET, '', 'ключ 🔑 鍵 – ünïcödé', 'x'.repeat(10_000), 'a.b.c.d.e']) {
      const sealed = box.seal(secret);
      assert.match(sealed, SEALED_SHAPE);
      assert.ok(!sealed.includes(secret) || secret === '', 'the secret is not in the sealed text');
      assert.equal(box.open(sealed), secret);
    }
  });

  test('two seals of the same secret differ, and both open', () => {
    const first = box.seal(SECRET);
    const second = box.seal(SECRET);
    assert.notEqual(first, second);
    assert.notEqual(first.split('.')[2], second.split('.')[2], 'a fresh iv each time');
    assert.equal(box.open(first), SECRET);
    assert.equal(box.open(second), SECRET);
  });

  test('names its key by the first 4 bytes of its sha256', () => {
    const key = randomBytes(32);
    const other = new AesSecretBox(key);
    assert.equal(other.keyId, secretKeyId(key));
    assert.match(other.keyId, /^[0-9a-f]{8}$/);
    assert.equal(other.seal(SECRET).split('.')[1], other.keyId);
  });

  test('refuses an altered ciphertext, tag or iv', () => {
    const sealed = box.seal(SECRET);
    assertRefused(box, withPart(sealed, 3, flipBit), /altered or damaged/);
    assertRefused(box, withPart(sealed, 4, flipBit), /altered or damaged/);
    assertRefused(box, withPart(sealed, 2, flipBit), /altered or damaged/);
    assertRefused(box, withPart(sealed, 3, (p) => p.slice(0, -4)), /altered or damaged|malformed ciphertext/);
    assertRefused(box, withPart(sealed, 3, () => ''), /altered or damaged/);
    const emptySealed = box.seal('');
    assertRefused(box, withPart(emptySealed, 3, () => 'AAAA'), /altered or damaged/);
  });

  test('refuses a value sealed with another key, saying so', () => {
    const other = new AesSecretBox(randomBytes(32));
    const sealed = other.seal(SECRET);
    assertRefused(box, sealed, /sealed with another key/);
    assert.throws(() => box.open(sealed), (error: Error) => error.message.includes(other.keyId) && error.message.includes(box.keyId));
    // Relabelling it with this key's id only trades the clear message for a tag failure.
    assertRefused(box, withPart(sealed, 1, () => box.keyId), /altered or damaged/);
  });

  test('refuses malformed text without echoing it', () => {
    const sealed = box.seal(SECRET);
    const [, keyId, iv, ciphertext, tag] = sealed.split('.') as [string, string, string, string, string];
    const malformed = [
      '',
      SECRET,
      'sb1',
      `sb1.${keyId}`,
      `sb1.${keyId}.${iv}.${ciphertext}`,
      `${sealed}.x`,
      `sb2.${keyId}.${iv}.${ciphertext}.${tag}`,
      `SB1.${keyId}.${iv}.${ciphertext}.${tag}`,
      `sb1.${keyId.toUpperCase()}.${iv}.${ciphertext}.${tag}`,
      `sb1.${keyId}0.${iv}.${ciphertext}.${tag}`,
      `sb1.${keyId}.${iv.slice(1)}.${ciphertext}.${tag}`,
      `sb1.${keyId}.${iv}A.${ciphertext}.${tag}`,
      `sb1.${keyId}.${iv}.${ciphertext}.${tag.slice(2)}`,
      `sb1.${keyId}.${iv}.${ciphertext}.${tag}AA`,
      `sb1.${keyId}.${iv}.${ciphertext}+.${tag}`,
      `sb1.${keyId}.${iv}.${ciphertext}.${tag.slice(0, -1)}=`,
      `sb1.${keyId}.${iv}.${ciphertext} .${tag}`,
      ` ${sealed}`,
      `${sealed}\n`,
    ];
    for (const text of malformed) assertRefused(box, text);
    // A caller that lets a non-string through (a null column) gets the same kind of error.
    assert.throws(() => box.open(null as unknown as string), SecretBoxError);
  });

  test('refuses to seal what it could not give back', () => {
    assert.throws(() => box.seal('\uD800 lone surrogate'), SecretBoxError);
    assert.throws(() => box.seal(undefined as unknown as string), SecretBoxError);
  });

  test('takes only a 32-byte key', () => {
    assert.throws(() => new AesSecretBox(randomBytes(16)), RangeError);
    assert.throws(() => new AesSecretBox(randomBytes(33)), RangeError);
  });

  test('keeps its own copy of the key', () => {
    const key = randomBytes(32);
    const own = new AesSecretBox(key);
    const sealed = own.seal(SECRET);
    key.fill(0);
    assert.equal(own.open(sealed), SECRET);
  });
});

describe('loadSecretBox', () => {
  const hexKey = randomBytes(32).toString('hex');

  /** The same key if each opens what the other sealed. */
  function assertSameKey(a: { seal(s: string): string; open(s: string): string }, b: { seal(s: string): string; open(s: string): string }): void {
    assert.equal(b.open(a.seal(SECRET)), SECRET);
    assert.equal(a.open(b.seal(SECRET)), SECRET);
  }

  test('takes SWITCHBOARD_SECRET_KEY as hex, base64 or base64url, in any mode, before any file', async () => {
    const dataDir = await tempDir();
    const key = Buffer.from(hexKey, 'hex');
    const fromHex = await loadSecretBox({ env: { SWITCHBOARD_SECRET_KEY: hexKey }, dataDir, embedded: true });
    for (const value of [hexKey.toUpperCase(), ` ${hexKey}\n`, key.toString('base64'), key.toString('base64').replace(/=$/, ''), key.toString('base64url')]) {
      for (const embedded of [true, false]) {
        assertSameKey(fromHex, await loadSecretBox({ env: { SWITCHBOARD_SECRET_KEY: value }, dataDir, embedded }));
      }
    }
    await assert.rejects(stat(join(dataDir, 'secret.key')), { code: 'ENOENT' }, 'no file is made when the variable is set');
    const other = await loadSecretBox({ env: { SWITCHBOARD_SECRET_KEY: randomBytes(32).toString('base64url') }, dataDir, embedded: false });
    assert.throws(() => other.open(fromHex.seal(SECRET)), /sealed with another key/);
  });

  test('refuses a malformed SWITCHBOARD_SECRET_KEY, saying what is expected and not what it got', async () => {
    const dataDir = await tempDir();
    const key = randomBytes(32);
    const malformed = [
      'hunter2-not-a-key',
      hexKey.slice(0, 62),
      `${hexKey}00`,
      `${hexKey.slice(0, 63)}g`,
      randomBytes(16).toString('hex'),
      randomBytes(31).toString('base64'),
      randomBytes(33).toString('base64'),
      `${key.toString('base64url')}==`,
      `${key.toString('base64url').slice(0, 42)}B`, // non-canonical: the last character's low bits are not zero
      key.toString('base64').replace(/.$/, '.'),
    ];
    for (const value of malformed) {
      for (const embedded of [true, false]) {
        await assert.rejects(loadSecretBox({ env: { SWITCHBOARD_SECRET_KEY: value }, dataDir, embedded }), (error: unknown) => {
          assert.ok(error instanceof Error);
          assert.match(error.message, /SWITCHBOARD_SECRET_KEY/);
          assert.match(error.message, /64 hex characters/);
          assert.match(error.message, /base64/);
          assert.match(error.message, /openssl rand -hex 32/);
          assert.ok(!error.message.includes(value.trim()), 'the value is not echoed');
          return true;
        });
      }
    }
  });

  test('embedded without the variable: makes secret.key (0600, hex) on first start and reuses it', async () => {
    const dataDir = join(await tempDir(), 'nested', 'data');
    const first = await loadSecretBox({ env: {}, dataDir, embedded: true });
    const path = join(dataDir, 'secret.key');
    const info = await stat(path);
    if (process.platform !== 'win32') {
      assert.equal(info.mode & 0o777, 0o600);
      assert.equal((await stat(dataDir)).mode & 0o777, 0o700);
    }
    const text = await readFile(path, 'utf8');
    assert.match(text, /^[0-9a-f]{64}\n$/);
    const sealed = first.seal(SECRET);
    const second = await loadSecretBox({ env: { SWITCHBOARD_SECRET_KEY: '' }, dataDir, embedded: true });
    assert.equal(second.open(sealed), SECRET);
    assert.equal(await readFile(path, 'utf8'), text, 'the file is not rewritten');
    const fromVariable = await loadSecretBox({ env: { SWITCHBOARD_SECRET_KEY: text.trim() }, dataDir, embedded: false });
    assert.equal(fromVariable.open(sealed), SECRET, 'the file key can be moved to the variable when scaling out');
  });

  test('embedded: two concurrent first starts agree on one key and leave no temporary file', async () => {
    for (let round = 0; round < 5; round++) {
      const dataDir = await tempDir();
      const boxes = await Promise.all(Array.from({ length: 8 }, () => loadSecretBox({ env: {}, dataDir, embedded: true })));
      for (const box of boxes.slice(1)) assertSameKey(boxes[0]!, box);
      assert.deepEqual(await readdir(dataDir), ['secret.key']);
    }
  });

  test('embedded: an existing key file is narrowed to 0600; a damaged one is refused, never replaced', async () => {
    const dataDir = await tempDir();
    const path = join(dataDir, 'secret.key');
    await writeFile(path, `${hexKey}\n`, { mode: 0o644 });
    const box = await loadSecretBox({ env: {}, dataDir, embedded: true });
    assertSameKey(box, await loadSecretBox({ env: { SWITCHBOARD_SECRET_KEY: hexKey }, dataDir, embedded: false }));
    if (process.platform !== 'win32') assert.equal((await stat(path)).mode & 0o777, 0o600);

    await writeFile(path, 'not a key\n');
    await assert.rejects(loadSecretBox({ env: {}, dataDir, embedded: true }), (error: unknown) => {
      assert.ok(error instanceof Error);
      assert.match(error.message, /does not hold a key/);
      assert.ok(!error.message.includes('not a key\n'));
      return true;
    });
    assert.equal(await readFile(path, 'utf8'), 'not a key\n', 'the damaged file is left for the operator');
  });

  test('scale-out without the variable: refused, explaining why and how to make one', async () => {
    const dataDir = await tempDir();
    for (const env of [{}, { SWITCHBOARD_SECRET_KEY: '' }, { SWITCHBOARD_SECRET_KEY: '  ' }]) {
      await assert.rejects(loadSecretBox({ env, dataDir, embedded: false }), (error: unknown) => {
        assert.ok(error instanceof Error);
        assert.match(error.message, /SWITCHBOARD_SECRET_KEY/);
        assert.match(error.message, /share/);
        assert.match(error.message, /openssl rand -hex 32/);
        return true;
      });
    }
    await assert.rejects(stat(join(dataDir, 'secret.key')), { code: 'ENOENT' }, 'no key file is made for a scaled-out gateway');
  });
});
