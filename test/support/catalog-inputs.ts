import type { MediaServer } from './media-server.ts';

export interface CatalogParam {
  name: string;
  required: boolean;
  deprecated: boolean;
  isMedia: boolean;
  isPrompt: boolean;
  isArray: boolean;
  kind: string;
  default?: unknown;
  options?: Array<{ value: unknown }>;
  minimum?: number;
}

export interface CatalogEntry {
  id: string;
  kind: 'media' | 'llm';
  type: string;
  params: CatalogParam[];
}

/** What a form built from `params` sends untouched: the prompt, each field's default, and required fields. */
export function inputFromParams(model: CatalogEntry, media: MediaServer): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const p of model.params) {
    if (p.deprecated) continue;
    // A prompt is what a form user always types, even where media could stand in for it.
    if (p.isPrompt && p.name === 'prompt') input[p.name] = 'a red fox in the snow';
    else if (p.default !== undefined && p.default !== null) input[p.name] = p.default;
    else if (p.required && p.isMedia) {
      const url = /video/i.test(p.name) ? media.videoUrl(5) : /audio/i.test(p.name) ? media.audioUrl(5) : media.imageUrl;
      input[p.name] = p.isArray ? [url] : url;
    } else if (p.required) {
      if (p.isPrompt || p.kind === 'string') input[p.name] = p.options?.[0]?.value ?? 'a red fox in the snow';
      else if (p.kind === 'number') input[p.name] = p.options?.[0]?.value ?? p.minimum ?? 1;
      else if (p.kind === 'boolean') input[p.name] = false;
    }
  }
  return input;
}

/**
 * Sends the body; where a refusal names a field a form user would fill next (a "one of" media field,
 * or the prompt box that applies in this mode), fills it and sends again, as a person at the form would.
 */
export async function sendFromForm(
  model: CatalogEntry,
  media: MediaServer,
  send: (input: Record<string, unknown>) => Promise<{ status: number; body: unknown }>,
): Promise<{ status: number; body: unknown; input: Record<string, unknown> }> {
  const input = inputFromParams(model, media);
  let res = await send(input);
  for (let round = 0; round < 2 && res.status === 400; round++) {
    const param = ((res.body as { error: { param?: string } }).error.param ?? '').replace(/^input\./, '');
    const field = model.params.find((p) => p.name === param);
    if (field?.isMedia) input[field.name] = field.isArray ? [media.imageUrl] : media.imageUrl;
    else if (field?.isPrompt && param in input) {
      // Suno's simple mode takes gptDescriptionPrompt, not prompt.
      delete input[param];
      for (const other of model.params.filter((p) => p.isPrompt && p.name !== param)) input[other.name] = 'a song about the sea';
    } else break;
    res = await send(input);
  }
  return { ...res, input };
}
