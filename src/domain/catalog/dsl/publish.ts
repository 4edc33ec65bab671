/**
 * What a family declaration publishes: the effective fields of one model (its variant applied), the
 * `params` list, the derived capabilities and the JSON Schema of `input`.
 */
import type { ParamField } from '../catalog.types.ts';
import { type Capability, sortCapabilities } from './capabilities.ts';
import type { FamilyDef, FieldPatch } from './family.ts';
import type { FieldDef, ItemSpec, OptionDef, ValueSpec } from './field.types.ts';
import { options } from './fields.ts';
import { validateValue } from './validate.ts';

export interface EffectiveFields {
  fields: FieldDef[];
  /** Fields this model accepts but ignores (dropped after validation). */
  ignored: Set<string>;
}

export function effectiveFields(family: FamilyDef, variant: string | undefined): EffectiveFields {
  const def = variant === undefined ? undefined : family.variants?.[variant];
  if (variant !== undefined && !def) throw new Error(`family ${family.id} has no variant ${variant}`);
  const ignored = new Set(def?.ignore ?? []);
  const fields = family.fields.map((field) => {
    const patch = def?.fields?.[field.name];
    let out = patch ? patchField(field, patch) : field;
    if (ignored.has(field.name)) {
      out = { ...out, deprecated: true, description: `${out.description ?? ''} Ignored by this model (accepted for compatibility).`.trim() };
    }
    return out;
  });
  for (const name of [...ignored, ...Object.keys(def?.fields ?? {})]) {
    if (!family.fields.some((f) => f.name === name)) throw new Error(`variant ${variant} of ${family.id} names unknown field ${name}`);
  }
  for (const field of fields) checkDefault(field, family.id);
  return { fields, ignored };
}

function patchField(field: FieldDef, patch: FieldPatch): FieldDef {
  let out: FieldDef = { ...field };
  if (patch.options) {
    if (out.type !== 'enum') throw new Error(`options patch on non-enum field ${field.name}`);
    out = { ...out, options: options(patch.options) };
  }
  if (patch.default !== undefined) out = { ...out, default: patch.default };
  if (patch.description !== undefined) out = { ...out, description: patch.description };
  return out;
}

/** A declared default must pass its own field's validation (a declaration bug otherwise). */
function checkDefault(field: FieldDef, family: string): void {
  if (field.default === undefined) return;
  try {
    validateValue(field, field.default, field.name);
  } catch (error) {
    throw new Error(`family ${family}: default of ${field.name} is invalid: ${(error as Error).message}`);
  }
}

/** The input a request without parameters has: the defaults only. */
export function defaultInput(fields: readonly FieldDef[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) if (f.default !== undefined) out[f.name] = f.default;
  return out;
}

// ------------------------------------------------------------------------------------------ params

const WORDS: Record<string, string> = { url: 'URL', urls: 'URLs', id: 'ID', ids: 'IDs', nsfw: 'NSFW', gpt: 'GPT', bpm: 'BPM', mv: 'MV' };

/** `imageWithRoles` → "Image with roles", `videoUrls` → "Video URLs". */
export function humanize(name: string): string {
  const words = name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .split(/\s+/)
    .map((w) => WORDS[w.toLowerCase()] ?? w.toLowerCase());
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function kindOf(spec: ValueSpec | ItemSpec): ParamField['kind'] {
  switch (spec.type) {
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return spec.options.every((o) => typeof o.value === 'number') ? 'number' : 'string';
    case 'array':
      return kindOf(spec.items);
    default:
      return 'string';
  }
}

function paramOptions(list: readonly OptionDef[]) {
  return list.map((o) => ({ value: o.value, label: o.label ?? String(o.value) }));
}

function containsMedia(spec: ValueSpec | ItemSpec): boolean {
  if (spec.type === 'string') return spec.media !== undefined;
  if (spec.type === 'array') return containsMedia(spec.items);
  if (spec.type === 'object') return spec.fields.some(containsMedia);
  return false;
}

export function toParamField(field: FieldDef): ParamField {
  const spec: ValueSpec | ItemSpec = field.type === 'array' ? field.items : field;
  const param: ParamField = {
    name: field.name,
    label: field.label ?? humanize(field.name),
    kind: kindOf(field),
    isArray: field.type === 'array',
    required: field.required === true,
    isMedia: containsMedia(field),
    isPrompt: spec.type === 'string' && spec.prompt === true,
    multiline: spec.type === 'string' && spec.multiline === true,
    deprecated: field.deprecated === true,
  };
  if (field.description !== undefined) param.description = field.description;
  if (field.default !== undefined) param.default = Array.isArray(field.default) ? [...field.default] : (field.default as string | number | boolean);
  if (spec.type === 'enum') param.options = paramOptions(spec.options);
  if (spec.type === 'number') {
    if (spec.minimum !== undefined) param.minimum = spec.minimum;
    if (spec.maximum !== undefined) param.maximum = spec.maximum;
  }
  if (spec.type === 'string') {
    if (spec.maxLength !== undefined) param.maxLength = spec.maxLength;
    if (spec.media !== undefined) param.mediaKind = spec.media;
    if (spec.taskRef) param.isTaskReference = true;
  }
  if (field.type === 'array') {
    if (field.minItems !== undefined) param.minItems = field.minItems;
    if (field.maxItems !== undefined) param.maxItems = field.maxItems;
  }
  if (spec.type === 'object') param.fields = spec.fields.map(toParamField);
  return param;
}

// ------------------------------------------------------------------------------------ capabilities

function specCaps(spec: ValueSpec | ItemSpec, out: Capability[]): void {
  if (spec.type === 'enum') for (const o of spec.options) out.push(...(o.caps ?? []));
  if (spec.type === 'array') specCaps(spec.items, out);
  if (spec.type === 'object') for (const f of spec.fields) fieldCaps(f, out);
}

function fieldCaps(field: FieldDef, out: Capability[]): void {
  out.push(...(field.caps ?? []));
  specCaps(field, out);
}

/** The union of the capabilities of the fields (and enum values) the model does not ignore. */
export function deriveCapabilities(fields: readonly FieldDef[], ignored: ReadonlySet<string>): Capability[] {
  const out: Capability[] = [];
  for (const f of fields) if (!ignored.has(f.name)) fieldCaps(f, out);
  return sortCapabilities(out);
}

// ------------------------------------------------------------------------------------- JSON Schema

const PATTERNS: Record<string, string> = {
  'hex-color': '^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$',
  'aspect-ratio': '^[1-9][0-9]{0,2}:[1-9][0-9]{0,2}$',
};

function specSchema(spec: ValueSpec | ItemSpec): Record<string, unknown> {
  switch (spec.type) {
    case 'string': {
      const s: Record<string, unknown> = { type: 'string' };
      if (spec.minLength !== undefined && spec.minLength > 0) s.minLength = spec.minLength;
      if (spec.maxLength !== undefined) s.maxLength = spec.maxLength;
      if (spec.format === 'url' || spec.format === 'url-or-data-uri') s.format = 'uri';
      const pattern = spec.format ? PATTERNS[spec.format] : undefined;
      if (pattern) s.pattern = pattern;
      if (spec.pattern) s.pattern = spec.pattern.regex.source;
      return s;
    }
    case 'number': {
      const s: Record<string, unknown> = { type: spec.integer ? 'integer' : 'number' };
      if (spec.minimum !== undefined) s.minimum = spec.minimum;
      if (spec.maximum !== undefined) s.maximum = spec.maximum;
      return s;
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'enum': {
      const numeric = spec.options.every((o) => typeof o.value === 'number');
      return { type: numeric ? 'number' : 'string', enum: spec.options.map((o) => o.value) };
    }
    case 'array': {
      const s: Record<string, unknown> = { type: 'array', items: specSchema(spec.items) };
      if (spec.minItems !== undefined) s.minItems = spec.minItems;
      if (spec.maxItems !== undefined) s.maxItems = spec.maxItems;
      return s;
    }
    case 'object':
      return objectSchema(spec.fields);
  }
}

function fieldSchema(field: FieldDef): Record<string, unknown> {
  const s = specSchema(field);
  if (field.description !== undefined) s.description = field.description;
  if (field.default !== undefined) s.default = field.default;
  if (field.deprecated) s.deprecated = true;
  return s;
}

function objectSchema(fields: readonly FieldDef[]): Record<string, unknown> {
  const properties: Record<string, unknown> = {};
  for (const f of fields) properties[f.name] = fieldSchema(f);
  const required = fields.filter((f) => f.required).map((f) => f.name);
  return { type: 'object', properties, ...(required.length > 0 ? { required } : {}), additionalProperties: false };
}

/** JSON Schema (draft 2020-12) of `input`. Cross-field rules are described, not encoded. */
export function inputJsonSchema(modelId: string, fields: readonly FieldDef[]): Record<string, unknown> {
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    title: `${modelId} input`,
    description: `Input of ${modelId}. Cross-field rules (combinations, per-mode requirements) are checked by the service; see the catalog params.`,
    ...objectSchema(fields),
  };
}
