/**
 * Hostile files and bodies of issue 17 (items 8, 9, 11, 12 and the JSON attachment of 14), shared by
 * test/integration/hostile-input.files.test.ts (the answers and memory) and bench/hostile-input.ts
 * (the event loop): a PDF of repeated `BT` and a deflate-bomb PDF read by a run, a 16k×16k mask
 * (alone and nine in one message), four masks of the largest allowed size in one message, 16 MB of
 * tiny arrays to /chat/completions and /generation/estimate, and a 25 MiB JSON attachment completed.
 */
import assert from 'node:assert/strict';
import { deflateSync } from 'node:zlib';
import type { AgentClient } from '../agent.ts';
import { handMadePng } from '../png.ts';
import type { HostilePayload } from './measure.ts';

/**
 * The payloads for one user of an embedded gateway with no upstreams (the built-in planner reads the
 * PDFs). Every byte is built here, before any measuring starts: the probe shares this process's event
 * loop, so building 25 MB while it runs would be counted against the gateway.
 */
export async function filePayloads(c: AgentClient, url: string): Promise<HostilePayload[]> {
  const conversationId = await c.conversation({ title: 'hostile' });
  const chatBody = Buffer.from(tinyArrays('{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"hi"}],"metadata":', 16 * 1024 * 1024));
  const estimateBody = Buffer.from(tinyArrays('{"model":"z-image-turbo","input":{"prompt":"a fox","junk":', 16 * 1024 * 1024, '}'));
  const jsonFile = Buffer.from(tinyArrays('', 25 * 1024 * 1024));
  assert.equal(jsonFile.length, 25 * 1024 * 1024);
  const btPdf = pdfWith(Buffer.from('BT '.repeat(256 * 1024 / 3)), '');
  const bombPdf = pdfWith(deflateSync(Buffer.alloc(200 * 1024 * 1024, 0x20), { level: 9 }), ' /Filter /FlateDecode');
  const huge = binaryPng(16000, 16000);
  const large = binaryPng(4096, 4096);
  let n = 0;
  const name = (base: string) => `${base}-${++n}.png`;
  return [
    {
      name: '16 MB of tiny arrays to /chat/completions',
      async send() {
        const res = await rawPost(url, c.key, '/api/v1/chat/completions', chatBody);
        assert.ok(res.status >= 400 && res.status < 500, `chat: ${res.status} ${res.text.slice(0, 300)}`);
      },
    },
    {
      name: '16 MB of tiny arrays to /generation/estimate',
      async send() {
        const res = await rawPost(url, c.key, '/api/v1/generation/estimate', estimateBody);
        assert.ok(res.status >= 400 && res.status < 500, `estimate: ${res.status} ${res.text.slice(0, 300)}`);
      },
    },
    {
      name: '25 MiB JSON attachment completed',
      async send() {
        const done = await upload(c, conversationId, 'rows.json', 'application/json', jsonFile);
        assert.equal(done.status, 200, JSON.stringify(done.body));
      },
    },
    {
      name: 'PDF of repeated BT, read by a run',
      async send() {
        const conversation = await c.conversation({ title: 'bt' });
        const pdf = await upload(c, conversation, 'bt.pdf', 'application/pdf', btPdf);
        await readByRun(c, pdf.id, conversation);
      },
    },
    {
      name: 'deflate-bomb PDF (200 MB inflated), read by a run',
      async send() {
        const conversation = await c.conversation({ title: 'bomb' });
        const pdf = await upload(c, conversation, 'bomb.pdf', 'application/pdf', bombPdf);
        await readByRun(c, pdf.id, conversation);
      },
    },
    {
      name: 'a 16k×16k mask',
      async send() {
        const original = await upload(c, conversationId, name('huge'), 'image/png', huge);
        const mask = await upload(c, conversationId, name('huge-mask'), 'image/png', huge);
        const res = await postMasks(c, conversationId, original.id, [mask.id]);
        assert.equal(res.status, 400, `a 16k×16k mask: ${JSON.stringify(res.body)}`);
      },
    },
    {
      name: 'nine 16k×16k masks in one message',
      async send() {
        const original = await upload(c, conversationId, name('huge'), 'image/png', huge);
        const masks: string[] = [];
        for (let i = 0; i < 9; i++) masks.push((await upload(c, conversationId, name('mask'), 'image/png', huge)).id);
        const res = await postMasks(c, conversationId, original.id, masks);
        assert.equal(res.status, 400, `nine 16k×16k masks: ${JSON.stringify(res.body)}`);
      },
    },
    {
      name: 'four 4096×4096 masks in one message',
      async send() {
        const original = await upload(c, conversationId, name('large'), 'image/png', large);
        const masks: string[] = [];
        for (let i = 0; i < 4; i++) masks.push((await upload(c, conversationId, name('large-mask'), 'image/png', large)).id);
        const res = await postMasks(c, conversationId, original.id, masks);
        assert.equal(res.status, 200, JSON.stringify(res.body));
        await c.waitFor((res.body.data as { runId: string }).runId, ['completed', 'failed', 'waiting_for_clarification'], 60_000);
      },
    },
  ];
}

/** `prefix` + `[[],[],…]` + `suffix` + `}`, exactly `bytes` long (the prefix opens an object unless empty). */
export function tinyArrays(prefix: string, bytes: number, suffix = ''): string {
  const close = `]${suffix}${prefix === '' ? '' : '}'}`;
  const room = bytes - prefix.length - 1 - close.length;
  const count = Math.floor((room + 1) / 3);
  const body = `${'[],'.repeat(count - 1)}[]`;
  const pad = ' '.repeat(room - body.length);
  return `${prefix}[${body}${pad}${close}`;
}

async function rawPost(url: string, key: string, path: string, body: Buffer): Promise<{ status: number; text: string }> {
  const res = await fetch(url + path, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: viewOf(body) });
  return { status: res.status, text: await res.text() };
}

async function upload(c: AgentClient, conversationId: string, name: string, mime: string, bytes: Buffer): Promise<{ id: string; status: number; body: unknown }> {
  const created = await c.call('POST', `/api/v1/agent/conversations/${conversationId}/attachments`, { name, mime, sizeBytes: bytes.length });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const { attachmentId, uploadUrl } = created.body.data as { attachmentId: string; uploadUrl: string };
  const put = await fetch(uploadUrl, { method: 'PUT', body: viewOf(bytes), headers: { 'content-type': mime } });
  assert.equal(put.status, 200, await put.text());
  const done = await c.call('POST', `/api/v1/agent/attachments/${attachmentId}/complete`);
  return { id: attachmentId, status: done.status, body: done.body };
}

/** The bytes as a plain Uint8Array for fetch, without a copy. */
function viewOf(bytes: Buffer): Uint8Array<ArrayBuffer> {
  return new Uint8Array(bytes.buffer as ArrayBuffer, bytes.byteOffset, bytes.length);
}

/** A message that asks for the file to be read; waits until its run has ended (the text is read in its steps). */
async function readByRun(c: AgentClient, attachmentId: string, conversationId: string): Promise<void> {
  const accepted = await c.send(conversationId, 'summarize this document', {
    content: [{ type: 'text', text: 'summarize this document' }, { type: 'attachment', attachmentId, usageIntent: 'analyze' }],
  });
  await c.waitFor(accepted.runId, ['completed', 'failed', 'waiting_for_clarification'], 120_000);
}

function postMasks(c: AgentClient, conversationId: string, originalId: string, maskIds: string[]) {
  return c.call('POST', `/api/v1/agent/conversations/${conversationId}/messages`, {
    deliveryMode: 'followup',
    content: [
      { type: 'text', text: 'edit the white region' },
      { type: 'attachment', attachmentId: originalId, usageIntent: 'reference' },
      ...maskIds.map((id) => ({ type: 'attachment', attachmentId: id, maskFor: { type: 'attachment', id: originalId } })),
    ],
  });
}

/** A one-page PDF around one content stream with the given dictionary entries. */
function pdfWith(stream: Buffer, dictionary: string): Buffer {
  return Buffer.concat([
    Buffer.from('%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n3 0 obj << /Type /Page /Parent 2 0 R /Contents 4 0 R >> endobj\n'),
    Buffer.from(`4 0 obj << /Length ${stream.length}${dictionary} >>\nstream\n`),
    stream,
    Buffer.from('\nendstream\nendobj\nxref\n0 5\ntrailer << /Root 1 0 R /Size 5 >>\nstartxref\n9\n%%EOF\n'),
  ]);
}

/** A 1-bit greyscale PNG, white above the middle and black below: tiny on disk, `width × height` pixels decoded. */
function binaryPng(width: number, height: number): Buffer {
  const rowBytes = Math.ceil(width / 8);
  const raw = Buffer.alloc((rowBytes + 1) * height);
  for (let y = 0; y < height / 2; y++) raw.fill(0xff, y * (rowBytes + 1) + 1, (y + 1) * (rowBytes + 1));
  return handMadePng({ width, height, bitDepth: 1, colourType: 0 }, raw);
}
