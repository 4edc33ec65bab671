/**
 * The parsing of one provider and one model's route, shared by the config file (load-config.ts) and
 * the admin API's live changes (issue 32, item 4), so a live change is validated exactly as the file
 * is and names the bad field the same way.
 */
import { ConfigError } from '../domain/config-error.ts';
import { ConfigReader } from './config-reader.ts';
import type { ModelOverride, PriceTierOverride } from '../domain/catalog/catalog-overrides.ts';
import type { ProviderConfig, RouteCost, RouteTarget } from './config.types.ts';

export const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const PROVIDER_TYPE = /^[a-z][a-z0-9-]*$/;
const DECIMAL_USD = /^\d{1,9}(\.\d{1,6})?$/;

/** The settings `models.<id>` takes: visibility, names and prices. */
export const MODEL_SETTING_KEYS = ['hidden', 'name', 'description', 'pricing', 'inputPrice', 'outputPrice', 'cachedInputPrice', 'cacheWritePrice', 'cacheWrite1hPrice', 'webSearchPrice'] as const;

/** A provider's settings other than its key, from `p` (the keys are read by the caller: `apiKey` or `keys`). */
export function parseProviderFields(p: ConfigReader): Omit<ProviderConfig, 'apiKey'> {
  const type = p.requiredString('type');
  if (!PROVIDER_TYPE.test(type)) throw new ConfigError(p.field('type'), 'must be an API style name such as openai, anthropic, kie, fal, replicate, switchboard, google or local');
  const baseUrl = p.string('baseUrl');
  if (baseUrl !== undefined) parseHttpUrl(p.field('baseUrl'), baseUrl);
  if (type !== 'local' && baseUrl === undefined) throw new ConfigError(p.field('baseUrl'), 'is required');
  const options = p.object('options');
  return {
    type,
    baseUrl: baseUrl?.replace(/\/+$/, ''),
    timeoutMs: p.number('timeoutMs', { min: 100, max: 3_600_000, integer: true }) ?? 60_000,
    concurrency: p.number('concurrency', { min: 1, max: 10_000, integer: true }) ?? 64,
    options: options ? Object.fromEntries(options.keys().map((k) => [k, options.raw(k)])) : {},
  };
}

/**
 * A model's route: a non-empty list of provider names or `{provider, model?, priority?, weight?}`,
 * every provider known to `hasProvider`.
 */
export function parseRouteList(list: unknown, field: string, modelId: string, hasProvider: (name: string) => boolean): RouteTarget[] {
  if (!Array.isArray(list) || list.length === 0) throw new ConfigError(field, 'must be a non-empty list of provider names or {provider, model?, priority?, weight?}');
  if (list.length > 64) throw new ConfigError(field, 'may hold at most 64 entries');
  return list.map((entry: unknown, i) => {
    const itemField = `${field}[${i}]`;
    let target: RouteTarget;
    if (typeof entry === 'string') {
      target = { provider: entry, model: modelId };
    } else {
      const r = new ConfigReader(entry, itemField);
      r.onlyKeys(['provider', 'model', 'priority', 'weight', 'cost', 'allowLoss']);
      target = { provider: r.requiredString('provider'), model: r.string('model') ?? modelId };
      if (target.model === '' || target.model.length > 200) throw new ConfigError(r.field('model'), 'must be an upstream model name of 1 to 200 characters');
      const priority = r.number('priority', { min: 0, max: 1_000_000, integer: true });
      if (priority !== undefined) target.priority = priority;
      const weight = r.number('weight', { max: 1_000_000 });
      if (weight !== undefined) {
        if (weight <= 0) throw new ConfigError(r.field('weight'), 'must be a positive number');
        target.weight = weight;
      }
      const cost = r.object('cost');
      if (cost) target.cost = parseRouteCost(cost);
      const allowLoss = r.boolean('allowLoss');
      if (allowLoss !== undefined) target.allowLoss = allowLoss;
    }
    if (!hasProvider(target.provider)) {
      throw new ConfigError(itemField, `names provider ${JSON.stringify(target.provider)}, which is not defined under providers`);
    }
    return target;
  });
}

function parseHttpUrl(field: string, value: string): void {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(field, `must be a URL, got ${JSON.stringify(value)}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(field, `unsupported URL scheme ${url.protocol} (http: or https:)`);
}

/** One model's setting (`models.<id>` of the file, or `PUT /admin/v1/models/{id}`); the catalog checks it against the model. */
export function parseModelOverride(m: ConfigReader): ModelOverride {
  m.onlyKeys(MODEL_SETTING_KEYS);
  const override: ModelOverride = {};
  const hidden = m.boolean('hidden');
  if (hidden !== undefined) override.hidden = hidden;
  const name = m.string('name');
  if (name !== undefined) override.name = name;
  const description = m.string('description');
  if (description !== undefined) override.description = description;
  if (m.has('pricing')) override.pricing = parsePricing(m.raw('pricing'), m.field('pricing'));
  for (const key of ['inputPrice', 'outputPrice', 'cachedInputPrice', 'cacheWritePrice', 'cacheWrite1hPrice', 'webSearchPrice'] as const) {
    const v = m.string(key);
    if (v !== undefined) override[key] = usdString(m.field(key), v);
  }
  return override;
}

export function parsePricing(raw: unknown, field: string): PriceTierOverride[] {
  if (!Array.isArray(raw) || raw.length === 0) throw new ConfigError(field, 'must be a non-empty list of {key, price, isDefault?, dimensions?}');
  if (raw.length > 500) throw new ConfigError(field, 'may hold at most 500 tiers');
  const tiers = raw.map((item, i) => {
    const r = new ConfigReader(item, `${field}[${i}]`);
    r.onlyKeys(['key', 'price', 'isDefault', 'dimensions']);
    const tier: PriceTierOverride = { key: r.requiredString('key'), price: usdString(r.field('price'), r.requiredString('price')) };
    const isDefault = r.boolean('isDefault');
    if (isDefault !== undefined) tier.isDefault = isDefault;
    const dims = r.object('dimensions');
    if (dims) {
      tier.dimensions = {};
      for (const k of dims.keys()) tier.dimensions[k] = dims.requiredString(k);
    }
    return tier;
  });
  if (tiers.filter((t) => t.isDefault).length > 1) throw new ConfigError(field, 'at most one tier may be the default');
  return tiers;
}

export function usdString(field: string, value: string): string {
  if (!DECIMAL_USD.test(value)) throw new ConfigError(field, `must be a decimal USD amount with at most 6 decimals, such as "0.05", got ${JSON.stringify(value)}`);
  return value;
}

/** `cost: {inputPrice?, outputPrice?, cachedInputPrice?}` (text, per 1M tokens) or `{pricing: [{key, price}]}` (media, per tier unit). */
function parseRouteCost(c: ConfigReader): RouteCost {
  c.onlyKeys(['inputPrice', 'outputPrice', 'cachedInputPrice', 'pricing']);
  const cost: RouteCost = {};
  for (const key of ['inputPrice', 'outputPrice', 'cachedInputPrice'] as const) {
    const v = c.string(key);
    if (v !== undefined) cost[key] = usdString(c.field(key), v);
  }
  if (c.has('pricing')) {
    const raw = c.raw('pricing');
    if (!Array.isArray(raw) || raw.length === 0 || raw.length > 500) throw new ConfigError(c.field('pricing'), 'must be a list of 1 to 500 {key, price}');
    cost.pricing = raw.map((item, i) => {
      const t = new ConfigReader(item, `${c.field('pricing')}[${i}]`);
      t.onlyKeys(['key', 'price']);
      return { key: t.requiredString('key'), price: usdString(t.field('price'), t.requiredString('price')) };
    });
  }
  return cost;
}
