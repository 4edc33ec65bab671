/**
 * The catalog: built-in media and text models, with operator overrides (prices, names, hiding) and
 * added models applied once at start. Validation, prices, probing and output specs of a media model
 * all come from its family declaration (families/), so they cannot disagree.
 */
import { ConfigError } from '../config-error.ts';
import type { AddedChatModel, AddedMediaModel, ModelOverride } from './catalog-overrides.ts';
import { AppError, invalidInput } from '../errors.ts';
import { microToUsd, usdToMicro } from '../money.ts';
import type {
  CatalogModel,
  ChatModelDefinition,
  MeasuredMedia,
  MediaModelInfo,
  OutputSpec,
  ParamField,
  PriceQuote,
  PriceTier,
  ProbeRequest,
  ValidatedInput,
} from './catalog.types.ts';
import { type FamilyContext, type FamilyDef, Measurements } from './dsl/family.ts';
import type { FieldDef } from './dsl/field.types.ts';
import { defaultInput, deriveCapabilities, effectiveFields, inputJsonSchema, toParamField } from './dsl/publish.ts';
import type { RuleContext } from './dsl/rules.ts';
import { describeValue, validateObject } from './dsl/validate.ts';
import { FAMILIES } from './families/index.ts';
import { CHAT_MODELS, type ChatModelSeed } from './models/chat-models.ts';
import { applyEmbeddingOverride, builtInEmbeddingModels, type EmbeddingModelDefinition } from './models/embedding-models.ts';
import { MEDIA_MODELS, type MediaModelDef } from './models/media-models.ts';
import { applyPricingOverride, buildPriceTable, defaultCell, type PriceTable, publishTiers, quote } from './pricing/price-table.ts';

export interface CatalogOverrides {
  models: Record<string, ModelOverride>;
  addedChatModels: AddedChatModel[];
  addedMediaModels: AddedMediaModel[];
}

interface MediaEntry {
  info: MediaModelInfo;
  def: MediaModelDef;
  family: FamilyDef;
  variant: string | undefined;
  fields: FieldDef[];
  ignored: Set<string>;
  table: PriceTable;
  description: string;
  hidden: boolean;
  params: ParamField[];
  capabilities: string[];
  schema: Record<string, unknown>;
}

interface ChatEntry {
  def: ChatModelDefinition;
  hidden: boolean;
  /** Cache-write prices as multiples of the input price (the vendor publishes them so); 1 when absent. */
  cacheWriteFactor: { '5m': number; '1h': number };
}

const NO_CACHE_SURCHARGE = { '5m': 1, '1h': 1 } as const;

/** Input price × factor, rounded up to the micro-USD (a write never costs less than the vendor's rate). */
function scaled(inputMicro: number, factor: number): number {
  return Math.ceil(inputMicro * factor - 1e-9);
}

const NO_OVERRIDES: CatalogOverrides = { models: {}, addedChatModels: [], addedMediaModels: [] };

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function noMeasurements(modelId: string, variant: string | undefined): FamilyContext {
  return { modelId, variant, measured: new Measurements() };
}

function mediaEntry(def: MediaModelDef): MediaEntry {
  const family = FAMILIES[def.family];
  const { fields, ignored } = effectiveFields(family, def.variant);
  const table = buildPriceTable(def.id, family, fields, def.tariff, defaultInput(fields), noMeasurements(def.id, def.variant));
  return {
    info: { id: def.id, family: def.family, type: family.type, group: def.group, name: def.name, vendor: def.vendor },
    def,
    family,
    variant: def.variant,
    fields,
    ignored,
    table,
    description: def.description,
    hidden: false,
    params: withRequiredWhen(withFieldsByValue(fields.map(toParamField), family), family),
    capabilities: deriveCapabilities(fields, ignored),
    schema: inputJsonSchema(def.id, fields),
  };
}

/** Publishes a family's choice-decides-fields table on the deciding param, for this model's options and fields. */
function withFieldsByValue(params: ParamField[], family: FamilyDef): ParamField[] {
  const decides = family.fieldsByChoice;
  const param = decides ? params.find((p) => p.name === decides.field) : undefined;
  if (!decides || !param) return params;
  const names = new Set(params.map((p) => p.name));
  const values = param.options?.map((o) => String(o.value)) ?? Object.keys(decides.fields);
  param.fieldsByValue = Object.fromEntries(values.map((v) => [v, (decides.fields[v] ?? []).filter((n) => names.has(n))]));
  return params;
}

/** Publishes each of the family's mode- and action-dependent requirements on the param it names. */
function withRequiredWhen(params: ParamField[], family: FamilyDef): ParamField[] {
  for (const { field, ...requirement } of family.requiredWhen ?? []) {
    const param = params.find((p) => p.name === field);
    if (!param) continue;
    param.requiredWhen = [...(param.requiredWhen ?? []), { ...requirement, when: { ...requirement.when }, ...(requirement.orFields ? { orFields: [...requirement.orFields] } : {}),
      ...(requirement.alternatives ? { alternatives: requirement.alternatives.map((set) => [...set]) } : {}),
    }];
  }
  return params;
}

function longContextOf(seed: NonNullable<ChatModelSeed['longContext']>): NonNullable<ChatModelDefinition['longContext']> {
  if (seed.prices === undefined) return { aboveTokens: seed.above };
  return {
    aboveTokens: seed.above,
    prices: { inputMicroPerMillion: usdToMicro(seed.prices.input), outputMicroPerMillion: usdToMicro(seed.prices.output), cachedInputMicroPerMillion: usdToMicro(seed.prices.cachedInput) },
  };
}

function chatEntry(seed: (typeof CHAT_MODELS)[number]): ChatEntry {
  const input = usdToMicro(seed.input);
  const factor = seed.cacheWrite ?? NO_CACHE_SURCHARGE;
  return {
    hidden: false,
    cacheWriteFactor: { ...factor },
    def: {
      id: seed.id,
      name: seed.name,
      vendor: seed.vendor,
      group: seed.group,
      description: seed.description,
      inputMicroPerMillion: input,
      outputMicroPerMillion: usdToMicro(seed.output),
      cachedInputMicroPerMillion: seed.cachedInput === undefined ? input : usdToMicro(seed.cachedInput),
      cacheWriteMicroPerMillion: scaled(input, factor['5m']),
      cacheWrite1hMicroPerMillion: scaled(input, factor['1h']),
      ...(seed.webSearchPer1k === undefined ? {} : { webSearchMicroPerCall: usdToMicro(seed.webSearchPer1k) / 1000 }),
      ...(seed.priority === undefined
        ? {}
        : {
            priority: {
              inputMicroPerMillion: usdToMicro(seed.priority.input),
              outputMicroPerMillion: usdToMicro(seed.priority.output),
              cachedInputMicroPerMillion: usdToMicro(seed.priority.cachedInput),
            },
          }),
      ...(seed.longContext === undefined ? {} : { longContext: longContextOf(seed.longContext) }),
      protocols: [...seed.protocols],
      contextWindow: seed.contextWindow,
      maxOutputTokens: seed.maxOutputTokens,
      capabilities: [...seed.capabilities],
      tags: [...seed.tags],
      ...(seed.sampling === undefined ? {} : { sampling: seed.sampling }),
    },
  };
}

/**
 * A text model's prices as catalog tiers, USD per million (priceUnit megatoken): tokens, cache
 * writes by lifetime, priority processing when offered, and web searches per million searches.
 */
function chatPriceTiers(def: ChatModelDefinition): PriceTier[] {
  const tier = (key: string, micro: number): PriceTier => ({ key, price: microToUsd(micro), isDefault: key === 'input' });
  const tiers = [
    tier('input', def.inputMicroPerMillion),
    tier('output', def.outputMicroPerMillion),
    tier('cached_input', def.cachedInputMicroPerMillion),
    tier('cache_write', def.cacheWriteMicroPerMillion),
    tier('cache_write_1h', def.cacheWrite1hMicroPerMillion),
  ];
  if (def.priority) {
    tiers.push(tier('priority_input', def.priority.inputMicroPerMillion), tier('priority_output', def.priority.outputMicroPerMillion), tier('priority_cached_input', def.priority.cachedInputMicroPerMillion));
  }
  if (def.webSearchMicroPerCall !== undefined) tiers.push(tier('web_search', def.webSearchMicroPerCall * 1_000_000));
  // Long-context tiers name their threshold: the whole request costs them above that many prompt tokens.
  const long = def.longContext;
  if (long?.prices) {
    const dimensions = { promptTokensAbove: String(long.aboveTokens) };
    const longTier = (key: string, micro: number): PriceTier => ({ ...tier(key, micro), dimensions });
    tiers.push(longTier('long_context_input', long.prices.inputMicroPerMillion), longTier('long_context_output', long.prices.outputMicroPerMillion), longTier('long_context_cached_input', long.prices.cachedInputMicroPerMillion));
  }
  return tiers;
}

/**
 * The cache-write and web-search prices of an override or an added text model (USD per 1M tokens;
 * searches USD per 1,000, a whole micro-USD per search). A configured cache-write price also makes
 * that lifetime's marks billable on a model that had none.
 */
function applyOptionPrices(def: ChatModelDefinition, o: { cacheWritePrice?: string | undefined; cacheWrite1hPrice?: string | undefined; webSearchPrice?: string | undefined }, field: string): void {
  const allow = (lifetime: '5m' | '1h'): void => {
    if (def.cacheWriteLifetimes && !def.cacheWriteLifetimes.includes(lifetime)) def.cacheWriteLifetimes.push(lifetime);
  };
  if (o.cacheWritePrice !== undefined) {
    def.cacheWriteMicroPerMillion = configPrice(`${field}.cacheWritePrice`, o.cacheWritePrice);
    allow('5m');
  }
  if (o.cacheWrite1hPrice !== undefined) {
    def.cacheWrite1hMicroPerMillion = configPrice(`${field}.cacheWrite1hPrice`, o.cacheWrite1hPrice);
    allow('1h');
  }
  if (o.webSearchPrice !== undefined) {
    const per1k = configPrice(`${field}.webSearchPrice`, o.webSearchPrice);
    if (per1k % 1000 !== 0) throw new ConfigError(`${field}.webSearchPrice`, `is USD per 1,000 searches and must come to a whole micro-USD per search (a multiple of 0.001), got ${JSON.stringify(o.webSearchPrice)}`);
    def.webSearchMicroPerCall = per1k / 1000;
  }
}

function configPrice(field: string, usd: string): number {
  try {
    return usdToMicro(usd);
  } catch {
    throw new ConfigError(field, `must be a USD amount with at most 6 decimals, got ${JSON.stringify(usd)}`);
  }
}

export class Catalog {
  private readonly mediaById = new Map<string, MediaEntry>();
  private readonly chatById = new Map<string, ChatEntry>();
  /** Embedding models: listed by GET /api/v1/models and served by POST /api/v1/embeddings, not in the media/chat catalog. */
  private readonly embeddingById = new Map<string, EmbeddingModelDefinition>();
  private readonly published = new Map<string, CatalogModel>();

  private constructor() {}

  /** Builds the catalog with the operator's overrides; throws ConfigError on a bad override. */
  static build(overrides: CatalogOverrides = NO_OVERRIDES): Catalog {
    const catalog = new Catalog();
    for (const def of MEDIA_MODELS) catalog.mediaById.set(def.id, mediaEntry(def));
    for (const seed of CHAT_MODELS) catalog.chatById.set(seed.id, chatEntry(seed));
    for (const def of builtInEmbeddingModels()) catalog.embeddingById.set(def.id, def);
    const builtIn = new Set([...catalog.mediaById.keys(), ...catalog.chatById.keys()]);
    for (const [id, o] of Object.entries(overrides.models)) {
      const embedding = catalog.embeddingById.get(id);
      if (embedding) applyEmbeddingOverride(embedding, o, `models.${id}`);
      else if (builtIn.has(id)) catalog.override(id, o);
    }
    for (const [i, m] of overrides.addedChatModels.entries()) catalog.addChat(m, i);
    for (const [i, m] of overrides.addedMediaModels.entries()) catalog.addMedia(m, i);
    for (const [id, o] of Object.entries(overrides.models)) {
      if (builtIn.has(id) || catalog.embeddingById.has(id)) continue;
      if (!catalog.mediaById.has(id) && !catalog.chatById.has(id)) {
        throw new ConfigError(`models.${id}`, 'is not a model of the catalog (built-in ids are listed by GET /api/v1/catalog; add new ones under chatModels or mediaModels)');
      }
      catalog.override(id, o);
    }
    catalog.publish();
    return catalog;
  }

  private override(id: string, o: ModelOverride): void {
    const field = `models.${id}`;
    const media = this.mediaById.get(id);
    if (media) {
      for (const key of ['inputPrice', 'outputPrice', 'cachedInputPrice', 'cacheWritePrice', 'cacheWrite1hPrice', 'webSearchPrice'] as const) {
        if (o[key] !== undefined) throw new ConfigError(`${field}.${key}`, 'applies to text models only; media models take pricing tiers');
      }
      if (o.hidden !== undefined) media.hidden = o.hidden;
      if (o.name !== undefined) media.info = { ...media.info, name: o.name };
      if (o.description !== undefined) media.description = o.description;
      if (o.pricing !== undefined) media.table = applyPricingOverride(media.table, o.pricing, `${field}.pricing`);
      return;
    }
    const chat = this.chatById.get(id);
    if (!chat) throw new ConfigError(field, 'is not a model of the catalog');
    if (o.pricing !== undefined) throw new ConfigError(`${field}.pricing`, 'applies to media models only; text models take inputPrice, outputPrice and cachedInputPrice');
    if (o.hidden !== undefined) chat.hidden = o.hidden;
    if (o.name !== undefined) chat.def.name = o.name;
    if (o.description !== undefined) chat.def.description = o.description;
    const hadOwnCached = chat.def.cachedInputMicroPerMillion !== chat.def.inputMicroPerMillion;
    if (o.inputPrice !== undefined) {
      chat.def.inputMicroPerMillion = configPrice(`${field}.inputPrice`, o.inputPrice);
      if (!hadOwnCached) chat.def.cachedInputMicroPerMillion = chat.def.inputMicroPerMillion;
      // Cache writes are published as multiples of the input price: they follow it.
      chat.def.cacheWriteMicroPerMillion = scaled(chat.def.inputMicroPerMillion, chat.cacheWriteFactor['5m']);
      chat.def.cacheWrite1hMicroPerMillion = scaled(chat.def.inputMicroPerMillion, chat.cacheWriteFactor['1h']);
    }
    if (o.outputPrice !== undefined) chat.def.outputMicroPerMillion = configPrice(`${field}.outputPrice`, o.outputPrice);
    if (o.cachedInputPrice !== undefined) chat.def.cachedInputMicroPerMillion = configPrice(`${field}.cachedInputPrice`, o.cachedInputPrice);
    applyOptionPrices(chat.def, o, field);
  }

  private assertNewId(id: string, field: string): void {
    if (!/^[a-z0-9][a-z0-9._-]{0,99}$/i.test(id)) throw new ConfigError(field, `must be 1 to 100 letters, digits, '.', '_' or '-', got ${JSON.stringify(id)}`);
    if (this.mediaById.has(id) || this.chatById.has(id) || this.embeddingById.has(id)) throw new ConfigError(field, `${JSON.stringify(id)} is already a model id`);
  }

  private addChat(m: AddedChatModel, i: number): void {
    const field = `chatModels[${i}]`;
    this.assertNewId(m.id, `${field}.id`);
    if (m.protocols.length === 0) throw new ConfigError(`${field}.protocols`, 'must name at least one protocol (openai, anthropic)');
    const input = configPrice(`${field}.inputPrice`, m.inputPrice);
    this.chatById.set(m.id, {
      hidden: false,
      cacheWriteFactor: { ...NO_CACHE_SURCHARGE },
      def: {
        id: m.id,
        name: m.name,
        vendor: m.vendor ?? 'custom',
        group: m.id,
        inputMicroPerMillion: input,
        outputMicroPerMillion: configPrice(`${field}.outputPrice`, m.outputPrice),
        cachedInputMicroPerMillion: m.cachedInputPrice === undefined ? input : configPrice(`${field}.cachedInputPrice`, m.cachedInputPrice),
        cacheWriteMicroPerMillion: input,
        cacheWrite1hMicroPerMillion: input,
        // Only what the configuration prices: an unpriced write would cost the operator what nobody is charged.
        cacheWriteLifetimes: [],
        protocols: [...m.protocols],
        contextWindow: m.contextWindow,
        maxOutputTokens: m.maxOutputTokens,
        capabilities: ['streaming'],
        tags: ['text', 'custom'],
      },
    });
    applyOptionPrices((this.chatById.get(m.id) as ChatEntry).def, m, field);
  }

  private addMedia(m: AddedMediaModel, i: number): void {
    const field = `mediaModels[${i}]`;
    this.assertNewId(m.id, `${field}.id`);
    const base = this.mediaById.get(m.basedOn);
    if (!base) throw new ConfigError(`${field}.basedOn`, `${JSON.stringify(m.basedOn)} is not a media model`);
    const def: MediaModelDef = { ...base.def, id: m.id, name: m.name, vendor: m.vendor ?? base.info.vendor };
    const entry = mediaEntry(def);
    entry.description = base.description;
    entry.table = m.pricing ? applyPricingOverride(entry.table, m.pricing, `${field}.pricing`) : { ...base.table, cells: base.table.cells.map((c) => ({ ...c })) };
    this.mediaById.set(m.id, entry);
  }

  private publish(): void {
    for (const e of this.mediaById.values()) {
      const tiers = publishTiers(e.table);
      this.published.set(
        e.info.id,
        deepFreeze({
          id: e.info.id,
          group: e.info.group,
          name: e.info.name,
          description: e.description,
          type: e.info.type,
          kind: 'media',
          vendor: e.info.vendor,
          tags: [...e.def.tags],
          capabilities: [...e.capabilities],
          pricing: tiers,
          priceFrom: microToUsd(defaultCell(e.table).micro),
          priceUnit: e.table.unit,
          params: structuredClone(e.params),
        }),
      );
    }
    for (const { def } of this.chatById.values()) {
      this.published.set(
        def.id,
        deepFreeze({
          id: def.id,
          group: def.group,
          name: def.name,
          ...(def.description !== undefined ? { description: def.description } : {}),
          type: 'TEXT',
          kind: 'llm',
          vendor: def.vendor,
          tags: [...def.tags],
          capabilities: [...def.capabilities],
          pricing: chatPriceTiers(def),
          priceFrom: microToUsd(def.inputMicroPerMillion),
          priceUnit: 'megatoken',
          params: [],
          protocols: [...def.protocols],
        }),
      );
      deepFreeze(def);
    }
  }

  /** Visible models: media first (catalog order), then text. */
  list(): CatalogModel[] {
    const out: CatalogModel[] = [];
    for (const e of this.mediaById.values()) if (!e.hidden) out.push(this.published.get(e.info.id) as CatalogModel);
    for (const e of this.chatById.values()) if (!e.hidden) out.push(this.published.get(e.def.id) as CatalogModel);
    return out;
  }

  /** A visible model. */
  get(id: string): CatalogModel | undefined {
    const media = this.mediaById.get(id);
    const chat = this.chatById.get(id);
    if ((media && !media.hidden) || (chat && !chat.hidden)) return this.published.get(id);
    return undefined;
  }

  /** A visible media model. */
  media(id: string): MediaModelInfo | undefined {
    const e = this.mediaById.get(id);
    return e && !e.hidden ? { ...e.info } : undefined;
  }

  /** A visible text model. */
  chat(id: string): ChatModelDefinition | undefined {
    const e = this.chatById.get(id);
    return e && !e.hidden ? e.def : undefined;
  }

  /** A visible embedding model. */
  embedding(id: string): Readonly<EmbeddingModelDefinition> | undefined {
    const e = this.embeddingById.get(id);
    return e && !e.hidden ? e : undefined;
  }

  embeddingModels(): Array<Readonly<EmbeddingModelDefinition>> {
    return [...this.embeddingById.values()].filter((e) => !e.hidden);
  }

  mediaModels(): MediaModelInfo[] {
    return [...this.mediaById.values()].filter((e) => !e.hidden).map((e) => ({ ...e.info }));
  }

  chatModels(): ChatModelDefinition[] {
    return [...this.chatById.values()].filter((e) => !e.hidden).map((e) => e.def);
  }

  /** Validates `input` for a visible media model; returns it with defaults applied. */
  validate(modelId: string, input: unknown): ValidatedInput {
    const e = this.mediaById.get(modelId);
    if (!e || e.hidden) {
      const chat = this.chatById.get(modelId);
      const why = chat && !chat.hidden ? 'is a text model (use /api/v1/chat/completions)' : 'is not a media model of this catalog (see GET /api/v1/catalog)';
      throw invalidInput(`model ${describeValue(modelId)} ${why}`, 'model');
    }
    const { value, given } = validateObject(e.fields, input, 'input');
    const ctx: RuleContext = { input: value, given, modelId, variant: e.variant };
    for (const rule of e.family.rules ?? []) rule(ctx);
    e.family.normalize?.(ctx);
    if (e.ignored.size === 0) return value;
    return Object.fromEntries(Object.entries(value).filter(([k]) => !e.ignored.has(k)));
  }

  /** User URLs to fetch and measure before pricing (lengths that are bounded or billed). */
  probeRequests(modelId: string, input: ValidatedInput): ProbeRequest[] {
    return this.entry(modelId).family.probes?.(input) ?? [];
  }

  /** Refuses measured media outside the family's bounds (format, size, durations). */
  checkMeasured(modelId: string, input: ValidatedInput, measured: MeasuredMedia[]): void {
    const e = this.entry(modelId);
    const index = new Measurements(measured);
    for (const p of this.probeRequests(modelId, input)) {
      const m = index.find(p.url);
      if (!m) throw new Error(`no measurement for input.${p.field} (${p.url})`);
      const path = `input.${p.field}`;
      if (p.formats.length > 0 && (m.format === undefined || !p.formats.includes(m.format.toLowerCase()))) {
        throw invalidInput(`${path} must be ${p.formats.join(', ')} (detected ${m.format ?? 'an unknown format'})`, path);
      }
      if (m.bytes > p.maxBytes) throw invalidInput(`${path} must be at most ${p.maxBytes / (1024 * 1024)} MB (got ${(m.bytes / (1024 * 1024)).toFixed(1)} MB)`, path);
      if (p.kind !== 'image' && (m.durationS === undefined || !Number.isFinite(m.durationS) || m.durationS <= 0)) {
        throw invalidInput(`${path}: the duration of the ${p.kind} could not be read`, path);
      }
    }
    e.family.checkMeasured?.(input, index);
  }

  /** The exact charge; `measured` is required when probeRequests listed URLs whose seconds are billed. */
  price(modelId: string, input: ValidatedInput, measured: MeasuredMedia[] = []): PriceQuote {
    const e = this.entry(modelId);
    return quote(e.family, e.table, input, { modelId, variant: e.variant, measured: new Measurements(measured) });
  }

  inputSchema(modelId: string): Record<string, unknown> {
    return structuredClone(this.entry(modelId).schema);
  }

  /** What a real generation produces (for the offline `local` provider). */
  outputSpec(modelId: string, input: ValidatedInput, measured: MeasuredMedia[] = []): OutputSpec {
    const e = this.entry(modelId);
    return e.family.output(input, { modelId, variant: e.variant, measured: new Measurements(measured) });
  }

  /** Ids of earlier tasks the input names (parentTaskId, sourceTaskId(s), extendFromTaskId), in field order. */
  taskReferences(modelId: string, input: ValidatedInput): string[] {
    const out: string[] = [];
    for (const f of this.entry(modelId).fields) {
      const v = input[f.name];
      if (f.type === 'string' && f.taskRef && typeof v === 'string') out.push(v);
      if (f.type === 'array' && f.items.type === 'string' && f.items.taskRef && Array.isArray(v)) {
        for (const x of v) if (typeof x === 'string') out.push(x);
      }
    }
    return [...new Set(out)];
  }

  /** Any media model, hidden ones included (tasks created before an operator hid the model). */
  private entry(modelId: string): MediaEntry {
    const e = this.mediaById.get(modelId);
    if (!e) throw new AppError('invalid_input', `model ${describeValue(modelId)} is not a media model of this catalog`, { param: 'model' });
    return e;
  }
}
