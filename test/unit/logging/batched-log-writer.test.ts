import assert from 'node:assert/strict';
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { BatchedLogWriter } from '../../../src/adapters/logging/batched-log-writer.ts';

const dir = mkdtempSync(join(tmpdir(), 'sb-log-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function settle(path: string, expectedLines: number): Promise<string[]> {
  for (let i = 0; i < 200; i++) {
    const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean);
    if (lines.length >= expectedLines) return lines;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return readFileSync(path, 'utf8').split('\n').filter(Boolean);
}

test('lines wait for a batch, leave in order once enough gathered, and the rest on flush', async () => {
  const path = join(dir, 'a.log');
  const fd = openSync(path, 'w');
  const writer = new BatchedLogWriter(fd, { minBytes: 100 });
  writer.write('{"n":1}\n');
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(readFileSync(path, 'utf8'), '', 'below the threshold nothing is written');
  for (let n = 2; n <= 40; n++) writer.write(`{"n":${n},"text":"é✓"}\n`);
  const written = await settle(path, 30);
  assert.ok(written.length >= 12, `a batch left (${written.length} lines)`);
  writer.flush();
  const all = await settle(path, 40);
  assert.deepEqual(all.map((line) => (JSON.parse(line) as { n: number }).n), Array.from({ length: 40 }, (_, i) => i + 1));
  assert.equal((JSON.parse(all[5] ?? '{}') as { text: string }).text, 'é✓', 'UTF-8 intact');
  closeSync(fd);
});

test('flushSync writes what is pending at once; lines beyond the memory bound are dropped and reported', () => {
  const path = join(dir, 'b.log');
  const fd = openSync(path, 'w');
  const writer = new BatchedLogWriter(fd, { minBytes: 1_000_000, maxPendingBytes: 50 });
  assert.equal(writer.write('{"n":1,"pad":"xxxxxxxxxxxxxxxxxxxx"}\n'), true);
  assert.equal(writer.write('{"n":2,"pad":"xxxxxxxxxxxxxxxxxxxx"}\n'), true);
  assert.equal(writer.write('{"n":3}\n'), false, 'over the bound');
  writer.flushSync();
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { n?: number; msg?: string });
  assert.deepEqual(lines.slice(0, 2).map((l) => l.n), [1, 2]);
  assert.match(lines[2]?.msg ?? '', /^1 log lines were dropped/);
  closeSync(fd);
});

test('flush(done) calls back once the lines written before it have left', async () => {
  const path = join(dir, 'c.log');
  const fd = openSync(path, 'w');
  const writer = new BatchedLogWriter(fd, { minBytes: 1_000_000 });
  writer.write('{"n":1}\n');
  writer.write('{"n":2}\n');
  await new Promise<void>((resolve) => writer.flush(() => resolve()));
  assert.equal(readFileSync(path, 'utf8'), '{"n":1}\n{"n":2}\n');
  await new Promise<void>((resolve) => writer.flush(() => resolve()));
  closeSync(fd);
});
