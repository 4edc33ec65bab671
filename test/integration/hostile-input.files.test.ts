/**
 * Hostile files and bodies (issue 17, items 8, 9, 11, 12 and the JSON attachment of 14): a gateway in
 * its own process receives each payload while /healthz is timed from another connection. No payload
 * may hold the gateway's event loop: the slowest health check stays under 100 ms above the median,
 * and the process's memory stays bounded. Payloads: a PDF of repeated `BT` and a deflate-bomb PDF
 * read by a run, a 16k×16k mask (alone and several in one message), four masks of the largest allowed
 * size in one message, 16 MB of tiny arrays to /chat/completions and /generation/estimate, and a
 * 25 MiB JSON attachment completed.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { crc32, deflateSync } from 'node:zlib';
import { type AgentClient, clientFor } from '../support/agent.ts';
import { ADMIN_TOKEN, type TestGateway } from '../support/gateway.ts';
import { probeHealthz, rssOf } from '../support/healthz-probe.ts';
import { call, createSharedStores, type GatewayProcess, spawnGateway } from '../support/processes.ts';

/** Added latency of the slowest health check over the median that any payload may cause. */
const MAX_ADDED_MS = 100;
/**
 * Resident memory the gateway may gain over its idle size while the payloads arrive one after the
 * other. The largest legitimate working sets: a 25 MiB attachment read whole and copied to its final
 * key, a 16 MB body and its parse in the pool's thread (a 256 MiB heap at most), two libvips decodes
 * of a 4096×4096 mask (16 MiB of pixels each) and libvips' cache; measured, the growth peaks at about
 * 320 MB (docs/benchmarks.md), and allocator slack takes the rest. Before the CPU pool, one 16k×16k
 * mask alone took it past 1.3 GB.
 */
const MAX_RSS_GROWTH_BYTES = 450 * 1024 * 1024;

interface Figure {
  payload: string;
  addedMs: number;
  maxMs: number;
  medianMs: number;
  samples: number;
  peakRssMb: number;
}

describe('hostile files and bodies do not hold the event loop [embedded]', () => {
  test('every payload leaves /healthz within 100 ms of its median and memory bounded', { timeout: 600_000 }, async (t) => {
    const stores = await createSharedStores('embedded', {});
    const gateway: GatewayProcess = await spawnGateway(stores);
    after(async () => {
      await gateway.stop();
      await stores.dispose();
    });
    const pid = gateway.child.pid as number;
    const user = (await call(gateway.url, ADMIN_TOKEN, 'POST', '/admin/v1/users', { balanceCents: 10_000 })).body as { id: string };
    const key = ((await call(gateway.url, ADMIN_TOKEN, 'POST', `/admin/v1/users/${user.id}/api-keys`, {})).body as { key: string }).key;
    const c = clientFor({ url: gateway.url } as TestGateway, key, user.id);
    const conversationId = await c.conversation({ title: 'hostile' });

    // Warm up: JIT, the key cache, the first run of each path.
    for (let i = 0; i < 3; i++) await c.call('POST', '/api/v1/chat/completions', { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] });
    // Every payload is built before any probe starts: the probe shares this process's event loop, so
    // building 25 MB here while it runs would be counted against the gateway.
    const chatBody = Buffer.from(tinyArrays('{"model":"gpt-5.4-mini","messages":[{"role":"user","content":"hi"}],"metadata":', 16 * 1024 * 1024));
    const estimateBody = Buffer.from(tinyArrays('{"model":"z-image-turbo","input":{"prompt":"a fox","junk":', 16 * 1024 * 1024, '}'));
    const jsonFile = Buffer.from(tinyArrays('', 25 * 1024 * 1024));
    assert.equal(jsonFile.length, 25 * 1024 * 1024);
    const btPdf = pdfWith(Buffer.from('BT '.repeat(256 * 1024 / 3)), '');
    const bombPdf = pdfWith(deflateSync(Buffer.alloc(200 * 1024 * 1024, 0x20), { level: 9 }), ' /Filter /FlateDecode');
    const huge = binaryPng(16000, 16000);
    const large = binaryPng(4096, 4096);
    const idleRss = rssOf(pid);
    const figures: Figure[] = [];
    /** Answers other than expected (collected, so that every payload is still measured). */
    const wrong: string[] = [];

    const payloads: Array<[string, () => Promise<void>]> = [];
    const measure = async (payload: string, send: () => Promise<void>): Promise<void> => {
      payloads.push([payload, send]);
      figures.push(await measureOnce(payload, send));
    };
    const measureOnce = async (payload: string, send: () => Promise<void>): Promise<Figure> => {
      let peak = rssOf(pid);
      const sampler = setInterval(() => {
        peak = Math.max(peak, rssOf(pid));
      }, 10);
      const probe = probeHealthz(gateway.url);
      let seen: Awaited<ReturnType<typeof probe.stop>>;
      try {
        await sleep(300);
        await send();
        await sleep(300);
      } finally {
        clearInterval(sampler);
        seen = await probe.stop();
      }
      if (process.env.HOSTILE_PROGRESS) process.stderr.write(`${payload}: max ${Math.round(seen.maxMs)} ms, median ${seen.medianMs.toFixed(1)} ms, peak RSS ${Math.round(peak / 1e6)} MB\n`);
      return { payload, addedMs: Math.round(seen.maxMs - seen.medianMs), maxMs: Math.round(seen.maxMs), medianMs: Math.round(seen.medianMs * 10) / 10, samples: seen.samples, peakRssMb: Math.round(peak / 1e6) };
    };

    await measure('16 MB of tiny arrays to /chat/completions', async () => {
      const res = await rawPost(gateway.url, key, '/api/v1/chat/completions', chatBody);
      assert.ok(res.status < 500, `chat: ${res.status} ${res.text.slice(0, 300)}`);
    });
    await measure('16 MB of tiny arrays to /generation/estimate', async () => {
      const res = await rawPost(gateway.url, key, '/api/v1/generation/estimate', estimateBody);
      assert.ok(res.status < 500, `estimate: ${res.status} ${res.text.slice(0, 300)}`);
    });
    await measure('25 MiB JSON attachment completed', async () => {
      const done = await upload(c, conversationId, 'rows.json', 'application/json', jsonFile);
      assert.equal(done.status, 200, JSON.stringify(done.body));
    });
    await measure('PDF of repeated BT, read by a run', async () => {
      const conversation = await c.conversation({ title: 'bt' });
      const pdf = await upload(c, conversation, 'bt.pdf', 'application/pdf', btPdf);
      await readByRun(c, pdf.id, conversation);
    });
    await measure('deflate-bomb PDF (200 MB inflated), read by a run', async () => {
      const conversation = await c.conversation({ title: 'bomb' });
      const pdf = await upload(c, conversation, 'bomb.pdf', 'application/pdf', bombPdf);
      await readByRun(c, pdf.id, conversation);
    });
    await measure('a 16k×16k mask', async () => {
      const original = await upload(c, conversationId, 'huge.png', 'image/png', huge);
      const mask = await upload(c, conversationId, 'huge-mask.png', 'image/png', huge);
      const res = await postMasks(c, conversationId, original.id, [mask.id]);
      if (res.status !== 400) wrong.push(`a 16k×16k mask: ${res.status} ${JSON.stringify(res.body)}`);
    });
    await measure('nine 16k×16k masks in one message', async () => {
      const original = await upload(c, conversationId, 'huge2.png', 'image/png', huge);
      const masks: string[] = [];
      for (let i = 0; i < 9; i++) masks.push((await upload(c, conversationId, `m${i}.png`, 'image/png', huge)).id);
      const res = await postMasks(c, conversationId, original.id, masks);
      if (res.status !== 400) wrong.push(`nine 16k×16k masks: ${res.status} ${JSON.stringify(res.body)}`);
    });
    await measure('four 4096×4096 masks in one message', async () => {
      const original = await upload(c, conversationId, 'large.png', 'image/png', large);
      const masks: string[] = [];
      for (let i = 0; i < 4; i++) masks.push((await upload(c, conversationId, `l${i}.png`, 'image/png', large)).id);
      const res = await postMasks(c, conversationId, original.id, masks);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      await c.waitFor((res.body.data as { runId: string }).runId, ['completed', 'failed', 'waiting_for_clarification'], 60_000);
    });

    // A payload that holds the loop does so every time; a slow health check on a machine whose two
    // cores are shared with other test files is chance. So a payload over the bound is sent again, up
    // to four times after a pause (the heavy neighbours, process kills and browser runs, come in
    // bursts), and counts as holding the loop only when every round was over it.
    for (const [index, figure] of figures.entries()) {
      const entry = payloads[index];
      if (!entry || figure.addedMs < MAX_ADDED_MS) continue;
      for (let round = 0; round < 4; round++) {
        await new Promise((resolve) => setTimeout(resolve, 3_000));
        const again = await measureOnce(`${figure.payload} (again)`, entry[1]);
        t.diagnostic(`${figure.payload}: +${figure.addedMs} ms, again: +${again.addedMs} ms`);
        if (again.addedMs < figure.addedMs) figures[index] = { ...again, payload: figure.payload };
        if (again.addedMs < MAX_ADDED_MS) break;
      }
    }
    t.diagnostic(`idle RSS ${Math.round(idleRss / 1e6)} MB`);
    for (const f of figures) t.diagnostic(`${f.payload}: slowest /healthz ${f.maxMs} ms (median ${f.medianMs} ms, ${f.samples} samples, +${f.addedMs} ms), peak RSS ${f.peakRssMb} MB`);
    assert.deepEqual(wrong, [], 'unexpected answers');
    const stalled = figures.filter((f) => f.addedMs >= MAX_ADDED_MS);
    // Timings are asserted only on a quiet machine (SWITCHBOARD_STRICT_TIMING=1): in the shared suite the
    // two cores run browsers and process kills beside this file, and a slow health check there is noise.
    if (process.env.SWITCHBOARD_STRICT_TIMING === '1') assert.deepEqual(stalled.map((f) => `${f.payload}: +${f.addedMs} ms`), [], 'payloads that held the event loop');
    else for (const f of stalled) t.diagnostic(`over the bound in this run (not asserted without SWITCHBOARD_STRICT_TIMING=1): ${f.payload} +${f.addedMs} ms`);
    const peak = Math.max(...figures.map((f) => f.peakRssMb * 1e6));
    assert.ok(peak - idleRss < MAX_RSS_GROWTH_BYTES, `RSS grew from ${Math.round(idleRss / 1e6)} MB to ${Math.round(peak / 1e6)} MB`);
    assert.equal((await fetch(`${gateway.url}/healthz`)).status, 200, 'the gateway is still up');
  });
});

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** `prefix` + `[[],[],…]` + `suffix` + `}`, exactly `bytes` long (the prefix opens an object unless empty). */
function tinyArrays(prefix: string, bytes: number, suffix = ''): string {
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
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
    return Buffer.concat([head, data, crc]);
  };
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(width, 0);
  ihdr.writeUInt32BE(height, 4);
  ihdr.writeUInt8(1, 8); // bit depth
  ihdr.writeUInt8(0, 9); // greyscale
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}
