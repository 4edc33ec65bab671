/** Short constructors for family declarations; each returns a plain `FieldDef`. */
import type { MediaKind } from '../catalog.types.ts';
import type { ArraySpec, EnumSpec, FieldDef, FieldMeta, ItemSpec, NumberSpec, OptionDef, StringSpec } from './field.types.ts';

type Meta = Omit<FieldMeta, 'name'>;
type StringOpts = Meta & Omit<StringSpec, 'type'>;
type NumberOpts = Meta & Omit<NumberSpec, 'type'>;
type ArrayOpts = Meta & Omit<ArraySpec, 'type' | 'items'>;

export function text(name: string, opts: StringOpts = {}): FieldDef {
  return { name, type: 'string', ...opts };
}

/** The prompt: `isPrompt`, multiline. */
export function prompt(opts: StringOpts = {}): FieldDef {
  return {
    name: 'prompt',
    type: 'string',
    prompt: true,
    multiline: true,
    description: 'What to generate, in natural language.',
    ...opts,
  };
}

/** One URL of user media. `dataUri` also accepts an inline `data:` URI. */
export function mediaUrl(name: string, media: MediaKind, opts: Meta & { dataUri?: boolean } = {}): FieldDef {
  const { dataUri, ...meta } = opts;
  return { name, type: 'string', format: dataUri ? 'url-or-data-uri' : 'url', media, ...meta };
}

/** A plain (non-media) URL, such as a web page. */
export function link(name: string, opts: Meta = {}): FieldDef {
  return { name, type: 'string', format: 'url', ...opts };
}

export function mediaUrls(name: string, media: MediaKind, opts: ArrayOpts & { dataUri?: boolean } = {}): FieldDef {
  const { dataUri, ...rest } = opts;
  return { name, type: 'array', items: { type: 'string', format: dataUri ? 'url-or-data-uri' : 'url', media }, ...rest };
}

export function num(name: string, opts: NumberOpts = {}): FieldDef {
  return { name, type: 'number', ...opts };
}

export function int(name: string, opts: NumberOpts = {}): FieldDef {
  return { name, type: 'number', integer: true, ...opts };
}

export function bool(name: string, opts: Meta = {}): FieldDef {
  return { name, type: 'boolean', ...opts };
}

export function options(values: ReadonlyArray<string | number | OptionDef>): OptionDef[] {
  return values.map((v) => (typeof v === 'object' ? v : { value: v }));
}

export function choice(
  name: string,
  values: ReadonlyArray<string | number | OptionDef>,
  opts: Meta & { unavailable?: EnumSpec['unavailable'] } = {},
): FieldDef {
  return { name, type: 'enum', options: options(values), ...opts };
}

export function list(name: string, items: ItemSpec, opts: ArrayOpts = {}): FieldDef {
  return { name, type: 'array', items, ...opts };
}

export function objects(name: string, fields: FieldDef[], opts: ArrayOpts = {}): FieldDef {
  return { name, type: 'array', items: { type: 'object', fields }, ...opts };
}

export function object(name: string, fields: FieldDef[], opts: Meta = {}): FieldDef {
  return { name, type: 'object', fields, ...opts };
}

/** The id of an earlier task of this service. */
export function taskId(name: string, opts: Meta = {}): FieldDef {
  return { name, type: 'string', minLength: 1, maxLength: 200, taskRef: true, ...opts };
}

export function taskIds(name: string, opts: ArrayOpts = {}): FieldDef {
  return { name, type: 'array', items: { type: 'string', minLength: 1, maxLength: 200, taskRef: true }, ...opts };
}

/** A seed; non-negative integer, at most 2^32 - 1 unless the family says less. */
export function seed(opts: NumberOpts = {}): FieldDef {
  return {
    name: 'seed',
    type: 'number',
    integer: true,
    minimum: 0,
    maximum: 4_294_967_295,
    description: 'Fixes the random seed so that the same request gives a similar result.',
    caps: ['seed'],
    ...opts,
  };
}

/** Image reference and source fields. */
export function imageUrls(name: string, opts: ArrayOpts & { dataUri?: boolean } = {}): FieldDef {
  return mediaUrls(name, 'image', opts);
}
