/**
 * The value check of `outputSchema` as it was before the compiled validator (an interpreter that
 * walks the schema for every value, follows every `$ref` again and compiles each pattern with
 * `new RegExp` on every use), kept word for word as the reference: the unit tests compare verdicts
 * with it and bench/output-validator.ts compares speed. Never call it with hostile input.
 */
type Json = Record<string, unknown>;

export interface ValueError {
  pointer: string;
  message: string;
}

const MAX_VALUE_ERRORS = 20;
const MAX_VALUE_DEPTH = 64;

/** Checks a value against a schema that passed checkOutputSchema; the first errors, with pointers. */
export function interpretOutput(schema: Json, value: unknown): ValueError[] {
  const errors: ValueError[] = [];
  const defs = isPlainObject(schema.$defs) ? schema.$defs : {};
  const visit = (node: Json, v: unknown, pointer: string, depth: number): void => {
    if (errors.length >= MAX_VALUE_ERRORS) return;
    if (depth > MAX_VALUE_DEPTH) {
      errors.push({ pointer, message: 'the value is nested too deeply' });
      return;
    }
    if (typeof node.$ref === 'string') {
      const target = defs[fromPointerToken(node.$ref.slice('#/$defs/'.length))];
      if (isPlainObject(target)) visit(target, v, pointer, depth + 1);
      return;
    }
    if (Array.isArray(node.anyOf)) {
      const fits = node.anyOf.some((branch) => isPlainObject(branch) && errorsOf(branch, v, depth + 1).length === 0);
      if (!fits) errors.push({ pointer, message: 'the value matches none of the anyOf branches' });
      return;
    }
    if (Array.isArray(node.enum) && !node.enum.some((e) => e === v)) {
      errors.push({ pointer, message: `must be one of ${node.enum.map((e) => JSON.stringify(e)).join(', ').slice(0, 300)}` });
      return;
    }
    if (node.type === undefined) return;
    const types = Array.isArray(node.type) ? (node.type as string[]) : [node.type as string];
    const type = types.find((t) => hasType(v, t));
    if (type === undefined) {
      errors.push({ pointer, message: `must be ${types.join(' or ')}` });
      return;
    }
    if (type === 'string' && typeof v === 'string') checkString(node, v, pointer, errors);
    else if ((type === 'number' || type === 'integer') && typeof v === 'number') checkNumber(node, v, pointer, errors);
    else if (type === 'array' && Array.isArray(v)) {
      if (typeof node.minItems === 'number' && v.length < node.minItems) errors.push({ pointer, message: `must have at least ${node.minItems} items` });
      if (typeof node.maxItems === 'number' && v.length > node.maxItems) errors.push({ pointer, message: `must have at most ${node.maxItems} items` });
      if (isPlainObject(node.items)) {
        const items = node.items;
        v.forEach((item, i) => {
          visit(items, item, `${pointer}/${i}`, depth + 1);
        });
      }
    } else if (type === 'object' && isPlainObject(v)) {
      const properties = isPlainObject(node.properties) ? node.properties : {};
      for (const key of Object.keys(v)) if (!Object.hasOwn(properties, key)) errors.push({ pointer: `${pointer}/${pointerToken(key)}`, message: 'is not a property of the schema' });
      for (const [key, sub] of Object.entries(properties)) {
        if (!Object.hasOwn(v, key)) errors.push({ pointer: `${pointer}/${pointerToken(key)}`, message: 'is required' });
        else if (isPlainObject(sub)) visit(sub, v[key], `${pointer}/${pointerToken(key)}`, depth + 1);
      }
    }
  };
  const errorsOf = (node: Json, v: unknown, depth: number): ValueError[] => {
    const saved = errors.splice(0);
    visit(node, v, '', depth);
    const found = errors.splice(0);
    errors.push(...saved);
    return found;
  };
  visit(schema, value, '', 0);
  return errors.slice(0, MAX_VALUE_ERRORS);
}

function hasType(v: unknown, type: string): boolean {
  switch (type) {
    case 'null':
      return v === null;
    case 'string':
      return typeof v === 'string';
    case 'boolean':
      return typeof v === 'boolean';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return typeof v === 'number' && Number.isInteger(v);
    case 'array':
      return Array.isArray(v);
    case 'object':
      return isPlainObject(v);
    default:
      return false;
  }
}

const FORMAT_CHECKS: Record<string, RegExp> = {
  'date-time': /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/,
  time: /^\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})?$/,
  date: /^\d{4}-\d{2}-\d{2}$/,
  duration: /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/,
  email: /^[^\s@]+@[^\s@]+\.[^\s@]+$/,
  hostname: /^(?=.{1,253}$)([a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)(\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/,
  ipv4: /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/,
  ipv6: /^[0-9a-fA-F:]*:[0-9a-fA-F:.]*$/,
  uuid: /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/,
};

function checkString(node: Json, v: string, pointer: string, errors: ValueError[]): void {
  if (typeof node.pattern === 'string' && !new RegExp(node.pattern, 'u').test(v)) errors.push({ pointer, message: `does not match the pattern ${node.pattern.slice(0, 100)}` });
  if (typeof node.format === 'string') {
    const check = FORMAT_CHECKS[node.format];
    if (check && !check.test(v)) errors.push({ pointer, message: `is not a valid ${node.format}` });
  }
}

function checkNumber(node: Json, v: number, pointer: string, errors: ValueError[]): void {
  if (typeof node.minimum === 'number' && v < node.minimum) errors.push({ pointer, message: `must be at least ${node.minimum}` });
  if (typeof node.maximum === 'number' && v > node.maximum) errors.push({ pointer, message: `must be at most ${node.maximum}` });
  if (typeof node.exclusiveMinimum === 'number' && v <= node.exclusiveMinimum) errors.push({ pointer, message: `must be more than ${node.exclusiveMinimum}` });
  if (typeof node.exclusiveMaximum === 'number' && v >= node.exclusiveMaximum) errors.push({ pointer, message: `must be less than ${node.exclusiveMaximum}` });
  if (typeof node.multipleOf === 'number' && Math.abs(v / node.multipleOf - Math.round(v / node.multipleOf)) > 1e-9) errors.push({ pointer, message: `must be a multiple of ${node.multipleOf}` });
}

function isPlainObject(value: unknown): value is Json {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** RFC 6901: ~ as ~0, / as ~1. */
function pointerToken(token: string): string {
  return token.replaceAll('~', '~0').replaceAll('/', '~1');
}

function fromPointerToken(token: string): string {
  return token.replaceAll('~1', '/').replaceAll('~0', '~');
}
