import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'node:test';
import { emitWebApiTypes, WEB_API_TYPES_COMMAND, WEB_API_TYPES_PATH } from '../../../scripts/web-api-types/emit-web-api-types.ts';
import { buildOpenApiDocument } from '../../../scripts/web-api-types/openapi-document.ts';

const ROOT = join(import.meta.dirname, '..', '..', '..');

test('the dashboard API types are generated from the current OpenAPI document', async () => {
  const expected = emitWebApiTypes(await buildOpenApiDocument());
  const committed = await readFile(join(ROOT, WEB_API_TYPES_PATH), 'utf8').catch(() => '');
  // Not deepEqual on the text: a diff of a 2,000-line file says less than the command that fixes it.
  assert.ok(committed === expected, `${WEB_API_TYPES_PATH} is not current: run \`${WEB_API_TYPES_COMMAND}\` and commit the result`);
});
