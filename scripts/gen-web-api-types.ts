/**
 * Writes the dashboard's API types (web/src/api/generated/: the shared schemas, one file per area and
 * the index api-types.ts) from the OpenAPI document the gateway builds. Run after changing a route's
 * response schema; `npm test` fails while they differ. A file of the folder that is no longer
 * generated (an area that went away) is removed, so the folder holds exactly what the document says.
 *
 *   node scripts/gen-web-api-types.ts      (or: npm run gen:web-types)
 */
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { emitWebApiTypeFiles, WEB_API_TYPES_DIR } from './web-api-types/emit-web-api-types.ts';
import { buildOpenApiDocument } from './web-api-types/openapi-document.ts';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');

if (import.meta.main) {
  const files = emitWebApiTypeFiles(await buildOpenApiDocument());
  const folder = join(ROOT, WEB_API_TYPES_DIR);
  await mkdir(folder, { recursive: true });
  const written = new Set(files.map((file) => join(ROOT, file.path)));
  for (const name of await readdir(folder)) {
    if (!written.has(join(folder, name))) await rm(join(folder, name));
  }
  for (const file of files) await writeFile(join(ROOT, file.path), file.text);
  console.log(`wrote ${files.length} files in ${WEB_API_TYPES_DIR}`);
}
