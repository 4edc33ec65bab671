/**
 * Which media model a tool call uses, and the input it sends (rule 9). The model the call names wins
 * unless a model is pinned (manual mode with a media model, the `pinned` policy, or an approved
 * change in those); without one, the run's default for the modality (`defaults`), or the cheapest
 * model whose inputs fit (`cheapest`). The tool's common arguments are mapped onto the model's own
 * fields as the catalog publishes them; `options` overrides them; the catalog validates the result.
 */
import type { RunRow } from '../../../ports/agent-store.port.ts';
import { type MediaToolArguments, type MediaToolName, modalityOfTool } from '../../../domain/agent/agent-tools.ts';
import type { Catalog } from '../../../domain/catalog/catalog.ts';
import type { ParamField } from '../../../domain/catalog/catalog.types.ts';
import { usdToMicro } from '../../../domain/money.ts';
import { overridesOf, snapshotOf } from '../runs/run-snapshot.ts';

export type MediaModality = 'image' | 'video' | 'music';
const TYPE_OF = { image: 'IMAGE', video: 'VIDEO', music: 'MUSIC' } as const;
const REFERENCE_FIELDS = ['urls', 'imageUrls', 'referenceImageUrls'];
const SETTING_OF = { image: 'imageModelId', video: 'videoModelId', music: 'musicModelId' } as const;

/** The model every call of the modality must use, when one is pinned. */
export function pinnedMediaModel(catalog: Catalog, run: RunRow, modality: MediaModality): string | undefined {
  const snapshot = snapshotOf(run);
  const approved = overridesOf(run)[modality];
  const selected = snapshot.mode === 'manual' && snapshot.selectedModelId !== null && catalog.media(snapshot.selectedModelId)?.type === TYPE_OF[modality] ? snapshot.selectedModelId : undefined;
  const policyPinned = snapshot.settings.routingPolicy === 'pinned';
  if (approved && (selected || policyPinned)) return approved;
  if (selected) return selected;
  if (policyPinned) return snapshot.settings[SETTING_OF[modality]];
  return undefined;
}

/** The model a call of the modality uses when it names none. */
export function defaultMediaModel(catalog: Catalog, run: RunRow, modality: MediaModality, needs: { references: number; durationSeconds?: number } = { references: 0 }): string {
  const pinned = pinnedMediaModel(catalog, run, modality);
  if (pinned) return pinned;
  const approved = overridesOf(run)[modality];
  if (approved) return approved;
  const snapshot = snapshotOf(run);
  if (snapshot.settings.routingPolicy === 'cheapest') {
    const cheapest = cheapestModel(catalog, modality, needs);
    if (cheapest) return cheapest;
  }
  return snapshot.settings[SETTING_OF[modality]];
}

export function mediaDefaults(catalog: Catalog, run: RunRow): Record<MediaModality, string> {
  return { image: defaultMediaModel(catalog, run, 'image'), video: defaultMediaModel(catalog, run, 'video'), music: defaultMediaModel(catalog, run, 'music') };
}

/** How many reference images a model takes (0: none; Infinity: no published bound). */
export function referenceCapacity(catalog: Catalog, modelId: string): number {
  const field = referenceField(catalog, modelId);
  if (!field) return 0;
  return field.maxItems ?? Number.POSITIVE_INFINITY;
}

function referenceField(catalog: Catalog, modelId: string): ParamField | undefined {
  const params = catalog.get(modelId)?.params ?? [];
  return params.find((p) => REFERENCE_FIELDS.includes(p.name) && p.isMedia && p.isArray && !p.deprecated);
}

/** Whether a model makes clips of exactly this many seconds (one of its options, or within its range). */
export function offersDuration(catalog: Catalog, modelId: string, seconds: number): boolean {
  const field = (catalog.get(modelId)?.params ?? []).find((p) => p.name === 'duration' && !p.deprecated);
  if (!field) return false;
  const options = (field.options ?? []).map((o) => Number(o.value)).filter((n) => Number.isFinite(n));
  if (options.length > 0) return options.includes(seconds);
  return Number.isInteger(seconds) && (field.minimum === undefined || seconds >= field.minimum) && (field.maximum === undefined || seconds <= field.maximum);
}

/** A model that needs a field the tool cannot fill (a start frame, an audio track) cannot be chosen for it. */
function fillable(catalog: Catalog, modelId: string, references: number): boolean {
  const params = catalog.get(modelId)?.params ?? [];
  return params.every((p) => !p.required || p.deprecated || p.isPrompt || p.name === 'prompt' || p.name === 'gptDescriptionPrompt' || (references > 0 && REFERENCE_FIELDS.includes(p.name)));
}

function cheapestModel(catalog: Catalog, modality: MediaModality, needs: { references: number; durationSeconds?: number; exactDuration?: boolean }): string | undefined {
  let best: { id: string; price: number } | undefined;
  for (const info of catalog.mediaModels()) {
    if (info.type !== TYPE_OF[modality]) continue;
    if (referenceCapacity(catalog, info.id) < needs.references) continue;
    if (needs.exactDuration && (needs.durationSeconds === undefined || !offersDuration(catalog, info.id, needs.durationSeconds) || !fillable(catalog, info.id, needs.references))) continue;
    const model = catalog.get(info.id);
    if (!model?.priceFrom) continue;
    const unit = usdToMicro(model.priceFrom);
    const price = model.priceUnit === 'second' ? unit * (needs.durationSeconds ?? 5) : unit;
    if (!best || price < best.price) best = { id: info.id, price };
  }
  return best?.id;
}

export type MediaChoice = { ok: true; model: string; input: Record<string, unknown>; notes: string[] } | { ok: false; model: string; error: string };

/** Picks the model and builds its input; `references` are the URLs of the reference artifacts. */
export function chooseMedia(catalog: Catalog, run: RunRow, tool: MediaToolName, args: MediaToolArguments, references: string[]): MediaChoice {
  const modality = modalityOfTool(tool);
  const notes: string[] = [];
  const pinned = pinnedMediaModel(catalog, run, modality);
  let model: string;
  if (args.model !== undefined) {
    const info = catalog.media(args.model);
    if (!info || info.type !== TYPE_OF[modality]) return { ok: false, model: args.model, error: `${args.model} is not an available ${modality} model` };
    if (pinned && args.model !== pinned) {
      return { ok: false, model: args.model, error: `${pinned} is pinned for ${modality} in this run; call propose_model_change to ask the user for ${args.model}` };
    }
    model = args.model;
  } else {
    const needs = args.durationSeconds === undefined ? { references: references.length } : { references: references.length, durationSeconds: args.durationSeconds };
    model = defaultMediaModel(catalog, run, modality, needs);
    const capacity = referenceCapacity(catalog, model);
    if (!pinned && capacity < references.length) {
      // Rule 9: the default cannot take the inputs; choose one that can, and say so.
      const fitting = cheapestModel(catalog, modality, needs);
      if (fitting) {
        notes.push(`${model} takes at most ${capacity} reference image(s); used ${fitting}, which takes ${references.length}`);
        model = fitting;
      }
    }
    // An asked length is part of the request: a default that cannot make it gives way to a model that can.
    if (!pinned && args.durationSeconds !== undefined && !offersDuration(catalog, model, args.durationSeconds)) {
      const fitting = cheapestModel(catalog, modality, { ...needs, exactDuration: true });
      if (fitting) {
        notes.push(`${model} offers no ${args.durationSeconds}-second clips; used ${fitting}, which does`);
        model = fitting;
      }
    }
  }
  const built = mediaInput(catalog, model, args, references);
  if (!built.ok) return { ok: false, model, error: built.error };
  return { ok: true, model, input: built.input, notes: [...notes, ...built.notes] };
}

function mediaInput(catalog: Catalog, modelId: string, args: MediaToolArguments, references: string[]): { ok: true; input: Record<string, unknown>; notes: string[] } | { ok: false; error: string } {
  const params = (catalog.get(modelId)?.params ?? []).filter((p) => !p.deprecated);
  const byName = new Map(params.map((p) => [p.name, p]));
  const input: Record<string, unknown> = {};
  const notes: string[] = [];
  const description = byName.get('gptDescriptionPrompt');
  if (description) {
    // Music models of the M1 family: a description in simple mode (lyrics need custom mode).
    input.gptDescriptionPrompt = cut([args.prompt, args.style].filter(Boolean).join('. '), description.maxLength);
    if (args.instrumental !== undefined && byName.has('makeInstrumental')) input.makeInstrumental = args.instrumental;
  } else {
    const promptField = byName.get('prompt') ?? params.find((p) => p.isPrompt);
    if (!promptField) return { ok: false, error: `${modelId} takes no prompt` };
    input[promptField.name] = cut(args.prompt, promptField.maxLength);
  }
  if (args.durationSeconds !== undefined) {
    const duration = byName.get('duration');
    if (!duration) notes.push(`${modelId} has no duration setting; it makes clips of its own length`);
    else {
      const chosen = nearestDuration(duration, args.durationSeconds);
      input.duration = chosen;
      if (chosen !== args.durationSeconds) notes.push(`${modelId} offers no ${args.durationSeconds}-second clips; used ${chosen} seconds`);
    }
  }
  if (args.aspectRatio !== undefined) {
    const field = ['aspectRatio', 'size'].map((n) => byName.get(n)).find((p) => p?.options?.some((o) => o.value === args.aspectRatio));
    if (field) input[field.name] = args.aspectRatio;
    else notes.push(`${modelId} does not offer the aspect ratio ${args.aspectRatio}; its default was used`);
  }
  if (references.length > 0) {
    const field = referenceField(catalog, modelId);
    if (!field) return { ok: false, error: `${modelId} takes no reference images; call propose_model_change for a model that does` };
    if (field.maxItems !== undefined && field.maxItems < references.length) {
      return { ok: false, error: `${modelId} takes at most ${field.maxItems} reference image(s), not ${references.length}; call propose_model_change for a model that takes more` };
    }
    input[field.name] = references;
  }
  if (args.options) Object.assign(input, args.options);
  return { ok: true, input, notes };
}

function cut(text: string, max: number | undefined): string {
  return max !== undefined && text.length > max ? text.slice(0, max) : text;
}

function nearestDuration(field: ParamField, wanted: number): number {
  const options = (field.options ?? []).map((o) => Number(o.value)).filter((n) => Number.isFinite(n)).sort((a, b) => a - b);
  if (options.length > 0) return options.find((n) => n >= wanted) ?? (options.at(-1) as number);
  let value = Math.round(wanted);
  if (field.minimum !== undefined) value = Math.max(value, field.minimum);
  if (field.maximum !== undefined) value = Math.min(value, field.maximum);
  return value;
}
