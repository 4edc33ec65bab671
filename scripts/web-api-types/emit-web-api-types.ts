/**
 * The dashboard's API types from the OpenAPI document: every shared schema (`components`), and the
 * body of each operation's successful JSON answer (`ApiResponses`, keyed `METHOD /path`). Request
 * bodies are left out: the dashboard builds them from forms (and the media bodies, one per catalog
 * model, would be most of the file).
 *
 * One file would be over 2,000 lines, so the answers are written one file per area (an operation's
 * tag; the agent's many routes by their resource, /api/v1/agent/<resource>), and an index joins them
 * into one `ApiResponses`. Every file must stay under MAX_GENERATED_LINES: the emitter refuses to
 * write one that is not, rather than let a generated file grow past what the project allows.
 */
import { docComment, type JsonSchema, literal, propertyKey, schemaToTs } from './schema-to-ts.ts';

export const WEB_API_TYPES_DIR = 'web/src/api/generated';
/** The index: what the dashboard imports (`ApiResponses`, `components`). */
export const WEB_API_TYPES_PATH = `${WEB_API_TYPES_DIR}/api-types.ts`;
export const WEB_API_TYPES_COMMAND = 'npm run gen:web-types';
export const MAX_GENERATED_LINES = 500;

const COMPONENT_REF = '#/components/schemas/';
const METHODS = ['get', 'put', 'post', 'patch', 'delete'] as const;
const COMPONENTS_FILE = 'components.ts';

interface Operation {
  summary?: string;
  tags?: string[];
  responses?: Record<string, { content?: Record<string, { schema?: JsonSchema }> }>;
}

/** One generated file: its path from the repository root and its text. */
export interface GeneratedFile {
  path: string;
  text: string;
}

/** The answers of one area: the file and interface that hold them, and their lines. */
interface Area {
  file: string;
  interfaceName: string;
  body: string;
}

const HEADER = `/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by ${WEB_API_TYPES_COMMAND}
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */
`;

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

/** The area's words ("agent-runs"): the tag, or for the agent's routes the resource after /agent/. */
function areaWords(path: string, operation: Operation): string[] {
  const agentResource = /^\/api\/v1\/agent\/([a-z-]+)/.exec(path)?.[1];
  if (agentResource) return ['agent', ...agentResource.split('-')];
  const tag = operation.tags?.[0] ?? 'other';
  return tag.toLowerCase().split(/[^a-z0-9]+/).filter(Boolean);
}

function componentsFile(components: Record<string, JsonSchema>): string {
  let out = `${HEADER}
/** The shared schemas, as the document's \`#/components/schemas\`. */
export interface components {
  schemas: {
`;
  for (const name of Object.keys(components).sort()) {
    const schema = components[name] ?? {};
    out += `${docComment(schema.description, '    ')}    ${propertyKey(name)}: ${schemaToTs(schema, 2, refName)};\n`;
  }
  return `${out}  };
}
`;
}

function areaFile(area: Area): string {
  const usesComponents = area.body.includes("components['schemas']");
  const imports = usesComponents ? `\nimport type { components } from './${COMPONENTS_FILE}';\n` : '';
  return `${HEADER}${imports}
/** The body of each of these operations' successful JSON answer, by \`METHOD /path\`. */
export interface ${area.interfaceName} {
${area.body}}
`;
}

function indexFile(areas: Area[]): string {
  const imports = areas.map((area) => `import type { ${area.interfaceName} } from './${area.file}';\n`).join('');
  return `${HEADER}
${imports}
export type { components } from './${COMPONENTS_FILE}';

/** The body of each operation's successful JSON answer, by \`METHOD /path\` (path parameters in braces). */
export interface ApiResponses
  extends ${areas.map((area) => area.interfaceName).join(',\n    ')} {}
`;
}

/** The areas of the document's operations, in the order the document first names them. */
function areasOf(paths: Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>): Area[] {
  const areas = new Map<string, Area>();
  for (const [path, operations] of Object.entries(paths)) {
    for (const method of METHODS) {
      const operation = operations[method];
      const schema = operation && successSchema(operation);
      if (!schema) continue;
      const words = areaWords(path, operation);
      const key = words.join('-');
      let area = areas.get(key);
      if (!area) {
        const interfaceName = `${words.map((w) => w.charAt(0).toUpperCase() + w.slice(1)).join('')}Responses`;
        area = { file: `${key}.responses.ts`, interfaceName, body: '' };
        areas.set(key, area);
      }
      area.body += `${docComment(operation.summary, '  ')}  '${method.toUpperCase()} ${path}': ${schemaToTs(schema, 1, refName)};\n`;
    }
  }
  return [...areas.values()];
}

/** Every generated file: the shared schemas, one file per area, and the index (last). */
export function emitWebApiTypeFiles(document: JsonSchema): GeneratedFile[] {
  const components = ((document.components as JsonSchema | undefined)?.schemas ?? {}) as Record<string, JsonSchema>;
  const paths = (document.paths ?? {}) as Record<string, Partial<Record<(typeof METHODS)[number], Operation>>>;
  const areas = areasOf(paths);
  const files: GeneratedFile[] = [
    { path: `${WEB_API_TYPES_DIR}/${COMPONENTS_FILE}`, text: componentsFile(components) },
    ...areas.map((area) => ({ path: `${WEB_API_TYPES_DIR}/${area.file}`, text: areaFile(area) })),
    { path: WEB_API_TYPES_PATH, text: indexFile(areas) },
  ];
  for (const file of files) {
    const lines = file.text.split('\n').length - 1;
    if (lines > MAX_GENERATED_LINES) throw new Error(`${file.path} would be ${lines} lines (at most ${MAX_GENERATED_LINES}): split its area further`);
  }
  return files;
}

/** The index file's text (WEB_API_TYPES_PATH). */
export function emitWebApiTypes(document: JsonSchema): string {
  const index = emitWebApiTypeFiles(document).find((file) => file.path === WEB_API_TYPES_PATH);
  if (!index) throw new Error('the index of the web API types was not emitted');
  return index.text;
}
