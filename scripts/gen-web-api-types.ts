/**
 * Writes the dashboard's API types (web/src/api/generated/api-types.ts) from the OpenAPI document the
 * gateway builds. Run after changing a route's response schema; `npm test` fails while they differ.
 *
 *   node scripts/gen-web-api-types.ts      (or: npm run gen:web-types)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitWebApiTypes, WEB_API_TYPES_PATH } from './web-api-types/emit-web-api-types.ts';
import { buildOpenApiDocument } from './web-api-types/openapi-document.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

if (import.meta.main) {
  const target = join(ROOT, WEB_API_TYPES_PATH);
  await mkdir(dirname(target), { recursive: true });
  await writeFile(target, emitWebApiTypes(await buildOpenApiDocument()));
  console.log(`wrote ${WEB_API_TYPES_PATH}`);
}
