/**
 * Google's published request documents for the two Gemini API methods we call, as recorded under
 * test/fixtures/upstreams/google/ (each naming its sources and the day they were read), and the check
 * the strict fake applies with them: the body's shape, then what the named model takes, then the
 * cross-field rules the documents state in prose. Returns the first problem, or undefined.
 */
import { readFileSync } from 'node:fs';
import { type FieldSchema, schemaProblem } from './schema-check.ts';

const FIXTURE_DIR = new URL('../../fixtures/upstreams/google/', import.meta.url);

function load<T>(name: string): T {
  return JSON.parse(readFileSync(new URL(name, FIXTURE_DIR), 'utf8')) as T;
}

interface ImageModelDocument {
  aliases: string[];
  aspectRatio: string[];
  imageSize: string[];
  maxInputImages: number;
}

interface VeoModelDocument {
  resolution: string[];
  referenceImages: boolean;
  video: boolean;
}

type Condition = string[] | 'present' | number[];

interface VeoRule {
  when: Record<string, Condition>;
  require?: Record<string, Condition>;
  forbid?: string[];
  message: string;
}

export interface GenerateContentDocument {
  source: string[];
  retrieved: string;
  body: FieldSchema;
  models: Record<string, ImageModelDocument>;
  responses: Record<string, { source: string; body: unknown }>;
}

export interface PredictLongRunningDocument {
  source: string[];
  retrieved: string;
  body: FieldSchema;
  definitions: Record<string, FieldSchema>;
  defaults: Record<string, unknown>;
  models: Record<string, VeoModelDocument>;
  rules: VeoRule[];
  responses: Record<string, { source: string; body: unknown }>;
}

export interface ErrorsDocument {
  statuses: Record<string, number>;
  responses: Record<string, unknown>;
}

/** `{"$ref": "image"}` → the named definition (schema-check knows no references). */
function resolveRefs(value: unknown, definitions: Record<string, FieldSchema>): unknown {
  if (Array.isArray(value)) return value.map((v) => resolveRefs(v, definitions));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  if (typeof record.$ref === 'string') {
    const target = definitions[record.$ref];
    if (!target) throw new Error(`unknown $ref ${record.$ref}`);
    return resolveRefs(target, definitions);
  }
  return Object.fromEntries(Object.entries(record).map(([k, v]) => [k, resolveRefs(v, definitions)]));
}

export const GENERATE_CONTENT: GenerateContentDocument = load('generate-content.json');
const rawVeo = load<PredictLongRunningDocument>('predict-long-running.json');
export const PREDICT_LONG_RUNNING: PredictLongRunningDocument = { ...rawVeo, body: resolveRefs(rawVeo.body, rawVeo.definitions) as FieldSchema };
export const GOOGLE_ERRORS: ErrorsDocument = load('errors.json');

/** The image model document for a model id or one of its aliases. */
export function imageModelDocument(model: string): ImageModelDocument | undefined {
  return GENERATE_CONTENT.models[model] ?? Object.values(GENERATE_CONTENT.models).find((m) => m.aliases.includes(model));
}

export function veoModelDocument(model: string): VeoModelDocument | undefined {
  return PREDICT_LONG_RUNNING.models[model];
}

function asRecord(value: unknown): Record<string, unknown> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

/** What Google would refuse in a generateContent body for this model. */
export function generateContentProblem(model: string, body: unknown): string | undefined {
  const doc = imageModelDocument(model);
  if (!doc) return `models/${model} is not found for API version v1beta, or is not supported for generateContent.`;
  const shape = schemaProblem(GENERATE_CONTENT.body, body, '');
  if (shape) return shape;
  const record = asRecord(body) ?? {};
  const imageConfig = asRecord(asRecord(record.generationConfig)?.imageConfig) ?? {};
  if (imageConfig.aspectRatio !== undefined && !doc.aspectRatio.includes(String(imageConfig.aspectRatio))) {
    return `generationConfig.imageConfig.aspectRatio ${JSON.stringify(imageConfig.aspectRatio)} is not supported by ${model}`;
  }
  if (imageConfig.imageSize !== undefined && !doc.imageSize.includes(String(imageConfig.imageSize))) {
    return `generationConfig.imageConfig.imageSize ${JSON.stringify(imageConfig.imageSize)} is not supported by ${model}`;
  }
  const contents = Array.isArray(record.contents) ? record.contents : [];
  const images = contents.flatMap((c) => {
    const parts = asRecord(c)?.parts;
    return Array.isArray(parts) ? parts.filter((p) => asRecord(p)?.inlineData !== undefined) : [];
  });
  if (images.length > doc.maxInputImages) return `${model} takes at most ${doc.maxInputImages} input images (got ${images.length})`;
  return undefined;
}

function holds(value: unknown, condition: Condition): boolean {
  if (condition === 'present') return value !== undefined;
  return (condition as readonly unknown[]).includes(value);
}

/** What the named Veo model would refuse in a predictLongRunning body. */
export function predictLongRunningProblem(model: string, body: unknown): string | undefined {
  const doc = veoModelDocument(model);
  if (!doc) return `models/${model} is not found for API version v1beta, or is not supported for predictLongRunning.`;
  const shape = schemaProblem(PREDICT_LONG_RUNNING.body, body, '');
  if (shape) return shape.replace(/ is not a parameter of this endpoint$/u, " isn't supported by this model. Please remove it or refer to the Gemini API documentation for supported usage.");
  const record = asRecord(body) ?? {};
  const instance = asRecord(Array.isArray(record.instances) ? record.instances[0] : undefined) ?? {};
  const parameters = { ...PREDICT_LONG_RUNNING.defaults, ...asRecord(record.parameters) };
  if (!doc.resolution.includes(String(parameters.resolution))) return `resolution ${JSON.stringify(parameters.resolution)} is not supported by ${model}`;
  if (instance.referenceImages !== undefined && !doc.referenceImages) return `referenceImages isn't supported by ${model}`;
  if (instance.video !== undefined && !doc.video) return `video isn't supported by ${model}`;
  const fields: Record<string, unknown> = { ...parameters, ...instance };
  for (const rule of PREDICT_LONG_RUNNING.rules) {
    if (!Object.entries(rule.when).every(([name, condition]) => holds(fields[name], condition))) continue;
    if (rule.require && !Object.entries(rule.require).every(([name, condition]) => holds(fields[name], condition))) return rule.message;
    if (rule.forbid?.some((name) => fields[name] !== undefined)) return rule.message;
  }
  return undefined;
}
