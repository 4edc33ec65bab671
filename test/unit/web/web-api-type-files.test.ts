import assert from 'node:assert/strict';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { emitWebApiTypeFiles, MAX_GENERATED_LINES, WEB_API_TYPES_COMMAND, WEB_API_TYPES_DIR } from '../../../scripts/web-api-types/emit-web-api-types.ts';
import { buildOpenApiDocument } from '../../../scripts/web-api-types/openapi-document.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

// web-api-types.test.ts checks the index; this checks every file beside it, and that the folder holds nothing else.
test('every generated dashboard API type file is current, and the folder holds only them', async () => {
  const expected = emitWebApiTypeFiles(await buildOpenApiDocument());
  const stale: string[] = [];
  for (const file of expected) {
    const committed = await readFile(join(ROOT, file.path), 'utf8').catch(() => '');
    if (committed !== file.text) stale.push(file.path);
  }
  assert.deepEqual(stale, [], `not current: run \`${WEB_API_TYPES_COMMAND}\` and commit the result`);
  const names = (await readdir(join(ROOT, WEB_API_TYPES_DIR))).sort();
  assert.deepEqual(names, expected.map((file) => file.path.slice(WEB_API_TYPES_DIR.length + 1)).sort());
});

test('no generated dashboard API type file is over the line limit', async () => {
  for (const file of emitWebApiTypeFiles(await buildOpenApiDocument())) {
    const lines = file.text.split('\n').length - 1;
    assert.ok(lines <= MAX_GENERATED_LINES, `${file.path}: ${lines} lines`);
  }
});
