import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import sharp from 'sharp';
import { freePort } from '../../bench/support/child-gateway.ts';
import { probeMedia } from '../../src/adapters/media/probe-media.ts';
import { Catalog } from '../../src/domain/catalog/catalog.ts';
import { type CatalogEntry, sendFromForm } from '../support/catalog-inputs.ts';
import { startMediaServer } from '../support/media-server.ts';
import { type TaskData, waitForTask } from '../support/tasks.ts';

/**
 * What a newcomer gets after the README's first command: a gateway on an empty data directory, the
 * printed demo key, and for each of the 34 media models one create (from the catalog form's defaults)
 * that finishes with real files: images decode at the requested size, videos and audio have the
 * requested duration.
 */
test('after the first start, one create per media model finishes with real files of the requested size and length', { timeout: 600_000 }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'sb-all-'));
  const port = await freePort();
  const media = await startMediaServer();
  const url = `http://127.0.0.1:${port}`;
  const child = spawn(process.execPath, ['src/main.ts', 'serve'], {
    // Reference media in the forms are served on 127.0.0.1, which only an operator's setting allows.
    env: { PATH: process.env.PATH ?? '', PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dir, SWITCHBOARD_ALLOW_PRIVATE_URLS: '1' },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  try {
    const deadline = Date.now() + 30_000;
    while (!/switchboard started/.test(output) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const key = /API key \(shown once, keep it\): (sb_\S+)/.exec(output)?.[1];
    assert.ok(key, 'the demo key is printed');
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(url + path, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const catalog = Catalog.build();
    const models = ((await api('GET', '/api/v1/catalog')).body as CatalogEntry[]).filter((m) => m.kind === 'media');
    assert.equal(models.length, 34);

    const created: Array<{ model: CatalogEntry; taskId: string; input: Record<string, unknown> }> = [];
    for (const model of models) {
      const res = await sendFromForm(model, media, (input) => api('POST', '/api/v1/generation/create', { model: model.id, input }));
      assert.equal(res.status, 200, `${model.id}: ${JSON.stringify(res.body)}`);
      created.push({ model, taskId: (res.body as { data: { taskId: string } }).data.taskId, input: res.input });
    }

    for (const { model, taskId, input } of created) {
      const task: TaskData = await waitForTask({ api: (_key, method, path) => api(method, path).then((r) => ({ ...r, headers: new Headers() })) }, key, taskId, 300_000);
      assert.equal(task.status, 'finished', `${model.id}: ${task.errorMessage}`);
      const validated = catalog.validate(model.id, input);
      const spec = catalog.outputSpec(model.id, validated);
      if (spec.kind === 'data') {
        assert.ok(task.output && Object.keys(task.output).length > 0, `${model.id} has an output`);
        continue;
      }
      assert.ok(task.files.length > 0, `${model.id} has files`);
      for (const file of task.files) {
        const bytes = Buffer.from(await (await fetch(file.fileUrl)).arrayBuffer());
        if (spec.kind === 'image') {
          assert.equal(file.fileType, 'image');
          const meta = await sharp(bytes).metadata();
          assert.deepEqual([meta.width, meta.height], [spec.width, spec.height], `${model.id} image size`);
        } else if (spec.kind === 'video') {
          assert.equal(file.fileType, 'video');
          const probe = await probeMedia(bytes, { kind: 'video' });
          const requested = typeof input.duration === 'number' ? input.duration : spec.durationS;
          assert.ok(Math.abs((probe.durationS ?? 0) - requested) < 0.15, `${model.id}: ${probe.durationS} s, requested ${requested} s`);
          assert.deepEqual([probe.width, probe.height], [spec.width, spec.height], `${model.id} video size`);
        } else {
          assert.equal(file.fileType, 'music');
          const probe = await probeMedia(bytes, { kind: 'audio' });
          assert.ok(Math.abs((probe.durationS ?? 0) - spec.durationS) < 0.15, `${model.id}: ${probe.durationS} s, requested ${spec.durationS} s`);
        }
      }
      if (model.id === 'suno') {
        const tracks = (task.output as { tracks?: Array<{ title: string; coverImageUrls: string[]; audioId: string }> }).tracks ?? [];
        assert.equal(tracks.length, task.files.length, 'one track per file, in order');
        const cover = await fetch(tracks[0]?.coverImageUrls[0] ?? '');
        assert.equal(cover.status, 200, 'the cover is re-hosted too');
      }
    }
  } finally {
    child.kill('SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
    await media.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
