/**
 * Mask checks (issue 17, item 9): a mask larger than any model edits is refused from its header,
 * before a pixel is decoded; the pixels are decoded by libvips a bounded number at once and counted in
 * the CPU pool, with the verdicts of before (grey share, no white region, the edited share).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import sharp from 'sharp';
import { CPU_TASK_DEADLINES_MS } from '../../../src/adapters/cpu/cpu-tasks.ts';
import { ThreadPool } from '../../../src/adapters/cpu/thread-pool.ts';
import type { CpuTaskCatalog } from '../../../src/ports/cpu-pool.port.ts';
import { checkMask, DecodeSlots, MAX_MASK_SIDE } from '../../../src/services/agent/attachments/mask-checks.ts';
import { handMadePng } from '../../support/png.ts';

const cpu = new ThreadPool<CpuTaskCatalog>({ script: new URL('../../../src/adapters/cpu/cpu-worker.ts', import.meta.url), deadlineMs: (kind) => CPU_TASK_DEADLINES_MS[kind as keyof CpuTaskCatalog] });
after(() => cpu.close());
const deps = { cpu, decodes: new DecodeSlots(2) };

/** A greyscale PNG: `white` rows of 255 on top, the rest `rest`. */
function greyPng(width: number, height: number, white: number, rest = 0): Promise<Buffer> {
  const pixels = Buffer.alloc(width * height, rest);
  pixels.fill(255, 0, width * white);
  return sharp(pixels, { raw: { width, height, channels: 1 } }).png().toBuffer();
}

/** A PNG header claiming `width × height` with pixel data that cannot be decoded. */
function claimedPng(width: number, height: number): Buffer {
  return handMadePng({ width, height, bitDepth: 8, colourType: 0 }, Buffer.alloc(10));
}

describe('mask checks', () => {
  test('a mask larger than any model edits is refused from its header, before decoding', async () => {
    const verdict = await checkMask(claimedPng(16000, 16000), { width: 16000, height: 16000 }, deps);
    assert.deepEqual(verdict, { ok: false, error: `the mask is 16000×16000: a mask is at most ${MAX_MASK_SIDE}×${MAX_MASK_SIDE}, the largest picture a model edits` });
    assert.equal((await checkMask(claimedPng(4097, 10), { width: 4097, height: 10 }, deps)).ok, false);
  });

  test('the verdicts of before: size, grey share, no white region, the edited share, transparency as black', async () => {
    assert.deepEqual(await checkMask(await sharp({ create: { width: 4, height: 4, channels: 3, background: '#fff' } }).jpeg().toBuffer(), { width: 4, height: 4 }, deps), { ok: false, error: 'a mask must be a PNG' });
    assert.deepEqual(await checkMask(await greyPng(20, 10, 5), { width: 10, height: 10 }, deps), { ok: false, error: 'the mask is 20×10, its original 10×10: they must be the same size' });
    assert.deepEqual(await checkMask(await greyPng(20, 10, 5, 128), { width: 20, height: 10 }, deps), { ok: false, error: 'the mask must be black and white: 50 % of its pixels are grey' });
    assert.deepEqual(await checkMask(await greyPng(20, 10, 0), { width: 20, height: 10 }, deps), { ok: false, error: 'the mask has no white region: nothing would be edited' });
    assert.deepEqual(await checkMask(await greyPng(20, 10, 3), { width: 20, height: 10 }, deps), { ok: true, editShare: 0.3 });
    const transparent = await sharp({ create: { width: 10, height: 10, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 0 } } })
      .composite([{ input: { create: { width: 10, height: 5, channels: 4, background: { r: 255, g: 255, b: 255, alpha: 1 } } }, top: 0, left: 0 }])
      .png()
      .toBuffer();
    assert.deepEqual(await checkMask(transparent, { width: 10, height: 10 }, deps), { ok: true, editShare: 0.5 });
  });

  test('the largest mask allowed is decoded and counted', async () => {
    const mask = await greyPng(MAX_MASK_SIDE, MAX_MASK_SIDE, MAX_MASK_SIDE / 4);
    assert.deepEqual(await checkMask(mask, { width: MAX_MASK_SIDE, height: MAX_MASK_SIDE }, deps), { ok: true, editShare: 0.25 });
  });

  test('decode slots bound the decodes running at once, in order', async () => {
    const slots = new DecodeSlots(2);
    let running = 0;
    let most = 0;
    const order: number[] = [];
    await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        slots.run(async () => {
          running++;
          most = Math.max(most, running);
          await new Promise((resolve) => setTimeout(resolve, 10));
          order.push(i);
          running--;
        }),
      ),
    );
    assert.equal(most, 2);
    assert.deepEqual(order, [0, 1, 2, 3, 4, 5]);
  });
});
