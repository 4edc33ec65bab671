/**
 * A media model as the catalog holds it: its family declaration, the fields of its variant, its price
 * table and the params, capabilities and input schema published from them (built once at start).
 */
import { ConfigError } from '../../config-error.ts';
import type { AddedMediaModel, ModelOverride } from '../catalog-overrides.ts';
import type { MediaModelInfo, ParamField } from '../catalog.types.ts';
import { type FamilyContext, type FamilyDef, Measurements } from '../dsl/family.ts';
import type { FieldDef } from '../dsl/field.types.ts';
import { defaultInput, deriveCapabilities, effectiveFields, inputJsonSchema, toParamField } from '../dsl/publish.ts';
import { FAMILIES } from '../families/index.ts';
import type { MediaModelDef } from '../models/media-models.ts';
import { applyPricingOverride, buildPriceTable, type PriceTable } from '../pricing/price-table.ts';

export interface MediaEntry {
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

function noMeasurements(modelId: string, variant: string | undefined): FamilyContext {
  return { modelId, variant, measured: new Measurements() };
}

export function mediaEntry(def: MediaModelDef): MediaEntry {
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

/** The operator's override of a media model (`models.<id>`, named by `field`): text-model prices are refused. */
export function applyMediaOverride(media: MediaEntry, o: ModelOverride, field: string): void {
  for (const key of ['inputPrice', 'outputPrice', 'cachedInputPrice', 'cacheWritePrice', 'cacheWrite1hPrice', 'webSearchPrice'] as const) {
    if (o[key] !== undefined) throw new ConfigError(`${field}.${key}`, 'applies to text models only; media models take pricing tiers');
  }
  if (o.hidden !== undefined) media.hidden = o.hidden;
  if (o.name !== undefined) media.info = { ...media.info, name: o.name };
  if (o.description !== undefined) media.description = o.description;
  if (o.pricing !== undefined) media.table = applyPricingOverride(media.table, o.pricing, `${field}.pricing`);
}

/** An operator's added media model (`mediaModels[i]`, named by `field`): a built-in one under another id, name and prices. */
export function addedMediaEntry(m: AddedMediaModel, base: MediaEntry, field: string): MediaEntry {
  const def: MediaModelDef = { ...base.def, id: m.id, name: m.name, vendor: m.vendor ?? base.info.vendor };
  const entry = mediaEntry(def);
  entry.description = base.description;
  entry.table = m.pricing ? applyPricingOverride(entry.table, m.pricing, `${field}.pricing`) : { ...base.table, cells: base.table.cells.map((c) => ({ ...c })) };
  return entry;
}
