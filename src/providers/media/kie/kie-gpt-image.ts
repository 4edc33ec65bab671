/**
 * GPT Image (family I4) on kie's Market, per kie's own pages (fixtures
 * test/fixtures/upstreams/kie/market-gpt-image-*.json, read 2026-12-02):
 *
 * - `gpt-image/1.5-{text-to-image,image-to-image}`: `aspect_ratio` 1:1, 2:3, 3:2 and `quality`
 *   medium/high, both required; no resolution. We send `quality: medium` (the tier the catalog prices,
 *   0.02 flat); `auto` goes out as 1:1 (no auto there; our catalog renders auto as 1:1). Other sizes
 *   and the 2k/4k tiers cannot be made there: refused, so a reserve serves them (or a 400 before any
 *   charge when kie is the only route).
 * - `gpt-image-2-{text-to-image,image-to-image}`: `aspect_ratio` (16 values with auto) and
 *   `resolution` 1K/2K/4K; no quality. Text-to-image: 2K and 4K do not take 5:4, 4:5, 3:1, 1:3, 9:21.
 *   Image-to-image: 5:4, 4:5 and auto are 1K only, and 1:1 has no 4K. Those are refused.
 */
import type { ValidatedInput } from '../../../domain/catalog/catalog.types.ts';
import type { RouteRefusal } from '../media-provider.ts';
import type { FieldTable } from '../shared/field-mapping.ts';

const isV15 = (kieModel: string) => kieModel.startsWith('gpt-image/1.5');
const isV2 = (kieModel: string) => kieModel.startsWith('gpt-image-2');
const isEdit = (kieModel: string) => kieModel.endsWith('-image-to-image');

const V15_ASPECTS: Readonly<Record<string, string>> = { auto: '1:1', '1:1': '1:1', '2:3': '2:3', '3:2': '3:2' };
const V2_T2I_1K_ONLY: ReadonlySet<unknown> = new Set(['5:4', '4:5', '3:1', '1:3', '9:21']);
const V2_I2I_1K_ONLY: ReadonlySet<unknown> = new Set(['5:4', '4:5', 'auto']);

export function gptImageFields(kieModel: string): FieldTable {
  if (isV15(kieModel)) return { rules: { urls: 'input_urls', size: { to: 'aspect_ratio', value: (v) => V15_ASPECTS[String(v)] }, resolution: false } };
  return { rules: { urls: 'input_urls', size: 'aspect_ratio', resolution: { to: 'resolution', value: (v) => String(v).toUpperCase() } } };
}

export function gptImageExtra(input: ValidatedInput, _job: unknown, kieModel: string): Record<string, unknown> {
  if (!isV15(kieModel)) return {};
  // Both are required by kie's 1.5 pages; the catalog's default size is 1:1.
  return { quality: 'medium', ...(input.size === undefined ? { aspect_ratio: '1:1' } : {}) };
}

export function gptImageRefusal(input: ValidatedInput, kieModel: string): RouteRefusal | undefined {
  const size = input.size ?? 'auto';
  const resolution = String(input.resolution ?? '1k');
  if (isV15(kieModel)) {
    if (!(String(size) in V15_ASPECTS)) return { field: 'size', message: `kie's ${kieModel} makes 1:1, 2:3 and 3:2 only, not ${String(size)}` };
    if (resolution !== '1k') return { field: 'resolution', message: `kie's ${kieModel} has no resolution tier: ${resolution} cannot be made there` };
    return undefined;
  }
  if (!isV2(kieModel) || resolution === '1k') return undefined;
  const oneKOnly = isEdit(kieModel) ? V2_I2I_1K_ONLY : V2_T2I_1K_ONLY;
  if (oneKOnly.has(size)) return { field: 'resolution', message: `kie's ${kieModel} makes size ${String(size)} at 1k only, not ${resolution}` };
  if (isEdit(kieModel) && size === '1:1' && resolution === '4k') return { field: 'resolution', message: `kie's ${kieModel} cannot make 1:1 at 4k` };
  return undefined;
}
