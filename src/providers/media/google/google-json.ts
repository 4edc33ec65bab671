/**
 * JSON with large base64 strings in it, without holding the event loop: Gemini carries images inline
 * both ways (reference images out, generated images back), tens of megabytes each. JSON.stringify and
 * JSON.parse over such a body take 50 ms and more; here the small skeleton goes through JSON and each
 * blob is encoded or decoded on its own, with a turn of the loop between them.
 */
import { randomUUID } from 'node:crypto';

const yieldToLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** Bytes encoded or decoded per turn of the loop (multiples of 3 and 4: base64 groups stay whole). */
const ENCODE_CHUNK = 3 * 1024 * 1024;
const DECODE_CHUNK = 4 * 1024 * 1024;

async function encodeBase64(blob: Buffer, out: Buffer[]): Promise<void> {
  for (let i = 0; i < blob.length; i += ENCODE_CHUNK) {
    if (i > 0) await yieldToLoop();
    out.push(Buffer.from(blob.subarray(i, i + ENCODE_CHUNK).toString('base64'), 'latin1'));
  }
}

async function decodeBase64(body: Buffer, start: number, end: number): Promise<Buffer> {
  const parts: Buffer[] = [];
  for (let i = start; i < end; i += DECODE_CHUNK) {
    await yieldToLoop();
    parts.push(Buffer.from(body.toString('latin1', i, Math.min(end, i + DECODE_CHUNK)), 'base64'));
  }
  return Buffer.concat(parts);
}

/** A value whose `blob(i)` strings stand for `blobs[i]`, serialised with each blob base64-encoded in place. */
export class BlobJson {
  readonly #nonce = randomUUID();
  readonly #blobs: Buffer[] = [];

  /** A placeholder for `data` to put in the value; no user text can forge it (random per body). */
  blob(data: Buffer): string {
    this.#blobs.push(data);
    return `@@${this.#nonce}:${this.#blobs.length - 1}@@`;
  }

  async serialize(value: unknown): Promise<Buffer> {
    const text = JSON.stringify(value);
    const marker = new RegExp(`@@${this.#nonce}:(\\d+)@@`, 'gu');
    const pieces: Buffer[] = [];
    let last = 0;
    for (const m of text.matchAll(marker)) {
      pieces.push(Buffer.from(text.slice(last, m.index), 'utf8'));
      await encodeBase64(this.#blobs[Number(m[1])] ?? Buffer.alloc(0), pieces);
      last = m.index + m[0].length;
    }
    pieces.push(Buffer.from(text.slice(last), 'utf8'));
    return Buffer.concat(pieces);
  }
}

const DATA_KEY = Buffer.from('"data"', 'latin1');
/** Shorter strings are left to JSON.parse. */
const CUT_FROM = 4096;

function skipSpace(body: Buffer, at: number): number {
  let i = at;
  while (i < body.length && (body[i] === 0x20 || body[i] === 0x0a || body[i] === 0x0d || body[i] === 0x09)) i += 1;
  return i;
}

/**
 * Parses a JSON answer whose `"data": "<base64>"` members may be large: each long one is cut out
 * before JSON.parse (base64 has no quote or backslash, so its end is the next quote) and decoded
 * separately. In the parsed value a cut `data` member holds `#blob:N`, the index of its bytes in
 * `blobs` (see `blobData`). Returns undefined when the body is not JSON.
 */
export async function parseBlobJson(body: Buffer): Promise<{ json: unknown; blobs: Buffer[] } | undefined> {
  const pieces: Buffer[] = [];
  const cuts: Array<[number, number]> = [];
  let last = 0;
  let from = 0;
  for (;;) {
    const key = body.indexOf(DATA_KEY, from);
    if (key < 0) break;
    let i = skipSpace(body, key + DATA_KEY.length);
    from = key + DATA_KEY.length;
    if (body[i] !== 0x3a) continue;
    i = skipSpace(body, i + 1);
    if (body[i] !== 0x22) continue;
    const start = i + 1;
    const end = body.indexOf(0x22, start);
    if (end < 0) break;
    from = end + 1;
    if (end - start < CUT_FROM || body.subarray(start, end).includes(0x5c)) continue;
    pieces.push(body.subarray(last, start), Buffer.from(`#blob:${cuts.length}`, 'latin1'));
    cuts.push([start, end]);
    last = end;
  }
  pieces.push(body.subarray(last));
  let json: unknown;
  try {
    json = JSON.parse(Buffer.concat(pieces).toString('utf8'));
  } catch {
    return undefined;
  }
  const blobs: Buffer[] = [];
  for (const [start, end] of cuts) blobs.push(await decodeBase64(body, start, end));
  return { json, blobs };
}

/** The bytes a `data` member stands for: a cut-out blob, or a short base64 string decoded. */
export function blobData(data: string, blobs: readonly Buffer[]): Buffer | undefined {
  const m = /^#blob:(\d+)$/u.exec(data);
  if (m) return blobs[Number(m[1])];
  return Buffer.from(data, 'base64');
}
