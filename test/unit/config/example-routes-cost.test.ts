/**
 * Issue 30, item 7: the documented example configurations lose no money on a failover. Each example
 * (README "Upstream providers", docs/media-providers.md's Google section) is loaded as written; for
 * every Veo model it routes to Google, each tier's price must cover Google's list price for that
 * tier (8 s with audio, the Gemini API's prices, docs/media-providers.md "What each reserve costs").
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadConfig } from '../../../src/config/load-config.ts';
import { Catalog } from '../../../src/domain/catalog/catalog.ts';
import { usdToMicro } from '../../../src/domain/money.ts';

/** Google's cost of one 8 s video per tier, USD (Fast 0.15/0.35 $/s, Standard 0.40/0.60, Lite 0.05/0.08; no 4k Lite). */
const GOOGLE_COST: Readonly<Record<string, Readonly<Record<string, string>>>> = {
  'veo-3.1-fast': { '720p': '1.20', '1080p': '1.20', '4k': '2.80' },
  'veo-3.1-quality': { '720p': '3.20', '1080p': '3.20', '4k': '4.80' },
  'veo-3.1-lite': { '720p': '0.40', '1080p': '0.64' },
};

function yamlBlock(path: string, after: string): string {
  const text = readFileSync(new URL(`../../../${path}`, import.meta.url), 'utf8');
  const match = /```yaml\n([\s\S]*?)```/.exec(text.slice(text.indexOf(after)));
  assert.ok(match?.[1], `${path} has an example configuration after ${after}`);
  return match[1];
}

const dir = mkdtempSync(join(tmpdir(), 'sb-example-routes-'));
const env = { KIE_API_KEY: 'k', FAL_KEY: 'f', GEMINI_API_KEY: 'g' };

for (const [path, heading] of [['README.md', '## Upstream providers'], ['docs/media-providers.md', '## Google (`type: google`)']] as const) {
  test(`${path}: every Veo model routed to Google is priced at or above Google's cost in every tier`, () => {
    const file = join(dir, `${path.replace(/\W/g, '_')}.yaml`);
    writeFileSync(file, yamlBlock(path, heading));
    const config = loadConfig({ ...env, SWITCHBOARD_CONFIG: file }, dir);
    const catalog = Catalog.build({ models: config.models, addedChatModels: config.addedChatModels, addedMediaModels: config.addedMediaModels });
    let checked = 0;
    for (const [model, targets] of Object.entries(config.routes)) {
      if (!targets.some((t) => config.providers[t.provider]?.type === 'google')) continue;
      const cost = GOOGLE_COST[model];
      if (!cost) continue;
      const published = catalog.get(model)?.pricing ?? [];
      for (const [tier, usd] of Object.entries(cost)) {
        const price = published.find((p) => p.key === tier);
        assert.ok(price, `${model} has a ${tier} tier`);
        assert.ok(usdToMicro(price.price) >= usdToMicro(usd), `${path}: ${model} ${tier} is priced ${price.price}, Google costs ${usd}`);
      }
      checked++;
    }
    assert.ok(checked > 0, `${path} routes a Veo model to Google`);
  });
}
