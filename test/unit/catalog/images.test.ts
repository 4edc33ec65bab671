import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { catalog, cost, IMG, IMG2, rejects, valid } from './catalog-helpers.ts';

const P = 'a teapot shaped like a snail';

describe('I1 to I3', () => {
  test('I1 sizes and resolution tiers', () => {
    assert.equal(valid('nano-banana-2', { prompt: P, size: '8:1' }).size, '8:1');
    rejects('nano-banana-2', { prompt: P, size: '2:1' }, 'size');
    rejects('nano-banana-2', { prompt: P, resolution: '4k' }, 'resolution', /"4K"/);
    assert.equal(cost('nano-banana-2', { prompt: P, resolution: '4K' }), 151_000);
    assert.equal(cost('nano-banana-2', { prompt: P, resolution: '512px' }), 45_000);
    assert.equal(cost('nano-banana-pro', { prompt: P, resolution: '512px' }), 134_000);
    assert.equal(cost('nano-banana-pro', { prompt: P, resolution: '4K' }), 240_000);
    rejects('nano-banana-pro', { urls: [IMG] }, 'prompt', /is required/);
  });

  test('I2 takes at most one image; I3 takes none', () => {
    rejects('grok-imagine-image', { prompt: P, urls: [IMG, IMG2] }, 'urls', /at most 1/);
    rejects('grok-imagine-image', { prompt: P, size: '4:3' }, 'size');
    assert.equal(cost('grok-imagine-image', { prompt: P, urls: [IMG] }), 20_000);
    rejects('z-image-turbo', { prompt: P, urls: [IMG] }, 'urls', /not a known field/);
    rejects('z-image-turbo', { prompt: P, size: '21:9' }, 'size');
  });
});

describe('I4 (GPT Image)', () => {
  test('1:3 and 3:1 need resolution 2k or 4k on gpt-image-2-official, not on gpt-image-2 (kie makes them at 1K only)', () => {
    assert.doesNotThrow(() => valid('gpt-image-2', { prompt: P, size: '1:3', resolution: '1k' }));
    for (const model of ['gpt-image-2-official']) {
      rejects(model, { prompt: P, size: '1:3' }, 'resolution', /must be "2k" or "4k" when size is 1:3/);
      rejects(model, { prompt: P, size: '3:1', resolution: '1k' }, 'resolution', /3:1/);
      assert.doesNotThrow(() => valid(model, { prompt: P, size: '3:1', resolution: '2k' }));
    }
    assert.doesNotThrow(() => valid('gpt-image-1.5', { prompt: P, size: '1:3' }));
  });

  test('sizes, resolutions, data URIs and prices', () => {
    assert.equal(valid('gpt-image-2', { prompt: P, size: 'auto' }).size, 'auto');
    rejects('gpt-image-2', { prompt: P, size: '5:3' }, 'size');
    rejects('gpt-image-2', { prompt: P, resolution: '1K' }, 'resolution', /"1k", "2k", "4k"/);
    assert.doesNotThrow(() => valid('gpt-image-2', { prompt: P, urls: [IMG, 'data:image/jpeg;base64,/9j/4AAQ'] }));
    rejects('gpt-image-2', { prompt: P, urls: ['data:text/plain,hello'] }, 'urls[0]');
    assert.equal(cost('gpt-image-2', { prompt: P, resolution: '4k' }), 40_000);
    assert.equal(cost('gpt-image-2-official', { prompt: P, resolution: '2k' }), 107_000);
    assert.equal(cost('gpt-image-1.5', { prompt: P, resolution: '4k' }), 20_000);
  });
});

describe('I5 (Seedream)', () => {
  test('bounds and per-model fields', () => {
    rejects('seedream-4.5', { prompt: P, urls: Array(15).fill(IMG) }, 'urls', /at most 14/);
    rejects('seedream-4.5', { prompt: P, resolution: '8K' }, 'resolution');
    rejects('seedream-4.5', { prompt: P, size: '5:4' }, 'size');
    rejects('seedream-5.0-pro', { prompt: P, outputFormat: 'webp' }, 'outputFormat', /"jpeg", "png"/);
    rejects('seedream-4.0', { prompt: P, promptOptimizeMode: 'slow' }, 'promptOptimizeMode');
    assert.equal(valid('seedream-5.0-pro', { prompt: P }).outputFormat, 'jpeg');
    assert.equal(valid('seedream-4.0', { prompt: P }).outputFormat, undefined);
    assert.equal(valid('seedream-4.5', { prompt: P }).watermark, false);
  });

  test('flat prices, and resolution tiers on 5.0 Pro', () => {
    assert.equal(cost('seedream-4.0', { prompt: P, resolution: '4K' }), 30_000);
    assert.equal(cost('seedream-5.0-lite', { prompt: P, resolution: '3K' }), 35_000);
    assert.equal(cost('seedream-5.0-pro', { prompt: P, resolution: '1K' }), 37_000);
    assert.equal(cost('seedream-5.0-pro', { prompt: P, resolution: '4K' }), 70_000);
  });
});

describe('I6 (Qwen Image)', () => {
  test('urls must hold exactly one image when given', () => {
    rejects('qwen-image', { prompt: P, urls: [] }, 'urls', /at least 1/);
    rejects('qwen-image', { prompt: P, urls: [IMG, IMG2] }, 'urls', /at most 1/);
    assert.doesNotThrow(() => valid('qwen-image', { prompt: P, urls: [IMG] }));
    rejects('qwen-image', { prompt: P, size: '3:2' }, 'size');
  });

  test('size defaults to 1:1 for text-to-image only; an edit follows its reference', () => {
    assert.equal(valid('qwen-image', { prompt: P }).size, '1:1');
    assert.equal(valid('qwen-image', { prompt: P, urls: [IMG] }).size, undefined);
    assert.equal(valid('qwen-image', { prompt: P, urls: [IMG], size: '16:9' }).size, '16:9');
    assert.equal(valid('qwen-image', { prompt: P }).enableSafetyChecker, true);
    assert.equal(cost('qwen-image', { prompt: P, urls: [IMG] }), 20_000);
  });
});

describe('I7 (Wan 2.7 Image)', () => {
  test('urls 1 to 4; width and height each require the other', () => {
    rejects('wan-2.7-image', { prompt: P, urls: [] }, 'urls', /at least 1/);
    rejects('wan-2.7-image', { prompt: P, urls: Array(5).fill(IMG) }, 'urls', /at most 4/);
    rejects('wan-2.7-image', { prompt: P, width: 1024 }, 'height', /is required when input.width is given/);
    rejects('wan-2.7-image', { prompt: P, height: 1024 }, 'width', /is required when input.height is given/);
    rejects('wan-2.7-image', { prompt: P, width: 100, height: 1024 }, 'width', /from 256 to 4096/);
    rejects('wan-2.7-image', { prompt: P, width: 1024.5, height: 1024 }, 'width', /whole number/);
    assert.doesNotThrow(() => valid('wan-2.7-image', { prompt: P, width: 1280, height: 720, urls: [IMG, IMG2] }));
    rejects('wan-2.7-image', { prompt: P, seed: 2_147_483_648 }, 'seed');
  });
});

describe('I8 (Midjourney)', () => {
  const M = 'midjourney';
  const follow = { parentTaskId: 'task_parent' };

  test('imagine and edits need a prompt; edits needs its source image', () => {
    rejects(M, {}, 'prompt', /required for action imagine/);
    rejects(M, { action: 'edits', imageUrls: [IMG] }, 'prompt', /required for action edits/);
    rejects(M, { action: 'edits', prompt: P }, 'imageUrls', /required for action edits/);
    assert.doesNotThrow(() => valid(M, { action: 'edits', prompt: P, imageUrls: [IMG] }));
    rejects(M, { prompt: P, imageUrls: Array(17).fill(IMG) }, 'imageUrls', /at most 16/);
  });

  test('blend takes 2 to 4 images; describe exactly one', () => {
    rejects(M, { action: 'blend', imageUrls: [IMG] }, 'imageUrls', /2 to 4 images for action blend \(got 1\)/);
    rejects(M, { action: 'blend', imageUrls: Array(5).fill(IMG) }, 'imageUrls', /got 5/);
    assert.equal(valid(M, { action: 'blend', imageUrls: [IMG, IMG2] }).dimensions, 'SQUARE');
    rejects(M, { action: 'describe' }, 'imageUrls', /exactly 1 image for action describe/);
    rejects(M, { action: 'describe', imageUrls: [IMG, IMG2] }, 'imageUrls', /got 2/);
  });

  test('follow-up actions need parentTaskId; tile actions need index or customId', () => {
    for (const action of ['upscale', 'variation', 'high-variation', 'low-variation', 'reroll', 'zoom', 'pan', 'inpaint', 'modal', 'remix-strong', 'remix-subtle']) {
      const extra = action === 'pan' ? { direction: 'left' } : action === 'inpaint' || action === 'modal' ? { maskUrl: IMG } : {};
      rejects(M, { action, ...extra }, 'parentTaskId', new RegExp(`required for action ${action}`));
    }
    rejects(M, { action: 'upscale', ...follow }, 'index', /or input.customId is required for action upscale/);
    assert.doesNotThrow(() => valid(M, { action: 'upscale', ...follow, index: 4 }));
    assert.doesNotThrow(() => valid(M, { action: 'variation', ...follow, customId: 'MJ::JOB::variation::1' }));
    assert.doesNotThrow(() => valid(M, { action: 'reroll', ...follow }));
    rejects(M, { action: 'upscale', ...follow, index: 5 }, 'index', /from 1 to 4/);
    rejects(M, { prompt: P, parentTaskId: 'task_x' }, 'parentTaskId', /only used by follow-up actions/);
    rejects(M, { prompt: P, index: 1 }, 'index', /only used by follow-up/);
  });

  test('pan needs a direction; inpaint and modal need a mask; action-only fields are refused elsewhere', () => {
    rejects(M, { action: 'pan', ...follow }, 'direction', /required for action pan/);
    assert.doesNotThrow(() => valid(M, { action: 'pan', ...follow, direction: 'up' }));
    rejects(M, { action: 'pan', ...follow, direction: 'forward' }, 'direction');
    rejects(M, { action: 'inpaint', ...follow }, 'maskUrl', /required for action inpaint/);
    rejects(M, { action: 'modal', ...follow }, 'maskUrl', /required for action modal/);
    assert.doesNotThrow(() => valid(M, { action: 'inpaint', ...follow, maskUrl: 'data:image/png;base64,iVBORw0KGgo=', prompt: P }));
    rejects(M, { prompt: P, direction: 'left' }, 'direction', /only used by action pan/);
    rejects(M, { action: 'zoom', ...follow, direction: 'left' }, 'direction', /only used by action pan/);
    rejects(M, { prompt: P, zoomRatio: 1.5 }, 'zoomRatio', /only used by action zoom/);
    rejects(M, { prompt: P, maskUrl: IMG }, 'maskUrl', /inpaint or modal/);
    rejects(M, { prompt: P, dimensions: 'PORTRAIT' }, 'dimensions', /only used by action blend/);
    rejects(M, { action: 'upscale', ...follow, index: 1, imageUrls: [IMG] }, 'imageUrls', /only used by action/);
    assert.equal(valid(M, { prompt: P }).dimensions, undefined);
  });

  test('version and flag compatibility', () => {
    assert.doesNotThrow(() => valid(M, { prompt: P, hd: true }));
    assert.doesNotThrow(() => valid(M, { prompt: P, hd: true, version: '8.1' }));
    rejects(M, { prompt: P, hd: true, version: '7' }, 'hd', /requires version 8.1/);
    rejects(M, { prompt: P, hd: true, niji: true }, 'hd', /without niji/);
    assert.doesNotThrow(() => valid(M, { prompt: P, draft: true, version: '7' }));
    rejects(M, { prompt: P, draft: true, version: '6.1' }, 'draft', /version 7 or later/);
    assert.doesNotThrow(() => valid(M, { prompt: P, stop: 50, version: '6.1' }));
    assert.doesNotThrow(() => valid(M, { prompt: P, stop: 50, version: '5.1', niji: true }));
    rejects(M, { prompt: P, stop: 50 }, 'stop', /version 5.1 to 6.1/);
    rejects(M, { prompt: P, stop: 50, version: '7' }, 'stop', /got version 7/);
    assert.doesNotThrow(() => valid(M, { prompt: P, raw: true, version: '5.1' }));
    rejects(M, { prompt: P, version: 7 }, 'version', /"8.1", "7"/);
    rejects(M, { prompt: P, version: '6' }, 'version');
  });

  test('numeric ranges and formats', () => {
    const cases: Array<[string, unknown]> = [
      ['stylize', 1001],
      ['chaos', 101],
      ['weird', 3001],
      ['iw', 3.5],
      ['cw', 101],
      ['sw', 1001],
      ['dw', 101],
      ['repeat', 1],
      ['repeat', 41],
      ['stop', 9],
      ['stop', 101],
      ['stylize', 10.5],
      ['quality', 0.3],
      ['quality', '1'],
      ['speed', 'slow'],
      ['size', '16x9'],
      ['sref', 'not-a-url'],
      ['seed', -5],
    ];
    for (const [field, value] of cases) rejects(M, { prompt: P, version: '6.1', [field]: value }, field);
    assert.doesNotThrow(() => valid(M, { prompt: P, stylize: 1000, chaos: 0, weird: 3000, iw: 2.5, quality: 0.25, size: '16:9', tile: true, repeat: 40 }));
  });

  test('action × speed matrix, times repeat', () => {
    assert.equal(cost(M, { prompt: P, speed: 'fast' }), 68_800);
    assert.equal(cost(M, { prompt: P, speed: 'turbo' }), 125_000);
    assert.equal(cost(M, { action: 'upscale', ...follow, index: 2 }), 68_800);
    assert.equal(cost(M, { action: 'describe', imageUrls: [IMG], speed: 'turbo' }), 125_000);
    assert.equal(cost(M, { prompt: P, repeat: 3 }), 168_900);
    const tiers = catalog.get(M)?.pricing ?? [];
    assert.equal(tiers.length, 45);
    assert.deepEqual(tiers[0], { key: 'imagine:relax', price: '0.0563', isDefault: true, dimensions: { action: 'imagine', speed: 'relax' } });
    assert.equal(tiers.find((t) => t.key === 'pan:relax')?.price, '0.0688');
  });
});
