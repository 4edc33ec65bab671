/**
 * Built-in workflows (SPEC rule 14): versioned recipes of media nodes the run engine carries out
 * itself, node by node, with the same durable dispatch as the orchestrator's tool calls (so a node that
 * was dispatched is never dispatched again after a restart). A version never changes once published:
 * a new recipe is a new version, and a message may pin one.
 */
import type { MediaToolArguments, MediaToolName } from './agent-tools.ts';

export interface WorkflowField {
  type: 'string' | 'integer';
  description: string;
  enum?: string[];
  minimum?: number;
  maximum?: number;
  maxLength?: number;
}

export interface WorkflowNode {
  id: string;
  tool: MediaToolName;
  label: string;
  dependsOn: string[];
  /** The tool's arguments from the input and the artifacts of the nodes it depends on. */
  args(input: Record<string, unknown>, artifacts: Record<string, string[]>): MediaToolArguments;
}

export interface Workflow {
  id: string;
  version: number;
  name: string;
  description: string;
  fields: Record<string, WorkflowField>;
  required: string[];
  nodes: WorkflowNode[];
}

const text = (value: unknown, fallback = ''): string => (typeof value === 'string' && value.trim() !== '' ? value.trim() : fallback);

export const WORKFLOWS: readonly Workflow[] = [
  {
    id: 'product-cards',
    version: 1,
    name: 'Product cards',
    description: 'Three pictures of a product for a shop: a wide hero shot, a square card and a close-up of its detail.',
    fields: {
      productName: { type: 'string', description: 'What the product is called', maxLength: 200 },
      description: { type: 'string', description: 'What it looks like and is made of', maxLength: 2000 },
      style: { type: 'string', description: 'A visual style (optional), e.g. "bright studio"', maxLength: 200 },
    },
    required: ['productName', 'description'],
    nodes: [
      {
        id: 'hero',
        tool: 'generate_image',
        label: 'Hero shot (16:9)',
        dependsOn: [],
        args: (i) => ({ prompt: `Hero product shot of ${text(i.productName)}: ${text(i.description)}. ${text(i.style, 'Clean studio light')}.`, aspectRatio: '16:9' }),
      },
      {
        id: 'card',
        tool: 'generate_image',
        label: 'Square card (1:1)',
        dependsOn: ['hero'],
        args: (i, a) => ({ prompt: `Square shop card of ${text(i.productName)} on a plain background. ${text(i.style, 'Clean studio light')}.`, aspectRatio: '1:1', referenceArtifactIds: (a.hero ?? []).slice(0, 1) }),
      },
      {
        id: 'detail',
        tool: 'generate_image',
        label: 'Detail close-up (4:3)',
        dependsOn: ['hero'],
        args: (i, a) => ({ prompt: `Close-up of the material and detail of ${text(i.productName)}: ${text(i.description)}.`, aspectRatio: '4:3', referenceArtifactIds: (a.hero ?? []).slice(0, 1) }),
      },
    ],
  },
  {
    id: 'script-to-video',
    version: 1,
    name: 'Script to video',
    description: 'A key frame from the script, then a video clip that starts from it.',
    fields: {
      script: { type: 'string', description: 'What happens, in a few sentences', maxLength: 4000 },
      durationSeconds: { type: 'integer', description: 'Length of the clip (optional, default 10)', minimum: 4, maximum: 20 },
      aspectRatio: { type: 'string', description: 'Shape (optional, default 16:9)', enum: ['16:9', '9:16', '1:1'] },
    },
    required: ['script'],
    nodes: [
      { id: 'keyframe', tool: 'generate_image', label: 'Key frame', dependsOn: [], args: (i) => ({ prompt: `Opening frame of a film: ${text(i.script)}`, aspectRatio: text(i.aspectRatio, '16:9') }) },
      {
        id: 'video',
        tool: 'generate_video',
        label: 'Video clip',
        dependsOn: ['keyframe'],
        args: (i, a) => ({
          prompt: text(i.script),
          durationSeconds: typeof i.durationSeconds === 'number' ? i.durationSeconds : 10,
          aspectRatio: text(i.aspectRatio, '16:9'),
          referenceArtifactIds: (a.keyframe ?? []).slice(0, 1),
        }),
      },
    ],
  },
  {
    id: 'cover-plus-music',
    version: 1,
    name: 'Cover plus music',
    description: 'A square cover picture and a piece of music with the same title and mood.',
    fields: {
      title: { type: 'string', description: 'The title', maxLength: 120 },
      mood: { type: 'string', description: 'The mood, e.g. "calm summer evening"', maxLength: 300 },
      genre: { type: 'string', description: 'A genre (optional)', maxLength: 120 },
    },
    required: ['title', 'mood'],
    nodes: [
      { id: 'cover', tool: 'generate_image', label: 'Cover', dependsOn: [], args: (i) => ({ prompt: `Square cover art titled "${text(i.title)}", ${text(i.mood)}`, aspectRatio: '1:1' }) },
      { id: 'music', tool: 'generate_music', label: 'Music', dependsOn: [], args: (i) => ({ prompt: `${text(i.mood)}${i.genre ? `, ${text(i.genre)}` : ''}`, title: text(i.title), ...(i.genre ? { style: text(i.genre) } : {}) }) },
    ],
  },
];

export function findWorkflow(id: string, version?: number): Workflow | undefined {
  const versions = WORKFLOWS.filter((w) => w.id === id);
  if (version === undefined) return versions.sort((a, b) => b.version - a.version)[0];
  return versions.find((w) => w.version === version);
}

/** The input schema of a workflow as JSON Schema (what GET /agent/workflows/{id} shows and forms are built from). */
export function inputSchemaOf(workflow: Workflow): Record<string, unknown> {
  return { type: 'object', additionalProperties: false, required: workflow.required, properties: workflow.fields };
}

/** Checks given input fields (missing required ones are allowed: the run asks for them). */
export function checkWorkflowInput(workflow: Workflow, input: Record<string, unknown>): { field: string; message: string } | undefined {
  for (const [name, value] of Object.entries(input)) {
    const field = workflow.fields[name];
    if (!field) return { field: name, message: `${name} is not an input of ${workflow.id}; its inputs: ${Object.keys(workflow.fields).join(', ')}` };
    const problem = fieldProblem(field, value);
    if (problem) return { field: name, message: `${name} ${problem}` };
  }
  return undefined;
}

/** An answer given in words, read as the field's type; undefined when it does not fit. */
export function coerceAnswer(field: WorkflowField, answer: string): string | number | undefined {
  const value: unknown = field.type === 'integer' ? Number(answer.trim()) : answer.trim();
  return fieldProblem(field, value) === undefined ? (value as string | number) : undefined;
}

function fieldProblem(field: WorkflowField, value: unknown): string | undefined {
  if (field.type === 'string') {
    if (typeof value !== 'string' || value.trim() === '') return 'must be a non-empty text';
    if (field.maxLength !== undefined && value.length > field.maxLength) return `must be at most ${field.maxLength} characters`;
    if (field.enum && !field.enum.includes(value)) return `must be one of ${field.enum.join(', ')}`;
    return undefined;
  }
  if (typeof value !== 'number' || !Number.isInteger(value)) return 'must be a whole number';
  if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`;
  if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`;
  return undefined;
}
