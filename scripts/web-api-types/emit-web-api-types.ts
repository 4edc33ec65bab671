/**
 * The dashboard's API types from the OpenAPI document: every shared schema (`components`), and the
 * body of each operation's successful JSON answer (`ApiResponses`, keyed `METHOD /path`). Request
 * bodies are left out: the dashboard builds them from forms (and the media bodies, one per catalog
 * model, would be most of the file).
 */
import { docComment, type JsonSchema, literal, propertyKey, schemaToTs } from './schema-to-ts.ts';

export const WEB_API_TYPES_PATH = 'web/src/api/generated/api-types.ts';
export const WEB_API_TYPES_COMMAND = 'npm run gen:web-types';

const COMPONENT_REF = '#/components/schemas/';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;

interface Operation {
  summary?: string;
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

function refName(ref: string): string {
  if (!ref.startsWith(COMPONENT_REF)) throw new Error(`unsupported $ref ${ref}`);
  return `components['schemas'][${literal(ref.slice(COMPONENT_REF.length))}]`;
}

/** The first 2xx answer with a JSON body, if the operation has one. */
function successSchema(operation: Operation): JsonSchema | undefined {
  const statuses = Object.keys(operation.responses ?? {})
    .filter((status) => /^2\d\d$/.test(status))
    .sort();
  for (const status of statuses) {
    const schema = operation.responses?.[status]?.content?.['application/json']?.schema;
    if (schema) return schema;
  }
  return undefined;
}

export function emitWebApiTypes(document: JsonSchema): string {
  const components = ((document.components as JsonSchema | undefined)?.schemas ?? {}) as Record<string, JsonSchema>;
  const paths = (document.paths ?? {}) as Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  let out = `/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by ${WEB_API_TYPES_COMMAND}
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

/** The shared schemas, as the document's \`#/components/schemas\`. */
export interface components {
  schemas: {
`;
  for (const name of Object.keys(components).sort()) {
    const schema = components[name] ?? {};
    out += `${docComment(schema.description, '    ')}    ${propertyKey(name)}: ${schemaToTs(schema, 2, refName)};\n`;
  }
  out += `  };
}

/** The body of each operation's successful JSON answer, by \`METHOD /path\` (path parameters in braces). */
export interface ApiResponses {
`;
  for (const [path, operations] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = operations[method];
      const schema = operation && successSchema(operation);
      if (!schema) continue;
      out += `${docComment(operation.summary, '  ')}  '${method.toUpperCase()} ${path}': ${schemaToTs(schema, 1, refName)};\n`;
    }
  }
  out += '}\n';
  return out;
}
