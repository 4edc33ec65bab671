/**
 * JSON Schema (the subset our OpenAPI document uses) to a TypeScript type expression. Small on purpose:
 * the dashboard needs the shapes of the responses, not a validator, so keywords that only narrow a
 * value (pattern, maxLength, format, minimum) are dropped, and a schema that says nothing is `unknown`.
 */
export type JsonSchema = { [keyword: string]: unknown };

const INDENT = '  ';

function isSchema(value: unknown): value is JsonSchema {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A JSON value as a TypeScript literal type (strings single-quoted). */
export function literal(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'string') return `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new Error(`unsupported literal ${JSON.stringify(value)}`);
}

/** A property name as a key: bare when it is an identifier, quoted otherwise. */
export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : literal(name);
}

/** A description as a JSDoc line (or lines), safe to close. */
export function docComment(description: unknown, indent: string): string {
  if (typeof description !== 'string' || description.trim() === '') return '';
  const lines = description.trim().replace(/\*\//g, '*\\/').split('\n');
  if (lines.length === 1) return `${indent}/** ${lines[0]} */\n`;
  return `${indent}/**\n${lines.map((line) => `${indent} * ${line}`.trimEnd()).join('\n')}\n${indent} */\n`;
}

function union(parts: string[]): string {
  const unique = [...new Set(parts)];
  if (unique.includes('unknown')) return 'unknown';
  return unique.length === 1 ? (unique[0] ?? 'never') : unique.join(' | ');
}

/** Whether a union or intersection sits at the top level of `type` (outside braces, brackets, quotes). */
function isCompound(type: string): boolean {
  let depth = 0;
  let quoted = false;
  for (let i = 0; i < type.length; i++) {
    const c = type[i];
    if (quoted) {
      if (c === '\\') i++;
      else if (c === "'") quoted = false;
    } else if (c === "'") quoted = true;
    else if (c === '{' || c === '[' || c === '(') depth++;
    else if (c === '}' || c === ']' || c === ')') depth--;
    else if (depth === 0 && (c === '|' || c === '&')) return true;
  }
  return false;
}

/** Wraps a union or intersection so it can take `[]` or join an intersection. */
function grouped(type: string): string {
  return isCompound(type) ? `(${type})` : type;
}

function objectType(schema: JsonSchema, depth: number, refName: (ref: string) => string): string {
  const properties = isSchema(schema.properties) ? schema.properties : {};
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  const inner = INDENT.repeat(depth + 1);
  const lines: string[] = [];
  for (const [name, property] of Object.entries(properties)) {
    const optional = required.has(name) ? '' : '?';
    const type = isSchema(property) ? schemaToTs(property, depth + 1, refName) : 'unknown';
    lines.push(`${isSchema(property) ? docComment(property.description, inner) : ''}${inner}${propertyKey(name)}${optional}: ${type};\n`);
  }
  const extra = schema.additionalProperties;
  const named = Object.keys(properties).length > 0;
  // Properties without additionalProperties: the listed fields are all the dashboard may rely on.
  let index: string | undefined;
  if (isSchema(extra)) index = schemaToTs(extra, depth + 1, refName);
  else if (extra === true || (extra === undefined && !named)) index = 'unknown';
  if (index !== undefined) {
    if (!named) return `{ [key: string]: ${index} }`;
    lines.push(`${inner}[key: string]: ${index === 'unknown' ? 'unknown' : union([index, 'undefined'])};\n`);
  }
  if (lines.length === 0) return 'Record<string, never>';
  return `{\n${lines.join('')}${INDENT.repeat(depth)}}`;
}

function typeOf(name: string, schema: JsonSchema, depth: number, refName: (ref: string) => string): string {
  switch (name) {
    case 'string':
      return 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array': {
      if (Array.isArray(schema.prefixItems)) {
        return `[${(schema.prefixItems as unknown[]).map((item) => (isSchema(item) ? schemaToTs(item, depth, refName) : 'unknown')).join(', ')}]`;
      }
      const items = isSchema(schema.items) ? schemaToTs(schema.items, depth, refName) : 'unknown';
      return `${grouped(items)}[]`;
    }
    case 'object':
      return objectType(schema, depth, refName);
    default:
      throw new Error(`unsupported JSON Schema type ${JSON.stringify(name)}`);
  }
}

/**
 * The TypeScript type of `schema`. `depth` is the indentation of the line the type starts on;
 * `refName` turns a `$ref` into the name of its type.
 */
export function schemaToTs(schema: JsonSchema, depth: number, refName: (ref: string) => string): string {
  if (typeof schema.$ref === 'string') return refName(schema.$ref);
  if ('const' in schema) return literal(schema.const);
  if (Array.isArray(schema.enum)) return union(schema.enum.map(literal));
  for (const keyword of ['oneOf', 'anyOf'] as const) {
    const choices = schema[keyword];
    if (Array.isArray(choices)) {
      // Keywords beside the choices (a shared `type` or `description`) apply to each; only the choices shape it.
      return union(choices.map((choice) => (isSchema(choice) ? schemaToTs(choice, depth, refName) : 'unknown')));
    }
  }
  if (Array.isArray(schema.allOf)) {
    const parts = schema.allOf.map((part) => (isSchema(part) ? schemaToTs(part, depth, refName) : 'unknown')).filter((p) => p !== 'unknown');
    return parts.length === 0 ? 'unknown' : parts.map(grouped).join(' & ');
  }
  const type = schema.type;
  let result: string;
  if (typeof type === 'string') result = typeOf(type, schema, depth, refName);
  else if (Array.isArray(type)) result = union(type.map((t) => typeOf(String(t), schema, depth, refName)));
  else if (isSchema(schema.properties)) result = objectType(schema, depth, refName);
  else if (isSchema(schema.items)) result = typeOf('array', schema, depth, refName);
  else return 'unknown';
  return schema.nullable === true ? union([result, 'null']) : result;
}
