/**
 * The small part of JSON Schema that vendor request documents use (type, required, properties, enum,
 * items, bounds, lengths, pattern), checked the way a strict upstream does: a field the document does
 * not list is refused like a misspelt one. Returns the first problem, naming the field by its path.
 */
export interface FieldSchema {
  type?: 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';
  enum?: readonly unknown[];
  required?: readonly string[];
  properties?: Readonly<Record<string, FieldSchema>>;
  items?: FieldSchema;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  maxItems?: number;
  pattern?: string;
}

function typeOk(type: FieldSchema['type'], value: unknown): boolean {
  switch (type) {
    case undefined:
      return true;
    case 'string':
      return typeof value === 'string';
    case 'integer':
      return typeof value === 'number' && Number.isInteger(value);
    case 'number':
      return typeof value === 'number' && Number.isFinite(value);
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return value !== null && typeof value === 'object' && !Array.isArray(value);
  }
}

/** What a strict upstream refuses, with where and why; vendors word it their own way (fal: pydantic, Replicate: `invalid_fields`). */
export interface SchemaIssue {
  /** Property names and item indexes from the document's root to the offending value. */
  path: Array<string | number>;
  kind: 'type' | 'enum' | 'bounds' | 'length' | 'pattern' | 'items' | 'required' | 'unknown';
  message: string;
  /** The values an enum allows (kind `enum`). */
  allowed?: readonly unknown[];
}

function where(base: string, path: Array<string | number>): string {
  return path.reduce<string>((out, p) => (typeof p === 'number' ? `${out}[${p}]` : out ? `${out}.${p}` : p), base);
}

/** The first problem as a sentence naming the field by its path (kie's fake words it this way). */
export function schemaProblem(schema: FieldSchema, value: unknown, path: string): string | undefined {
  const issue = schemaIssue(schema, value);
  if (!issue) return undefined;
  return `${where(path, issue.path)} ${issue.message}`;
}

/** The first problem found in `value`, or undefined when the document allows it. */
export function schemaIssue(schema: FieldSchema, value: unknown, path: Array<string | number> = []): SchemaIssue | undefined {
  if (!typeOk(schema.type, value)) return { path, kind: 'type', message: `must be of type ${schema.type}` };
  if (schema.enum && !schema.enum.includes(value)) {
    return { path, kind: 'enum', message: `must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')} (got ${JSON.stringify(value)})`, allowed: schema.enum };
  }
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return { path, kind: 'bounds', message: `must be >= ${schema.minimum}` };
    if (schema.maximum !== undefined && value > schema.maximum) return { path, kind: 'bounds', message: `must be <= ${schema.maximum}` };
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) return { path, kind: 'length', message: 'must not be empty' };
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return { path, kind: 'length', message: `is longer than ${schema.maxLength} characters` };
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return { path, kind: 'pattern', message: 'is malformed' };
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return { path, kind: 'items', message: `needs at least ${schema.minItems} items` };
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return { path, kind: 'items', message: `takes at most ${schema.maxItems} items` };
    if (schema.items) {
      for (const [i, item] of value.entries()) {
        const issue = schemaIssue(schema.items, item, [...path, i]);
        if (issue) return issue;
      }
    }
  }
  if (schema.properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (record[name] === undefined) return { path: [...path, name], kind: 'required', message: 'is required' };
    for (const [name, field] of Object.entries(record)) {
      if (field === undefined) continue;
      const fieldSchema = schema.properties[name];
      if (!fieldSchema) return { path: [...path, name], kind: 'unknown', message: 'is not a parameter of this endpoint' };
      const issue = schemaIssue(fieldSchema, field, [...path, name]);
      if (issue) return issue;
    }
  }
  return undefined;
}
