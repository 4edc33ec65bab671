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

export function schemaProblem(schema: FieldSchema, value: unknown, path: string): string | undefined {
  if (!typeOk(schema.type, value)) return `${path} must be of type ${schema.type}`;
  if (schema.enum && !schema.enum.includes(value)) return `${path} must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')} (got ${JSON.stringify(value)})`;
  if (typeof value === 'number') {
    if (schema.minimum !== undefined && value < schema.minimum) return `${path} must be >= ${schema.minimum}`;
    if (schema.maximum !== undefined && value > schema.maximum) return `${path} must be <= ${schema.maximum}`;
  }
  if (typeof value === 'string') {
    if (schema.minLength !== undefined && value.length < schema.minLength) return `${path} must not be empty`;
    if (schema.maxLength !== undefined && value.length > schema.maxLength) return `${path} is longer than ${schema.maxLength} characters`;
    if (schema.pattern !== undefined && !new RegExp(schema.pattern, 'u').test(value)) return `${path} is malformed`;
  }
  if (Array.isArray(value)) {
    if (schema.minItems !== undefined && value.length < schema.minItems) return `${path} needs at least ${schema.minItems} items`;
    if (schema.maxItems !== undefined && value.length > schema.maxItems) return `${path} takes at most ${schema.maxItems} items`;
    if (schema.items) {
      for (const [i, item] of value.entries()) {
        const problem = schemaProblem(schema.items, item, `${path}[${i}]`);
        if (problem) return problem;
      }
    }
  }
  if (schema.properties && value !== null && typeof value === 'object' && !Array.isArray(value)) {
    const record = value as Record<string, unknown>;
    for (const name of schema.required ?? []) if (record[name] === undefined) return `${path ? `${path}.` : ''}${name} is required`;
    for (const [name, field] of Object.entries(record)) {
      if (field === undefined) continue;
      const where = path ? `${path}.${name}` : name;
      const fieldSchema = schema.properties[name];
      if (!fieldSchema) return `${where} is not a parameter of this endpoint`;
      const problem = schemaProblem(fieldSchema, field, where);
      if (problem) return problem;
    }
  }
  return undefined;
}
