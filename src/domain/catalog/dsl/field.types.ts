/**
 * The shapes a family declaration is written in. One `FieldDef` drives validation, the published
 * `params` entry, the capabilities and the JSON Schema of the field.
 */
import type { MediaKind } from '../catalog.types.ts';
import type { Capability } from './capabilities.ts';

/**
 * `url`: an http(s) URL; `url-or-data-uri`: also a `data:` URI (base64 media inline);
 * `hex-color`: `#rgb` or `#rrggbb`; `aspect-ratio`: `w:h` with whole numbers.
 */
export type StringFormat = 'url' | 'url-or-data-uri' | 'hex-color' | 'aspect-ratio';

export interface OptionDef {
  readonly value: string | number;
  readonly label?: string;
  /** Capabilities this value gives the model (e.g. the `action` value `upscale`). */
  readonly caps?: readonly Capability[];
}

export interface StringSpec {
  readonly type: 'string';
  /** 1 refuses the empty string (every required string is non-empty anyway). */
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly format?: StringFormat;
  /** Holds a URL of user media of this kind (`isMedia`). */
  readonly media?: MediaKind;
  readonly prompt?: boolean;
  readonly multiline?: boolean;
  /** Holds the id of an earlier task (followed by the dispatcher, see `taskReferences`). */
  readonly taskRef?: boolean;
  /** Accepted values by pattern, with the wording used in the refusal. */
  readonly pattern?: { readonly regex: RegExp; readonly says: string };
}

export interface NumberSpec {
  readonly type: 'number';
  readonly integer?: boolean;
  readonly minimum?: number;
  readonly maximum?: number;
}

export interface BooleanSpec {
  readonly type: 'boolean';
}

export interface EnumSpec {
  readonly type: 'enum';
  readonly options: readonly OptionDef[];
  /** Values that exist upstream but that we refuse, with the reason given in the message. */
  readonly unavailable?: Readonly<Record<string, string>>;
}

export interface ObjectSpec {
  readonly type: 'object';
  readonly fields: readonly FieldDef[];
}

export type ItemSpec = StringSpec | NumberSpec | EnumSpec | ObjectSpec;

export interface ArraySpec {
  readonly type: 'array';
  readonly items: ItemSpec;
  readonly minItems?: number;
  readonly maxItems?: number;
}

export type ValueSpec = StringSpec | NumberSpec | BooleanSpec | EnumSpec | ObjectSpec | ArraySpec;

export type DefaultValue = string | number | boolean | ReadonlyArray<string | number | boolean>;

export interface FieldMeta {
  readonly name: string;
  readonly label?: string;
  readonly description?: string;
  readonly required?: boolean;
  readonly default?: DefaultValue;
  readonly deprecated?: boolean;
  /** Capabilities the model has when it has this field. */
  readonly caps?: readonly Capability[];
}

export type FieldDef = ValueSpec & FieldMeta;
