/**
 * An input family, declared once: its fields (validation, params, capabilities, JSON Schema), its
 * cross-field rules, how its models are billed (dimensions that select a tier, and how many units),
 * which URLs must be measured, and what a generation produces.
 */
import type { FamilyId, MeasuredMedia, MediaKind, OutputSpec, PriceUnit, ProbeRequest, ValidatedInput } from '../catalog.types.ts';
import type { DefaultValue, FieldDef, OptionDef } from './field.types.ts';
import type { RequiredRule } from './required-when.ts';
import type { Rule, RuleContext } from './rules.ts';

export interface FamilyContext {
  readonly modelId: string;
  readonly variant: string | undefined;
  readonly measured: Measurements;
}

/** One axis of a tariff: its possible values, and the value a request selects. */
export interface DimensionDef {
  readonly values: (fields: readonly FieldDef[]) => readonly string[];
  readonly select: (input: ValidatedInput, ctx: FamilyContext) => string;
}

export interface BillingDef {
  readonly unit: Exclude<PriceUnit, 'megatoken'>;
  readonly dimensions?: Readonly<Record<string, DimensionDef>>;
  /** Units billed (seconds, or generations × batch); 1 when absent. Always a whole number. */
  readonly units?: (input: ValidatedInput, ctx: FamilyContext) => number;
}

/** How one model of a family differs: narrower options or other defaults, and fields it ignores. */
export interface VariantDef {
  readonly fields?: Readonly<Record<string, FieldPatch>>;
  /** Accepted for compatibility but dropped after validation (published as deprecated). */
  readonly ignore?: readonly string[];
}

export interface FieldPatch {
  readonly options?: ReadonlyArray<string | number | OptionDef>;
  readonly default?: DefaultValue;
  readonly description?: string;
}

export interface FamilyDef {
  readonly id: FamilyId;
  readonly type: 'VIDEO' | 'IMAGE' | 'MUSIC';
  readonly fields: readonly FieldDef[];
  readonly rules?: readonly Rule[];
  /** Runs after the rules; may rewrite the input (e.g. V13 upgrades videoType when endUrl is given). */
  readonly normalize?: (ctx: RuleContext) => void;
  readonly variants?: Readonly<Record<string, VariantDef>>;
  readonly billing: BillingDef;
  readonly probes?: (input: ValidatedInput) => ProbeRequest[];
  /** Family bounds on measured media; formats, sizes and readable durations are checked before. */
  readonly checkMeasured?: (input: ValidatedInput, measured: Measurements) => void;
  readonly output: (input: ValidatedInput, ctx: FamilyContext) => OutputSpec;
  /** A choice field whose value decides which other fields apply, published as its `fieldsByValue`. */
  readonly fieldsByChoice?: { readonly field: string; readonly fields: Readonly<Record<string, readonly string[]>> };
  /** Fields required only in some modes or actions: a rule checks them, and each param publishes its own. */
  readonly requiredWhen?: readonly RequiredRule[];
}

export function defineFamily(def: FamilyDef): FamilyDef {
  return def;
}

/** Measured media by URL. Durations are kept in whole milliseconds so that sums do not drift. */
export class Measurements {
  private readonly byUrl = new Map<string, MeasuredMedia>();

  constructor(list: readonly MeasuredMedia[] = []) {
    for (const m of list) this.byUrl.set(m.url, m);
  }

  get size(): number {
    return this.byUrl.size;
  }

  find(url: string): MeasuredMedia | undefined {
    return this.byUrl.get(url);
  }

  /** Duration of `url` in milliseconds; throws (a caller bug) when it was not measured. */
  durationMs(url: string, field: string): number {
    const m = this.byUrl.get(url);
    if (!m || m.durationS === undefined || !Number.isFinite(m.durationS)) {
      throw new Error(`no measured duration for input.${field} (${url}): measure the probeRequests first`);
    }
    return Math.round(m.durationS * 1000);
  }

  totalMs(items: ReadonlyArray<{ url: string; field: string }>): number {
    return items.reduce((sum, item) => sum + this.durationMs(item.url, item.field), 0);
  }
}

/**
 * Audio encoders pad the end of a track (an AAC track of a 7 s video runs to about 7.02 s), so a length
 * within this much above a whole second is not billed as the next second.
 */
export const CODEC_PADDING_MS = 100;

/** Whole seconds billed for a measured length: rounded up, ignoring codec padding. */
export function billedSeconds(ms: number): number {
  if (ms <= 0) return 0;
  return Math.max(1, Math.ceil((ms - CODEC_PADDING_MS) / 1000));
}

/** The URLs of an array field (or a single string field) with their field paths. */
export function urlsOf(input: ValidatedInput, name: string): Array<{ url: string; field: string }> {
  const v = input[name];
  if (typeof v === 'string') return [{ url: v, field: name }];
  if (!Array.isArray(v)) return [];
  return v.filter((x): x is string => typeof x === 'string').map((url, i) => ({ url, field: `${name}[${i}]` }));
}

export const MIB = 1024 * 1024;
export const VIDEO_FORMATS = ['mp4', 'mov'];
export const AUDIO_FORMATS = ['mp3', 'wav', 'm4a', 'aac'];
export const IMAGE_FORMATS = ['jpeg', 'jpg', 'png'];

export function probe(input: ValidatedInput, name: string, kind: MediaKind, maxBytes: number, formats: readonly string[]): ProbeRequest[] {
  return urlsOf(input, name).map(({ url, field }) => ({ field, url, kind, maxBytes, formats: [...formats] }));
}

/** The option values of an enum field, as strings (a tariff dimension over that field). */
export function optionValues(fields: readonly FieldDef[], name: string): string[] {
  const field = fields.find((f) => f.name === name);
  if (field?.type !== 'enum') throw new Error(`no enum field ${name}`);
  return field.options.map((o) => String(o.value));
}

/** A dimension whose value is an enum field's value (formatted by `format`). */
export function enumDimension(name: string, format: (v: string) => string = (v) => v): DimensionDef {
  return {
    values: (fields) => optionValues(fields, name).map(format),
    select: (input) => format(String(input[name])),
  };
}

/** A two-valued dimension. */
export function flagDimension(values: readonly [string, string], select: (input: ValidatedInput) => boolean): DimensionDef {
  return { values: () => values, select: (input) => (select(input) ? values[1] : values[0]) };
}
