import { isFilled, missingOf, requiredMarks, rulesOfParams, unmetRequirements } from '../../../src/domain/catalog/dsl/required-when.ts';
import type { ParamField, ParamOption } from '../api/index.ts';
import { FieldNotes } from './common.tsx';
import { MediaUpload } from './MediaUpload.tsx';

/**
 * A form generated from a catalog model's `params`: options become selects, numbers get their bounds,
 * booleans are checkboxes, arrays are lists with add and remove buttons, arrays of objects are groups
 * of fields, and media fields take URLs or a file from disk. Untouched fields are not sent, so the gateway applies its
 * own defaults (shown in each hint).
 */
export type ObjectItem = Record<string, string>;
export type FormValue = string | boolean | string[] | ObjectItem[];
export type FormValues = Record<string, FormValue | undefined>;

const idOf = (name: string, suffix = '') => `param-${name}${suffix}`;

export function describeDefault(field: ParamField): string | undefined {
  if (field.default === undefined || field.default === null) return undefined;
  if (Array.isArray(field.default)) return field.default.length ? field.default.join(', ') : undefined;
  if (typeof field.default === 'boolean') return field.default ? 'on' : 'off';
  return String(field.default);
}

function hintOf(field: ParamField): string | undefined {
  const parts: string[] = [];
  if (field.description) parts.push(field.description);
  const dflt = describeDefault(field);
  if (dflt !== undefined) parts.push(`Default: ${dflt}.`);
  if (field.minimum !== undefined || field.maximum !== undefined) parts.push(`From ${field.minimum ?? '…'} to ${field.maximum ?? '…'}.`);
  if (field.maxItems !== undefined) parts.push(`At most ${field.maxItems} ${field.maxItems === 1 ? 'item' : 'items'}.`);
  if (field.isMedia) parts.push(`Public URL of ${field.mediaKind === 'image' ? 'an image' : field.mediaKind === 'audio' ? 'an audio file' : field.mediaKind === 'video' ? 'a video' : 'a media file'}, or a file uploaded from disk.`);
  return parts.join(' ') || undefined;
}

function scalarValue(field: ParamField, text: string): string | number {
  const option = field.options?.find((o) => String(o.value) === text);
  if (option) return option.value;
  if (field.kind === 'number') return Number(text);
  return text;
}

/** The `input` object to send: only the fields that were filled in. */
/**
 * The fields that apply now: all of them, unless a choice decides (`fieldsByValue`, as music's
 * action does); then the choice and the fields its current value (or default) uses.
 */
export function activeParams(params: ParamField[], values: FormValues): ParamField[] {
  const decider = params.find((p) => p.fieldsByValue);
  if (!decider?.fieldsByValue) return params;
  const chosen = values[decider.name];
  const value = typeof chosen === 'string' && chosen !== '' ? chosen : String(decider.default ?? '');
  const allowed = new Set([decider.name, ...(decider.fieldsByValue[value] ?? [])]);
  // Suno's simple mode (a description) and custom mode (lyrics and a style) are never shown together.
  if (allowed.has('custom') && allowed.has('gptDescriptionPrompt')) {
    const customField = params.find((p) => p.name === 'custom');
    const custom = typeof values.custom === 'boolean' ? values.custom : customField?.default === true;
    for (const name of custom ? ['gptDescriptionPrompt'] : ['prompt', 'tags']) allowed.delete(name);
  }
  return params.filter((p) => allowed.has(p.name));
}

export function buildInput(params: ParamField[], values: FormValues): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  // Values typed for another action stay in the form but are not sent.
  for (const field of activeParams(params, values)) {
    const value = values[field.name];
    if (value === undefined) continue;
    if (field.isArray && field.fields) {
      const items = (value as ObjectItem[])
        .filter((item) => Object.values(item).some((v) => v !== ''))
        .map((item) => {
          const out: Record<string, unknown> = {};
          for (const sub of field.fields ?? []) {
            const v = item[sub.name];
            if (v !== undefined && v !== '') out[sub.name] = sub.kind === 'boolean' ? v === 'true' : scalarValue(sub, v);
          }
          return out;
        });
      if (items.length) input[field.name] = items;
    } else if (field.isArray) {
      const items = (value as string[]).filter((v) => v.trim() !== '').map((v) => (field.kind === 'boolean' ? v === 'true' : scalarValue(field, v.trim())));
      if (items.length) input[field.name] = items;
    } else if (field.kind === 'boolean') {
      input[field.name] = value;
    } else if (typeof value === 'string' && value.trim() !== '') {
      input[field.name] = scalarValue(field, field.isPrompt || field.multiline ? value : value.trim());
    }
  }
  return input;
}

/** What the gateway will validate: the defaults of the fields that apply, then what was filled in. */
function effectiveInput(params: ParamField[], values: FormValues): Record<string, unknown> {
  const input: Record<string, unknown> = {};
  for (const field of activeParams(params, values)) if (field.default !== undefined && field.default !== null) input[field.name] = field.default;
  return { ...input, ...buildInput(params, values) };
}

/**
 * The fields required now, each with its mark: always-required ones, and those the published rules
 * require in this action and mode ("required", or "required: this or Audio URL" for alternatives).
 */
export function requiredNow(params: ParamField[], values: FormValues): Map<string, string> {
  const input = effectiveInput(params, values);
  const labelOf = (name: string) => params.find((p) => p.name === name)?.label ?? name;
  const marks = new Map<string, string>();
  for (const field of params) if (field.required) marks.set(field.name, 'required');
  for (const [name, others] of requiredMarks(rulesOfParams(params), input)) {
    if (!marks.has(name)) marks.set(name, others.length ? `required: this or ${others.map(labelOf).join(' or ')}` : 'required');
  }
  return marks;
}

/**
 * The required fields still empty, by label ("Tags", "Source task ID or Audio URL"), always-required ones first:
 * the same rules the gateway's validation applies, so Generate is blocked with words, not a 400.
 */
export function missingRequired(params: ParamField[], values: FormValues): string[] {
  const active = activeParams(params, values);
  const input = effectiveInput(params, values);
  const labelOf = (name: string) => params.find((p) => p.name === name)?.label ?? name;
  const always = active.filter((p) => p.required && !isFilled(input[p.name])).map((p) => p.label);
  const unmet = unmetRequirements(rulesOfParams(active), input).flatMap((r) => missingOf(r, input).map((need) => need.map(labelOf).join(' or ')));
  return [...new Set([...always, ...unmet])];
}

/** `input.size` or `input.imageUrls[0]` → the top-level field name. */
export function fieldOfParam(param: string | undefined): string | undefined {
  if (!param?.startsWith('input.')) return undefined;
  return param.slice(6).split(/[.[]/)[0];
}

interface ParamFormProps {
  params: ParamField[];
  values: FormValues;
  onChange: (name: string, value: FormValue | undefined) => void;
  errorField?: string | undefined;
  errorMessage?: string | undefined;
}

export function ParamForm(props: ParamFormProps) {
  const visible = activeParams(props.params, props.values).filter((p) => !p.deprecated || props.values[p.name] !== undefined);
  const required = requiredNow(props.params, props.values);
  return (
    <div className="param-form">
      {visible.map((field) => (
        <ParamInput
          key={field.name}
          field={required.has(field.name) ? { ...field, required: true } : field}
          requiredMark={required.get(field.name)}
          value={props.values[field.name]}
          onChange={(v) => props.onChange(field.name, v)}
          error={props.errorField === field.name ? props.errorMessage : undefined}
        />
      ))}
    </div>
  );
}

function Label(props: { field: ParamField; htmlFor?: string; asLegend?: boolean; mark?: string | undefined }) {
  const mark = props.mark ?? (props.field.required ? 'required' : undefined);
  const text = (
    <>
      {props.field.label}
      {mark ? <span className="required"> ({mark})</span> : null}
    </>
  );
  return props.asLegend ? <legend>{text}</legend> : <label htmlFor={props.htmlFor}>{text}</label>;
}

function Hint(props: { id: string; field: ParamField; error?: string | undefined }) {
  return <FieldNotes id={props.id} hint={hintOf(props.field)} error={props.error} />;
}

function describe(id: string, field: ParamField, error?: string): string | undefined {
  const ids = [hintOf(field) ? `${id}-hint` : '', error ? `${id}-error` : ''].filter(Boolean);
  return ids.length ? ids.join(' ') : undefined;
}

function optionLabel(option: ParamOption, field: ParamField): string {
  return field.default !== undefined && String(field.default) === String(option.value) ? `${option.label} (default)` : option.label;
}

function ScalarControl(props: { field: ParamField; id: string; value: string; onChange: (v: string) => void; error?: string | undefined; label?: string }) {
  const { field, id } = props;
  const common = {
    id,
    'aria-describedby': describe(id, field, props.error),
    'aria-invalid': props.error ? true : undefined,
    'aria-required': field.required ? true : undefined,
    ...(props.label ? { 'aria-label': props.label } : {}),
  };
  if (field.options?.length) {
    return (
      <select {...common} value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        <option value="">{field.default !== undefined && field.default !== null ? `Default (${describeDefault(field)})` : field.required ? 'Choose…' : '— not set —'}</option>
        {field.options.map((o) => (
          <option key={String(o.value)} value={String(o.value)}>
            {optionLabel(o, field)}
          </option>
        ))}
      </select>
    );
  }
  if (field.kind === 'number') {
    return (
      <input
        {...common}
        type="number"
        inputMode="decimal"
        step="any"
        min={field.minimum}
        max={field.maximum}
        placeholder={describeDefault(field)}
        value={props.value}
        onChange={(e) => props.onChange(e.target.value)}
      />
    );
  }
  if (field.multiline || field.isPrompt) {
    return <textarea {...common} rows={field.isPrompt ? 4 : 3} maxLength={field.maxLength} value={props.value} onChange={(e) => props.onChange(e.target.value)} />;
  }
  const text = (
    <input
      {...common}
      type={field.isMedia ? 'url' : 'text'}
      inputMode={field.isMedia ? 'url' : undefined}
      placeholder={field.isMedia ? 'https://…' : describeDefault(field)}
      maxLength={field.maxLength}
      value={props.value}
      onChange={(e) => props.onChange(e.target.value)}
    />
  );
  if (!field.isMedia) return text;
  // A URL, or a file from disk whose gateway file URL then fills the field.
  return (
    <span className="media-field">
      {text}
      <MediaUpload id={`${id}-file`} label={props.label ?? field.label} mediaKind={field.mediaKind} onUploaded={props.onChange} />
    </span>
  );
}

function ParamInput(props: { field: ParamField; value: FormValue | undefined; onChange: (v: FormValue | undefined) => void; error?: string | undefined; requiredMark?: string | undefined }) {
  const { field, value, error, requiredMark } = props;
  const id = idOf(field.name);

  if (field.isArray && field.fields) {
    const items = (value as ObjectItem[] | undefined) ?? [];
    const canAdd = field.maxItems === undefined || items.length < field.maxItems;
    return (
      <fieldset className="field field-group" aria-describedby={describe(id, field, error)}>
        <Label field={field} asLegend mark={requiredMark} />
        {items.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity beyond their position.
          <div className="array-row" key={index}>
            {(field.fields ?? []).map((sub) => (
              <div className="field" key={sub.name}>
                <label htmlFor={idOf(field.name, `-${index}-${sub.name}`)}>
                  {sub.label} {index + 1}
                </label>
                <ScalarControl
                  field={sub}
                  id={idOf(field.name, `-${index}-${sub.name}`)}
                  value={item[sub.name] ?? ''}
                  onChange={(v) => props.onChange(items.map((it, i) => (i === index ? { ...it, [sub.name]: v } : it)))}
                />
              </div>
            ))}
            <button type="button" className="button button-small" onClick={() => props.onChange(items.filter((_, i) => i !== index))}>
              Remove {field.label.toLowerCase()} {index + 1}
            </button>
          </div>
        ))}
        {canAdd ? (
          <button type="button" className="button button-small" onClick={() => props.onChange([...items, {}])}>
            Add {field.label.toLowerCase()}
          </button>
        ) : null}
        <Hint id={id} field={field} error={error} />
      </fieldset>
    );
  }

  if (field.isArray) {
    const items = (value as string[] | undefined) ?? [];
    const canAdd = field.maxItems === undefined || items.length < field.maxItems;
    return (
      <fieldset className="field field-group" aria-describedby={describe(id, field, error)}>
        <Label field={field} asLegend mark={requiredMark} />
        {items.map((item, index) => (
          // biome-ignore lint/suspicious/noArrayIndexKey: rows have no identity beyond their position.
          <div className="array-row array-row-inline" key={index}>
            <ScalarControl
              field={{ ...field, isArray: false, default: undefined }}
              id={idOf(field.name, `-${index}`)}
              label={`${field.label} ${index + 1}`}
              value={item}
              onChange={(v) => props.onChange(items.map((it, i) => (i === index ? v : it)))}
            />
            <button type="button" className="button button-small" aria-label={`Remove ${field.label} ${index + 1}`} onClick={() => props.onChange(items.filter((_, i) => i !== index))}>
              Remove
            </button>
          </div>
        ))}
        {canAdd ? (
          <button type="button" className="button button-small" onClick={() => props.onChange([...items, ''])}>
            Add {field.isMedia ? 'URL' : 'item'}
          </button>
        ) : null}
        <Hint id={id} field={field} error={error} />
      </fieldset>
    );
  }

  if (field.kind === 'boolean') {
    const checked = typeof value === 'boolean' ? value : field.default === true;
    return (
      <div className="field field-checkbox">
        <input id={id} type="checkbox" checked={checked} aria-describedby={describe(id, field, error)} onChange={(e) => props.onChange(e.target.checked)} />
        <Label field={field} htmlFor={id} mark={requiredMark} />
        <Hint id={id} field={field} error={error} />
      </div>
    );
  }

  return (
    <div className="field">
      <Label field={field} htmlFor={id} mark={requiredMark} />
      <ScalarControl field={field} id={id} value={typeof value === 'string' ? value : ''} onChange={(v) => props.onChange(v === '' ? undefined : v)} error={error} />
      <Hint id={id} field={field} error={error} />
    </div>
  );
}
