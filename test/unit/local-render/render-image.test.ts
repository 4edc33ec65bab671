import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import sharp from 'sharp';
import { renderImage, renderImageRaw } from '../../../src/providers/local/render/render-image.ts';

const PROMPT = 'A lighthouse on a cliff at dawn';

async function pixels(image: Buffer): Promise<{ data: Buffer; width: number; height: number; format: string | undefined }> {
  const meta = await sharp(image).metadata();
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height, format: meta.format };
}

function differingBytes(a: Buffer, b: Buffer): number {
  let n = 0;
  for (let i = 0; i < a.length; i += 1) if (a[i] !== b[i]) n += 1;
  return n;
}

describe('renderImage', () => {
  test('PNG and JPEG come out at exactly the requested size', async () => {
    for (const [width, height, format] of [[1024, 1024, 'png'], [1920, 1080, 'jpeg'], [256, 2048, 'png'], [3, 2, 'png'], [1, 1, 'jpeg']] as const) {
      const image = await renderImage({ prompt: PROMPT, seed: 1, width, height, format });
      const got = await pixels(image);
      assert.deepEqual([got.width, got.height, got.format], [width, height, format], `${width}x${height} ${format}`);
    }
  });

  test('the same inputs give the same bytes', async () => {
    const a = await renderImage({ prompt: PROMPT, seed: 9, width: 640, height: 360, format: 'png' });
    const b = await renderImage({ prompt: PROMPT, seed: 9, width: 640, height: 360, format: 'png' });
    assert.ok(a.equals(b));
    const c = await renderImage({ prompt: PROMPT, seed: 9, width: 640, height: 360, format: 'jpeg' });
    const d = await renderImage({ prompt: PROMPT, seed: 9, width: 640, height: 360, format: 'jpeg' });
    assert.ok(c.equals(d));
  });

  test('the seed changes the picture everywhere, the prompt changes the caption at least', async () => {
    const base = await renderImageRaw({ prompt: PROMPT, seed: 1, width: 320, height: 320 });
    const otherSeed = await renderImageRaw({ prompt: PROMPT, seed: 2, width: 320, height: 320 });
    const otherPrompt = await renderImageRaw({ prompt: 'A submarine in a storm', seed: 1, width: 320, height: 320 });
    // Most pixels of the colour field move with the seed.
    assert.ok(differingBytes(base.data, otherSeed.data) > base.data.length / 2);
    // The bottom fifth (the caption band) differs with the prompt.
    const band = 320 * 3 * 64;
    assert.ok(differingBytes(base.data.subarray(-band), otherPrompt.data.subarray(-band)) > 1000);
  });

  test('the caption is drawn in white on a darkened band at the bottom', async () => {
    const frame = await renderImageRaw({ prompt: 'HELLO', seed: 3, width: 400, height: 300 });
    const white = (y0: number, y1: number): number => {
      let n = 0;
      for (let i = y0 * 400 * 3; i < y1 * 400 * 3; i += 3) if (frame.data[i] === 255 && frame.data[i + 1] === 255 && frame.data[i + 2] === 255) n += 1;
      return n;
    };
    // Scale 2 at this size: H E L L O have 17+18+11+11+16 = 73 font pixels, 4 device pixels each.
    assert.equal(white(250, 300), 73 * 4);
    assert.equal(white(0, 200), 0);
  });

  test('4096×4096 renders at its full size', async () => {
    const image = await renderImage({ prompt: PROMPT, seed: 5, width: 4096, height: 4096, format: 'png' });
    const meta = await sharp(image).metadata();
    assert.deepEqual([meta.width, meta.height], [4096, 4096]);
  });

  test('impossible sizes and formats are refused', async () => {
    await assert.rejects(renderImage({ prompt: 'x', seed: 1, width: 0, height: 10, format: 'png' }), RangeError);
    await assert.rejects(renderImage({ prompt: 'x', seed: 1, width: 10.5, height: 10, format: 'png' }), RangeError);
    await assert.rejects(renderImage({ prompt: 'x', seed: 1, width: 9000, height: 10, format: 'png' }), RangeError);
    await assert.rejects(renderImage({ prompt: 'x', seed: 1, width: 10, height: 10, format: 'gif' as 'png' }), /unsupported image format gif/);
  });
});
