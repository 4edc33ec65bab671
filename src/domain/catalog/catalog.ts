/**
 * The catalog: built-in media and text models, with operator overrides (prices, names, hiding) and
 * added models. Validation, prices, probing and output specs of a media model all come from its family
 * declaration (families/), so they cannot disagree. How one model is held, overridden and published is
 * in entries/.
 *
 * Live changes: a new catalog is built from the new overrides (Catalog.build throws ConfigError on a
 * bad one, so a candidate is checked before anything changes) and the running instance, which every
 * service holds, `adopt`s it. What a request priced stays its own: a chat model definition is frozen
 * and never changed, a media task stores its cost, and `snapshot()` pins one version for a request
 * that reads the catalog across an await.
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

/**
 * Everything one version of the catalog serves. Never changed once published: `adopt` replaces the
 * whole of it with one assignment, so a reader sees the old version or the new one, never a mix.
 */
interface CatalogState {
  readonly mediaById: Map<string, MediaEntry>;
  readonly chatById: Map<string, ChatEntry>;
  /** Embedding models: listed by GET /api/v1/models and served by POST /api/v1/embeddings, not in the media/chat catalog. */
  readonly embeddingById: Map<string, EmbeddingModelDefinition>;
  readonly published: Map<string, CatalogModel>;
}

export class Catalog {
  private state: CatalogState = { mediaById: new Map(), chatById: new Map(), embeddingById: new Map(), published: new Map() };
  #version = 0;

  private constructor() {}

  /**
   * Builds the catalog with the operator's overrides; throws ConfigError on a bad override (before
   * any running catalog is touched: validate a live change by building it, then `adopt` the result).
   */
  static build(overrides: CatalogOverrides = NO_OVERRIDES): Catalog {
    const catalog = new Catalog();
    const { mediaById, chatById, embeddingById } = catalog.state;
    for (const def of MEDIA_MODELS) mediaById.set(def.id, mediaEntry(def));
    for (const seed of CHAT_MODELS) chatById.set(seed.id, chatEntry(seed));
    for (const def of builtInEmbeddingModels()) embeddingById.set(def.id, def);
    const builtIn = new Set([...mediaById.keys(), ...chatById.keys()]);
    for (const [id, o] of Object.entries(overrides.models)) {
      const embedding = embeddingById.get(id);
      if (embedding) applyEmbeddingOverride(embedding, o, `models.${id}`);
      else if (builtIn.has(id)) catalog.override(id, o);
    }
    for (const [i, m] of overrides.addedChatModels.entries()) catalog.addChat(m, i);
    for (const [i, m] of overrides.addedMediaModels.entries()) catalog.addMedia(m, i);
    for (const [id, o] of Object.entries(overrides.models)) {
      if (builtIn.has(id) || embeddingById.has(id)) continue;
      if (!mediaById.has(id) && !chatById.has(id)) {
        throw new ConfigError(`models.${id}`, 'is not a model of the catalog (built-in ids are listed by GET /api/v1/catalog; add new ones under chatModels or mediaModels)');
      }
      catalog.override(id, o);
    }
    catalog.publish();
    return catalog;
  }

  /**
   * Serves from now on exactly what `next` serves (models, prices, visibility), for every holder of
   * this instance at once; synchronous, so no request sees half of a change. A request that already
   * holds a model definition, a quote or a snapshot keeps it.
   */
  adopt(next: Catalog): void {
    if (next === this) return;
    this.state = next.state;
    this.#version++;
  }

  /** Starts at 0 and goes up by one at each `adopt`: what a cache of catalog answers keys on. */
  get version(): number {
    return this.#version;
  }

  /**
   * This version of the catalog, unaffected by a later `adopt` of this instance: for a request that
   * validates, awaits (a measurement) and then prices, so it is priced by the version it was validated by.
   */
  snapshot(): Catalog {
    const pinned = new Catalog();
    pinned.state = this.state;
    pinned.#version = this.#version;
    return pinned;
  }

  private override(id: string, o: ModelOverride): void {
    const field = `models.${id}`;
    const media = this.state.mediaById.get(id);
    const chat = this.state.chatById.get(id);
    if (media) applyMediaOverride(media, o, field);
    else if (chat) applyChatOverride(chat, o, field);
    else throw new ConfigError(field, 'is not a model of the catalog');
  }

  private assertNewId(id: string, field: string): void {
    if (!/^[a-z0-9][a-z0-9._-]{0,99}$/i.test(id)) throw new ConfigError(field, `must be 1 to 100 letters, digits, '.', '_' or '-', got ${JSON.stringify(id)}`);
    if (this.state.mediaById.has(id) || this.state.chatById.has(id) || this.state.embeddingById.has(id)) throw new ConfigError(field, `${JSON.stringify(id)} is already a model id`);
  }

  private addChat(m: AddedChatModel, i: number): void {
    const field = `chatModels[${i}]`;
    this.assertNewId(m.id, `${field}.id`);
    this.state.chatById.set(m.id, addedChatEntry(m, field));
  }

  private addMedia(m: AddedMediaModel, i: number): void {
    const field = `mediaModels[${i}]`;
    this.assertNewId(m.id, `${field}.id`);
    const base = this.state.mediaById.get(m.basedOn);
    if (!base) throw new ConfigError(`${field}.basedOn`, `${JSON.stringify(m.basedOn)} is not a media model`);
    this.state.mediaById.set(m.id, addedMediaEntry(m, base, field));
  }

  private publish(): void {
    for (const e of this.state.mediaById.values()) this.state.published.set(e.info.id, publishedMediaModel(e));
    for (const { def } of this.state.chatById.values()) {
      this.state.published.set(def.id, publishedChatModel(def));
      deepFreeze(def);
    }
    // An embedding request holds its definition from hold to settlement: no later build may change it.
    for (const def of this.state.embeddingById.values()) deepFreeze(def);
  }

  /** Visible models: media first (catalog order), then text. */
  list(): CatalogModel[] {
    const out: CatalogModel[] = [];
    for (const e of this.state.mediaById.values()) if (!e.hidden) out.push(this.state.published.get(e.info.id) as CatalogModel);
    for (const e of this.state.chatById.values()) if (!e.hidden) out.push(this.state.published.get(e.def.id) as CatalogModel);
    return out;
  }

  /** A visible model. */
  get(id: string): CatalogModel | undefined {
    const media = this.state.mediaById.get(id);
    const chat = this.state.chatById.get(id);
    if ((media && !media.hidden) || (chat && !chat.hidden)) return this.state.published.get(id);
    return undefined;
  }

  /** A visible media model. */
  media(id: string): MediaModelInfo | undefined {
    const e = this.state.mediaById.get(id);
    return e && !e.hidden ? { ...e.info } : undefined;
  }

  /** A visible text model. */
  chat(id: string): ChatModelDefinition | undefined {
    const e = this.state.chatById.get(id);
    return e && !e.hidden ? e.def : undefined;
  }

  /** A visible embedding model. */
  embedding(id: string): Readonly<EmbeddingModelDefinition> | undefined {
    const e = this.state.embeddingById.get(id);
    return e && !e.hidden ? e : undefined;
  }

  embeddingModels(): Array<Readonly<EmbeddingModelDefinition>> {
    return [...this.state.embeddingById.values()].filter((e) => !e.hidden);
  }

  mediaModels(): MediaModelInfo[] {
    return [...this.state.mediaById.values()].filter((e) => !e.hidden).map((e) => ({ ...e.info }));
  }

  chatModels(): ChatModelDefinition[] {
    return [...this.state.chatById.values()].filter((e) => !e.hidden).map((e) => e.def);
  }

  /** Validates `input` for a visible media model; returns it with defaults applied. */
  validate(modelId: string, input: unknown): ValidatedInput {
    const e = this.state.mediaById.get(modelId);
    if (!e || e.hidden) {
      const chat = this.state.chatById.get(modelId);
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
    const e = this.state.mediaById.get(modelId);
    if (!e) throw new AppError('invalid_input', `model ${describeValue(modelId)} is not a media model of this catalog`, { param: 'model' });
    return e;
  }
}
