/**
 * bench/google-inline-images (issue 18, item 11): the longest stretch the event loop is held while the
 * Google adapter builds a request with reference images inline and reads an answer with a generated
 * image inline, at 4K sizes, with JSON.stringify/JSON.parse over the whole body against the adapter's
 * way (google/google-json.ts: blobs encoded and decoded apart, a turn of the loop between them).
 * A ticker on setImmediate measures the gaps; the figure is the largest gap while the work runs.
 *
 *   node bench/google-inline-images.ts [--mib 30] [--smoke]   (--smoke: 1 MiB)
 */
import { randomBytes } from 'node:crypto';
import { BlobJson, blobData, parseBlobJson } from '../src/providers/media/google/google-json.ts';
import { SMOKE } from './support/smoke.ts';

const mibArg = process.argv.indexOf('--mib');
const MIB = Number(mibArg > 0 ? process.argv[mibArg + 1] : SMOKE ? 1 : 30);

/** Runs `work` while a ticker records the longest gap between turns of the loop, in ms. */
async function longestHold(work: () => Promise<unknown>): Promise<number> {
  let longest = 0;
  let last = performance.now();
  let running = true;
  const tick = () => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (running) setImmediate(tick);
  };
  setImmediate(tick);
  await new Promise((r) => setImmediate(r));
  last = performance.now();
  await work();
  running = false;
  await new Promise((r) => setImmediate(r));
  return longest;
}

const image = randomBytes(MIB * 1024 * 1024);
const answer = Buffer.from(JSON.stringify({ candidates: [{ content: { role: 'model', parts: [{ inlineData: { mimeType: 'image/png', data: image.toString('base64') } }] }, finishReason: 'STOP' }] }, null, 2));

const rows: Array<[string, number]> = [];
rows.push([
  'request, JSON.stringify',
  await longestHold(async () => Buffer.from(JSON.stringify({ contents: [{ parts: [{ text: 'p' }, { inlineData: { mimeType: 'image/png', data: image.toString('base64') } }] }] }))),
]);
rows.push([
  'request, BlobJson',
  await longestHold(async () => {
    const json = new BlobJson();
    return json.serialize({ contents: [{ parts: [{ text: 'p' }, { inlineData: { mimeType: 'image/png', data: json.blob(image) } }] }] });
  }),
]);
rows.push([
  'answer, JSON.parse + decode',
  await longestHold(async () => {
    const json = JSON.parse(answer.toString('utf8')) as { candidates: Array<{ content: { parts: Array<{ inlineData: { data: string } }> } }> };
    return Buffer.from(json.candidates[0]?.content.parts[0]?.inlineData.data ?? '', 'base64');
  }),
]);
rows.push([
  'answer, parseBlobJson',
  await longestHold(async () => {
    const parsed = await parseBlobJson(answer);
    const json = parsed?.json as { candidates: Array<{ content: { parts: Array<{ inlineData: { data: string } }> } }> };
    return blobData(json.candidates[0]?.content.parts[0]?.inlineData.data ?? '', parsed?.blobs ?? []);
  }),
]);
console.log(`image ${MIB} MiB (answer body ${(answer.length / 1024 / 1024).toFixed(1)} MiB)`);
for (const [name, ms] of rows) console.log(`${name.padEnd(30)} longest loop hold ${ms.toFixed(1)} ms`);
