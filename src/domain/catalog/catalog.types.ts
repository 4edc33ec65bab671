/**
 * The public shapes of the catalog (SPEC.md "Catalog model") and the internal definitions behind
 * them. One declaration per input family drives validation, the `params` list, `capabilities` and
 * the JSON Schema used in OpenAPI.
 */
import type { PublishedRequirement } from './dsl/required-when.ts';

export type ModelType = 'TEXT' | 'MUSIC' | 'IMAGE' | 'VIDEO';
export type ModelKind = 'media' | 'llm';
export type PriceUnit = 'generation' | 'second' | 'megatoken';
export type ChatProtocol = 'openai' | 'anthropic';

export type FamilyId =
  | 'V1' | 'V2' | 'V3' | 'V4' | 'V5' | 'V6' | 'V7' | 'V8' | 'V9' | 'V10' | 'V11' | 'V12' | 'V13'
  | 'I1' | 'I2' | 'I3' | 'I4' | 'I5' | 'I6' | 'I7' | 'I8'
  | 'M1';

export interface ParamOption {
  value: string | number;
  label: string;
}

/** One input field as the catalog publishes it (SPEC.md "Param field"). */
export interface ParamField {
  name: string;
  label: string;
  description?: string;
  kind: 'string' | 'number' | 'boolean';
  isArray: boolean;
  required: boolean;
  default?: string | number | boolean | Array<string | number | boolean> | null;
  options?: ParamOption[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
  isMedia: boolean;
  isPrompt: boolean;
  multiline: boolean;
  deprecated: boolean;
  /** Arrays: fewest and most items accepted (an addition to SPEC's members, for forms). */
  minItems?: number;
  maxItems?: number;
  /** With `isMedia`: what the URL (or URLs) must hold. */
  mediaKind?: MediaKind;
  /** Holds the id of an earlier task (parentTaskId, sourceTaskId(s), extendFromTaskId). */
  isTaskReference?: boolean;
  /**
   * Objects and arrays of objects (imageWithRoles, tools, customModel): their members. SPEC's `kind`
   * has no object value, so such fields are published with kind `string` and described here.
   */
  fields?: ParamField[];
  /**
   * A choice that decides which other fields apply (M1's `action`): for each of its values, the names
   * of the fields that value uses. Fields not listed for the chosen value are refused, so a form
   * shows only those. Absent on fields that decide nothing.
   */
  fieldsByValue?: Record<string, string[]>;
  /**
   * When the field is required besides `required` (always): each entry names the values of other
   * fields (defaults count) under which it is, other fields that would do instead, and why in words.
   */
  requiredWhen?: PublishedRequirement[];
}

export interface PriceTier {
  key: string;
  /** USD for one unit of the model's priceUnit, as a decimal string. */
  price: string;
  isDefault: boolean;
  dimensions?: Record<string, string>;
}

/** A model as GET /api/v1/catalog returns it. */
export interface CatalogModel {
  id: string;
  group: string;
  name: string;
  description?: string;
  type: ModelType;
  kind: ModelKind;
  vendor?: string;
  tags: string[];
  capabilities: string[];
  pricing: PriceTier[];
  priceFrom?: string;
  priceUnit: PriceUnit;
  params: ParamField[];
  protocols?: ChatProtocol[];
}

/** The input after validation: defaults applied, nothing unknown. */
export type ValidatedInput = Record<string, unknown>;

export type MediaKind = 'image' | 'video' | 'audio';

/**
 * A user URL whose length the price or the rules depend on (V6, V7, V9, V12). The caller fetches it
 * through the guarded client, measures it and passes the result back to `price`/`checkMeasured`.
 */
export interface ProbeRequest {
  /** Field path as the user wrote it, e.g. `videoUrls[1]`. */
  field: string;
  url: string;
  kind: MediaKind;
  /** Largest download accepted for this field, in bytes. */
  maxBytes: number;
  /** Container formats accepted, lower-case (mp4, mov, jpeg, png, mp3, wav, …); empty means any of the kind. */
  formats: string[];
}

export interface MeasuredMedia {
  url: string;
  /** Seconds, for video and audio. */
  durationS?: number;
  /** Lower-case container format as detected from the bytes. */
  format?: string;
  bytes: number;
}

/** How a price was reached: shown by /generation/{id} and useful in tests. */
export interface PriceQuote {
  costMicro: number;
  /** The tier (or matrix cell) used. */
  tierKey: string;
  unit: PriceUnit;
  /** How many units were billed (seconds, or generations × batch size). */
  units: number;
  /** Price of one unit, micro-USD. */
  unitPriceMicro: number;
}

export type SamplingField = 'temperature' | 'top_p' | 'top_k';

export interface SamplingRules {
  /** Refused at any value but the documented default. */
  readonly refused?: readonly SamplingField[];
  /** Refused together: the model takes one of the two. */
  readonly exclusive?: readonly [SamplingField, SamplingField];
  /** Extended thinking with a budget (`thinking.type: "enabled"`) is refused; only adaptive thinking. */
  readonly budgetThinkingRefused?: boolean;
}

export interface ChatModelDefinition {
  id: string;
  name: string;
  vendor: string;
  group: string;
  description?: string;
  inputMicroPerMillion: number;
  outputMicroPerMillion: number;
  /** Price of cached prompt tokens; defaults to the input price when a vendor publishes none. */
  cachedInputMicroPerMillion: number;
  /** Cache writes with the default (5-minute) lifetime; the input price where the vendor charges no surcharge. */
  cacheWriteMicroPerMillion: number;
  /** Cache writes with a one-hour lifetime (Anthropic `cache_control.ttl: "1h"`). */
  cacheWrite1hMicroPerMillion: number;
  /**
   * The cache-mark lifetimes with a published write price; absent: both. An operator-added model
   * has those its configuration prices; a cache mark of another lifetime is refused.
   */
  cacheWriteLifetimes?: Array<'5m' | '1h'>;
  /** One server-side web search (Anthropic's web search tool); absent: not offered. */
  webSearchMicroPerCall?: number;
  /** Token prices of priority processing (OpenAI `service_tier: "priority"`); absent: not offered. */
  priority?: { inputMicroPerMillion: number; outputMicroPerMillion: number; cachedInputMicroPerMillion: number };
  /**
   * Long prompts priced apart: above `aboveTokens` prompt tokens (cache reads and writes included) the
   * whole request costs `prices`; without `prices` the vendor's tier is not published and a prompt
   * that may be that long is refused before the hold. Absent: every prompt costs the same.
   */
  longContext?: { aboveTokens: number; prices?: { inputMicroPerMillion: number; outputMicroPerMillion: number; cachedInputMicroPerMillion: number } };
  protocols: ChatProtocol[];
  contextWindow: number;
  maxOutputTokens: number;
  /** Capabilities published in the catalog: tools, vision, json_schema, streaming. */
  capabilities: string[];
  tags: string[];
  /** Sampling fields the model refuses (src/domain/chat/sampling-rules.ts); absent: it takes them all. */
  sampling?: SamplingRules;
}

export interface MediaModelInfo {
  id: string;
  family: FamilyId;
  type: Exclude<ModelType, 'TEXT'>;
  group: string;
  name: string;
  vendor: string;
}

/** What a real generation of a request produces; the offline `local` provider renders to match. */
export type OutputSpec = ImageOutputSpec | VideoOutputSpec | AudioOutputSpec | DataOutputSpec;

export interface ImageOutputSpec {
  kind: 'image';
  count: number;
  width: number;
  height: number;
  format: 'png' | 'jpeg';
}

export interface VideoOutputSpec {
  kind: 'video';
  count: number;
  width: number;
  height: number;
  durationS: number;
  fps: number;
  withAudio: boolean;
  format: 'mp4' | 'mov';
}

export interface AudioOutputSpec {
  kind: 'audio';
  /** Files produced (a song is two takes; stems are one file per stem). */
  tracks: number;
  durationS: number;
  format: 'mp3' | 'wav';
  withLyrics: boolean;
  /** Stem names, in file order, when the tracks are stems. */
  stems?: string[];
}

export type DataOutputType =
  | 'lyrics'
  | 'timestamped-lyrics'
  | 'persona'
  | 'style'
  | 'image-description'
  | 'bpm'
  | 'midi'
  | 'upload';

/** Generations whose result is `output` only (no files). */
export interface DataOutputSpec {
  kind: 'data';
  dataType: DataOutputType;
  /** How many alternatives the result holds (e.g. two lyrics drafts, four image descriptions). */
  items: number;
}
