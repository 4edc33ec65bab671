import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { after, before, describe, test } from 'node:test';
import Fastify, { type FastifyInstance } from 'fastify';
import { blobKeyFor, newBlobKey } from '../../src/adapters/blob/blob-keys.ts';
import { LocalBlobStore } from '../../src/adapters/blob/local-blob-store.ts';
import { S3BlobStore } from '../../src/adapters/blob/s3-blob-store.ts';
import { installErrorHandler } from '../../src/http/error-handler.ts';
import { ErrorRenderers } from '../../src/http/error-rendering.ts';
import { registerFilesRoute } from '../../src/http/routes/files.route.ts';
import { type BlobStore, BlobSizeError } from '../../src/ports/blob-store.port.ts';
import { startTestS3Server, type TestS3Server } from '../support/s3-server.ts';

const BASE_URL = 'http://gateway.test:8080';

interface Subject {
  store: BlobStore;
  /** The local store's directory, for checks on the files themselves. */
  dir?: string;
  close(): Promise<void>;
}

interface Implementation {
  name: string;
  start(): Promise<Subject>;
}

let s3: TestS3Server | undefined;

const implementations: Implementation[] = [
  {
    name: 'local',
    async start() {
      const dir = mkdtempSync(join(tmpdir(), 'sb-blobs-'));
      return { store: new LocalBlobStore(join(dir, 'files'), () => BASE_URL), dir: join(dir, 'files'), close: async () => rmSync(dir, { recursive: true, force: true }) };
    },
  },
  {
    name: 's3',
    async start() {
      s3 = await startTestS3Server();
      const store = new S3BlobStore(s3.config, () => BASE_URL);
      return {
        store,
        close: async () => {
          store.close();
          await s3?.close();
        },
      };
    },
  },
];

async function readAll(body: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

function* chunksOf(data: Buffer, size: number): Generator<Buffer> {
  for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

const sha = (data: Buffer) => createHash('sha256').update(data).digest('hex');

function keyOf(ext = 'png'): string {
  return newBlobKey(`task_${randomBytes(4).toString('hex')}`, 0, ext);
}

for (const implementation of implementations) {
  describe(`blob store contract [${implementation.name}]`, () => {
    let subject: Subject;
    let app: FastifyInstance;

    before(async () => {
      subject = await implementation.start();
      app = Fastify();
      app.decorateRequest('auth', null);
      installErrorHandler(app, new ErrorRenderers(), { noticed() {} });
      registerFilesRoute(app, subject.store);
      await app.ready();
    });
    after(async () => {
      await app?.close();
      await subject?.close();
    });

    test('check passes on a working store', async () => {
      await subject.store.check();
    });

    test('put then get returns the bytes, the content type and the size', async () => {
      const key = keyOf();
      const data = Buffer.from('not really a png, but the store does not look');
      await subject.store.put(key, data, 'image/png');
      const blob = await subject.store.get(key);
      assert.ok(blob);
      assert.equal(blob.contentType, 'image/png');
      assert.equal(blob.bytes, data.length);
      assert.equal(blob.range, undefined);
      assert.ok(blob.lastModified && Math.abs(blob.lastModified - Date.now()) < 60_000, 'knows when it was written');
      assert.deepEqual(await readAll(blob.body), data);
      const info = await subject.store.stat(key);
      assert.deepEqual({ type: info?.contentType, bytes: info?.bytes }, { type: 'image/png', bytes: data.length });
    });

    test('keeps a content type that does not follow the extension', async () => {
      const key = keyOf('bin');
      await subject.store.put(key, Buffer.from('{"a":1}'), 'application/json');
      assert.equal((await subject.store.stat(key))?.contentType, 'application/json');
    });

    test('a put overwrites the same key', async () => {
      const key = keyOf('txt');
      await subject.store.put(key, Buffer.from('first version, longer'), 'text/plain');
      await subject.store.put(key, Buffer.from('second'), 'text/plain');
      const blob = await subject.store.get(key);
      assert.equal((await readAll(blob!.body)).toString(), 'second');
      assert.equal(blob?.bytes, 6);
    });

    test('putStream writes exactly the announced bytes from a stream; a shorter or longer stream leaves nothing', async () => {
      const key = keyOf('bin');
      const data = randomBytes(2 * 1024 * 1024 + 7);
      await subject.store.putStream(key, Readable.from(chunksOf(data, 64 * 1024)), 'application/octet-stream', data.length);
      const blob = await subject.store.get(key);
      assert.equal(blob?.bytes, data.length);
      assert.equal(blob?.contentType, 'application/octet-stream');
      assert.equal(sha(await readAll(blob!.body)), sha(data));
      for (const [label, size] of [['shorter', data.length + 10], ['longer', data.length - 10]] as const) {
        const other = keyOf('bin');
        await assert.rejects(subject.store.putStream(other, Readable.from(chunksOf(data, 64 * 1024)), 'application/octet-stream', size), (error: unknown) => {
          assert.ok(error instanceof BlobSizeError || (error instanceof Error && /BlobSizeError|bytes/.test(`${error.name} ${error.message}`)), `${label}: ${String(error)}`);
          return true;
        });
        assert.equal(await subject.store.stat(other), undefined, `${label}: no blob`);
      }
      if (subject.dir) assert.deepEqual(readdirSync(subject.dir, { recursive: true }).filter((f) => String(f).includes('~tmp')), [], 'no temporary file left');
    });

    test('presignPut: a URL for exactly this type and length (S3), or none (the gateway receives uploads itself)', async () => {
      const key = keyOf('png');
      const data = randomBytes(1000);
      const url = await subject.store.presignPut(key, 'image/png', data.length, 300);
      if (implementation.name === 'local') {
        assert.equal(url, undefined);
        return;
      }
      assert.ok(url);
      const wrongLength = await fetch(url, { method: 'PUT', body: data.subarray(0, 999), headers: { 'content-type': 'image/png' } });
      assert.ok(wrongLength.status >= 400, `another length is refused (${wrongLength.status})`);
      const wrongType = await fetch(url, { method: 'PUT', body: data, headers: { 'content-type': 'image/jpeg' } });
      assert.ok(wrongType.status >= 400, `another type is refused (${wrongType.status})`);
      assert.equal(await subject.store.stat(key), undefined);
      const ok = await fetch(url, { method: 'PUT', body: data, headers: { 'content-type': 'image/png' } });
      assert.equal(ok.status, 200, await ok.text());
      const blob = await subject.store.get(key);
      assert.equal(sha(await readAll(blob!.body)), sha(data));
    });

    test('a missing key reads as undefined', async () => {
      const key = keyOf();
      assert.equal(await subject.store.get(key), undefined);
      assert.equal(await subject.store.stat(key), undefined);
    });

    test('delete removes the blob, and deleting again (or a key never written) succeeds', async () => {
      const key = keyOf();
      await subject.store.put(key, Buffer.from('bye'), 'image/png');
      await subject.store.delete(key);
      assert.equal(await subject.store.get(key), undefined);
      assert.equal(await subject.store.stat(key), undefined);
      await subject.store.delete(key);
      await subject.store.delete(keyOf());
    });

    test('a few MB of random bytes come back identical, whole and in ranges', async () => {
      const key = keyOf('mp4');
      const data = randomBytes(3 * 1024 * 1024 + 123);
      await subject.store.put(key, data, 'video/mp4');
      const blob = await subject.store.get(key);
      assert.equal(blob?.bytes, data.length);
      assert.equal(sha(await readAll(blob!.body)), sha(data));
      const part = await subject.store.get(key, { start: 1_000_000, end: 2_000_000 });
      assert.deepEqual(part?.range, { start: 1_000_000, end: 2_000_000 });
      assert.equal(part?.bytes, data.length, 'bytes is the size of the whole blob');
      assert.equal(sha(await readAll(part!.body)), sha(data.subarray(1_000_000, 2_000_001)));
    });

    test('refuses keys that could leave the store or are not ours', async () => {
      for (const bad of ['../etc/passwd', '/abs/olute.png', 'a/../../b.png', '.hidden/x.png', 'a//b.png', 'a\\b.png', '', 'a/b~meta.json', 'x/y z.png', 'a/%2e%2e/b']) {
        await assert.rejects(subject.store.put(bad, Buffer.from('x'), 'text/plain'), /invalid blob key/, bad);
        await assert.rejects(subject.store.get(bad), /invalid blob key/, bad);
        await assert.rejects(subject.store.delete(bad), /invalid blob key/, bad);
      }
    });

    test('public URL: the gateway /files route unless a public bucket URL is configured', () => {
      const key = keyOf();
      assert.equal(subject.store.publicUrl(key), `${BASE_URL}/files/${key}`);
      if (implementation.name === 's3' && s3) {
        const publicStore = new S3BlobStore({ ...s3.config, publicUrl: 'https://cdn.example.com/media/' }, () => BASE_URL);
        assert.equal(publicStore.publicUrl(key), `https://cdn.example.com/media/${key}`);
        publicStore.close();
      }
    });

    describe('through GET /files/*', () => {
      const data = randomBytes(10_000);
      let key = '';
      before(async () => {
        key = keyOf('mp4');
        await subject.store.put(key, data, 'video/mp4');
      });

      test('200 with the type, length, caching and safety headers', async () => {
        const res = await app.inject({ method: 'GET', url: `/files/${key}` });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-type'], 'video/mp4');
        assert.equal(res.headers['content-length'], String(data.length));
        assert.equal(res.headers['accept-ranges'], 'bytes');
        assert.match(String(res.headers['cache-control']), /^public, max-age=(\d+), immutable$/);
        const maxAge = Number(/max-age=(\d+)/.exec(String(res.headers['cache-control']))?.[1]);
        assert.ok(maxAge > 3 * 86400 - 120 && maxAge <= 3 * 86400, `max-age ${maxAge} ends with the retention`);
        assert.equal(res.headers['x-content-type-options'], 'nosniff');
        assert.equal(res.headers['content-security-policy'], 'sandbox');
        assert.deepEqual(res.rawPayload, data);
      });

      test('206 for a byte range, a suffix range and an open range', async () => {
        const cases: Array<[string, number, number]> = [
          ['bytes=0-99', 0, 99],
          ['bytes=9990-', 9990, 9999],
          ['bytes=-10', 9990, 9999],
          ['bytes=5000-20000', 5000, 9999],
        ];
        for (const [range, start, end] of cases) {
          const res = await app.inject({ method: 'GET', url: `/files/${key}`, headers: { range } });
          assert.equal(res.statusCode, 206, range);
          assert.equal(res.headers['content-range'], `bytes ${start}-${end}/${data.length}`, range);
          assert.equal(res.headers['content-length'], String(end - start + 1), range);
          assert.deepEqual(res.rawPayload, data.subarray(start, end + 1), range);
        }
      });

      test('416 for a range past the end; the whole file for several ranges or a bad header', async () => {
        const past = await app.inject({ method: 'GET', url: `/files/${key}`, headers: { range: 'bytes=10000-10010' } });
        assert.equal(past.statusCode, 416);
        assert.equal(past.headers['content-range'], `bytes */${data.length}`);
        assert.equal(past.json().code, 416);
        for (const range of ['bytes=0-1,5-6', 'items=0-1', 'bytes=9-3']) {
          const res = await app.inject({ method: 'GET', url: `/files/${key}`, headers: { range } });
          assert.equal(res.statusCode, 200, range);
          assert.equal(res.rawPayload.length, data.length, range);
        }
      });

      test('HEAD answers the headers without the body', async () => {
        const res = await app.inject({ method: 'HEAD', url: `/files/${key}` });
        assert.equal(res.statusCode, 200);
        assert.equal(res.headers['content-length'], String(data.length));
        assert.equal(res.rawPayload.length, 0);
      });

      test('404 in the service envelope for a missing, a deleted or an impossible key', async () => {
        const gone = keyOf();
        await subject.store.put(gone, Buffer.from('x'), 'image/png');
        await subject.store.delete(gone);
        for (const url of [`/files/${keyOf()}`, `/files/${gone}`, '/files/..%2F..%2Fetc%2Fpasswd', '/files/']) {
          const res = await app.inject({ method: 'GET', url });
          assert.equal(res.statusCode, 404, url);
          const body = res.json() as { code: number; error: { code: string } };
          assert.equal(body.code, 404, url);
          assert.equal(body.error.code, 'not_found', url);
        }
        const ranged = await app.inject({ method: 'GET', url: `/files/${gone}`, headers: { range: 'bytes=0-0' } });
        assert.equal(ranged.statusCode, 404);
      });
    });

    if (implementation.name === 'local') {
      test('local: no temporary files stay behind, and a deleted key leaves no empty directory', async () => {
        const key = blobKeyFor('a-secret-seed-of-some-length', 'att_1', 2, 'png');
        await subject.store.put(key, randomBytes(1000), 'image/png');
        const [token] = key.split('/');
        const names = readdirSync(join(subject.dir ?? '', token ?? '')).sort();
        assert.deepEqual(names, ['att_1-2.png', 'att_1-2.png~meta.json']);
        await subject.store.delete(key);
        assert.ok(!readdirSync(subject.dir ?? '').includes(token ?? ''), 'the key directory is gone');
      });
    }

    if (implementation.name === 's3') {
      test('s3: check fails for a bucket that does not exist', async () => {
        assert.ok(s3);
        const wrong = new S3BlobStore({ ...s3.config, bucket: 'no-such-bucket' }, () => BASE_URL);
        await assert.rejects(wrong.check());
        wrong.close();
      });
    }
  });
}
