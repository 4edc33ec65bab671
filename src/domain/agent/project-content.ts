/**
 * A brand project's content (SPEC "Agent resources": Project): instructions, brand settings and model
 * defaults. Pure rules: bounds, parsing of a create body and of an update's changes (400 naming the
 * field; unknown fields refused), and the settings layer the project adds to its runs (rule 9).
 */
import type { Catalog } from '../catalog/catalog.ts';
import { invalidInput } from '../errors.ts';
import { type PartialAgentSettings, parseSettings } from './agent-settings.ts';

export interface ProjectBrand {
  name: string | null;
  voice: string | null;
  /** `#RRGGBB`, upper case, in the order given. */
  colors: string[];
  /** An asset of this project (GET /agent/projects/{id}/assets). */
  logoAssetId: string | null;
}

/** Null: the user's setting applies. */
export interface ProjectModelDefaults {
  orchestratorModelId: string | null;
  imageModelId: string | null;
  videoModelId: string | null;
  musicModelId: string | null;
}

export interface ProjectContent {
  name: string;
  instructions: string;
  brand: ProjectBrand;
  modelDefaults: ProjectModelDefaults;
}

export const PROJECT_LIMITS = {
  name: 200,
  instructions: 8_000,
  brandName: 200,
  voice: 2_000,
  colors: 12,
  id: 200,
} as const;

const FIELDS = ['name', 'instructions', 'brand', 'modelDefaults'];
const BRAND_FIELDS = ['name', 'voice', 'colors', 'logoAssetId'];
const MODEL_FIELDS = ['orchestratorModelId', 'imageModelId', 'videoModelId', 'musicModelId'] as const;
const COLOR = /^#[0-9a-fA-F]{6}$/;

export type ProjectChanges = Partial<{ name: string; instructions: string; brand: Partial<ProjectBrand>; modelDefaults: Partial<ProjectModelDefaults> }>;

export function emptyProject(name: string): ProjectContent {
  return {
    name,
    instructions: '',
    brand: { name: null, voice: null, colors: [], logoAssetId: null },
    modelDefaults: { orchestratorModelId: null, imageModelId: null, videoModelId: null, musicModelId: null },
  };
}

/**
 * The changes a body asks for: `extra` lists the other top-level fields the route allows (such as
 * expectedVersion). In brand and modelDefaults a field given replaces, null clears, omitted keeps.
 */
export function parseProjectChanges(catalog: Catalog, body: unknown, extra: string[]): ProjectChanges {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw invalidInput('the body must be a JSON object', 'body');
  const input = body as Record<string, unknown>;
  const allowed = [...FIELDS, ...extra];
  for (const key of Object.keys(input)) if (!allowed.includes(key)) throw invalidInput(`unknown field ${key.slice(0, 80)}; allowed: ${allowed.join(', ')}`, key.slice(0, 80));
  const out: ProjectChanges = {};
  if (input.name !== undefined) out.name = text(input.name, 'name', PROJECT_LIMITS.name, false);
  if (input.instructions !== undefined) out.instructions = input.instructions === null ? '' : text(input.instructions, 'instructions', PROJECT_LIMITS.instructions, true);
  if (input.brand !== undefined) out.brand = parseBrand(input.brand);
  if (input.modelDefaults !== undefined) out.modelDefaults = parseModelDefaults(catalog, input.modelDefaults);
  return out;
}

export function applyProjectChanges(current: ProjectContent, changes: ProjectChanges): ProjectContent {
  return {
    name: changes.name ?? current.name,
    instructions: changes.instructions ?? current.instructions,
    brand: { ...current.brand, ...changes.brand },
    modelDefaults: { ...current.modelDefaults, ...changes.modelDefaults },
  };
}

/** The settings layer of a project (rule 9: above the user's defaults, below the conversation's). */
export function projectSettingsLayer(content: ProjectContent): PartialAgentSettings {
  const layer: PartialAgentSettings = {};
  for (const field of MODEL_FIELDS) {
    const value = content.modelDefaults[field];
    if (value !== null) layer[field] = value;
  }
  return layer;
}

function parseBrand(value: unknown): Partial<ProjectBrand> {
  if (value === null) return { name: null, voice: null, colors: [], logoAssetId: null };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidInput('brand must be an object {name, voice, colors, logoAssetId}', 'brand');
  const input = value as Record<string, unknown>;
  for (const key of Object.keys(input)) if (!BRAND_FIELDS.includes(key)) throw invalidInput(`brand.${key.slice(0, 80)} is not a brand setting; known: ${BRAND_FIELDS.join(', ')}`, `brand.${key.slice(0, 80)}`);
  const out: Partial<ProjectBrand> = {};
  if (input.name !== undefined) out.name = input.name === null ? null : text(input.name, 'brand.name', PROJECT_LIMITS.brandName, false);
  if (input.voice !== undefined) out.voice = input.voice === null ? null : text(input.voice, 'brand.voice', PROJECT_LIMITS.voice, false);
  if (input.colors !== undefined) {
    if (input.colors === null) out.colors = [];
    else {
      if (!Array.isArray(input.colors)) throw invalidInput('brand.colors must be an array of "#RRGGBB" colours', 'brand.colors');
      if (input.colors.length > PROJECT_LIMITS.colors) throw invalidInput(`brand.colors holds at most ${PROJECT_LIMITS.colors} colours`, 'brand.colors');
      out.colors = input.colors.map((c, i) => {
        if (typeof c !== 'string' || !COLOR.test(c)) throw invalidInput(`brand.colors[${i}] must be a colour "#RRGGBB"`, `brand.colors[${i}]`);
        return c.toUpperCase();
      });
    }
  }
  if (input.logoAssetId !== undefined) {
    if (input.logoAssetId === null) out.logoAssetId = null;
    else if (typeof input.logoAssetId !== 'string' || input.logoAssetId === '' || input.logoAssetId.length > PROJECT_LIMITS.id) throw invalidInput('brand.logoAssetId must be an asset id of this project', 'brand.logoAssetId');
    else out.logoAssetId = input.logoAssetId;
  }
  return out;
}

function parseModelDefaults(catalog: Catalog, value: unknown): Partial<ProjectModelDefaults> {
  if (value === null) return { orchestratorModelId: null, imageModelId: null, videoModelId: null, musicModelId: null };
  if (typeof value !== 'object' || Array.isArray(value)) throw invalidInput(`modelDefaults must be an object {${MODEL_FIELDS.join(', ')}}`, 'modelDefaults');
  const input = value as Record<string, unknown>;
  const given: Record<string, unknown> = {};
  const out: Partial<ProjectModelDefaults> = {};
  for (const [key, id] of Object.entries(input)) {
    if (!(MODEL_FIELDS as readonly string[]).includes(key)) throw invalidInput(`modelDefaults.${key.slice(0, 80)} is not a project model default; known: ${MODEL_FIELDS.join(', ')}`, `modelDefaults.${key.slice(0, 80)}`);
    if (id === null) out[key as keyof ProjectModelDefaults] = null;
    else given[key] = id;
  }
  // The same checks as the user's settings: available, and of the right modality.
  Object.assign(out, parseSettings(catalog, given, 'modelDefaults'));
  return out;
}

function text(value: unknown, field: string, max: number, multiline: boolean): string {
  if (typeof value !== 'string') throw invalidInput(`${field} must be a string`, field);
  const cleaned = multiline ? value.replace(/\r\n?/g, '\n').trim() : value.replace(/\s+/g, ' ').trim();
  if (cleaned === '' && !multiline) throw invalidInput(`${field} must not be empty (null clears it where it is optional)`, field);
  if (cleaned.length > max) throw invalidInput(`${field} must be at most ${max} characters`, field);
  return cleaned;
}
