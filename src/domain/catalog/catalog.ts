/**
 * The catalog: built-in media and text models, with operator overrides (prices, names, hiding) and
 * added models applied once at start. Validation, prices, probing and output specs of a media model
 * all come from its family declaration (families/), so they cannot disagree. How one model is held,
 * overridden and published is in entries/.
 */
import { ConfigError } from '../config-error.ts';
import type { AddedChatModel, AddedMediaModel, ModelOverride } from './catalog-overrides.ts';
import { AppError, invalidInput } from '../errors.ts';
import type { CatalogModel, ChatModelDefinition, MeasuredMedia, MediaModelInfo, OutputSpec, PriceQuote, ProbeRequest, ValidatedInput } from './catalog.types.ts';
import { Measurements } from './dsl/family.ts';
import type { RuleContext } from './dsl/rules.ts';
import { describeValue, validateObject } from './dsl/validate.ts';
import { addedChatEntry, applyChatOverride, type ChatEntry, chatEntry } from './entries/chat-entry.ts';
import { addedMediaEntry, applyMediaOverride, type MediaEntry, mediaEntry } from './entries/media-entry.ts';
import { deepFreeze, publishedChatModel, publishedMediaModel } from './entries/published-model.ts';
import { CHAT_MODELS } from './models/chat-models.ts';
import { applyEmbeddingOverride, builtInEmbeddingModels, type EmbeddingModelDefinition } from './models/embedding-models.ts';
import { MEDIA_MODELS } from './models/media-models.ts';
import { quote } from './pricing/price-table.ts';

export interface CatalogOverrides {
  models: Record<string, ModelOverride>;
  addedChatModels: AddedChatModel[];
  addedMediaModels: AddedMediaModel[];
}

const NO_OVERRIDES: CatalogOverrides = { models: {}, addedChatModels: [], addedMediaModels: [] };

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
    const chat = this.chatById.get(id);
    if (media) applyMediaOverride(media, o, field);
    else if (chat) applyChatOverride(chat, o, field);
    else throw new ConfigError(field, 'is not a model of the catalog');
  }

  private assertNewId(id: string, field: string): void {
    if (!/^[a-z0-9][a-z0-9._-]{0,99}$/i.test(id)) throw new ConfigError(field, `must be 1 to 100 letters, digits, '.', '_' or '-', got ${JSON.stringify(id)}`);
    if (this.mediaById.has(id) || this.chatById.has(id) || this.embeddingById.has(id)) throw new ConfigError(field, `${JSON.stringify(id)} is already a model id`);
  }

  private addChat(m: AddedChatModel, i: number): void {
    const field = `chatModels[${i}]`;
    this.assertNewId(m.id, `${field}.id`);
    this.chatById.set(m.id, addedChatEntry(m, field));
  }

  private addMedia(m: AddedMediaModel, i: number): void {
    const field = `mediaModels[${i}]`;
    this.assertNewId(m.id, `${field}.id`);
    const base = this.mediaById.get(m.basedOn);
    if (!base) throw new ConfigError(`${field}.basedOn`, `${JSON.stringify(m.basedOn)} is not a media model`);
    this.mediaById.set(m.id, addedMediaEntry(m, base, field));
  }

  private publish(): void {
    for (const e of this.mediaById.values()) this.published.set(e.info.id, publishedMediaModel(e));
    for (const { def } of this.chatById.values()) {
      this.published.set(def.id, publishedChatModel(def));
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
