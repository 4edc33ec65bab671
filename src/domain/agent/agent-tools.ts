/**
 * The tools the agent's orchestrator model may call, as OpenAI-style function tools (the text layer
 * translates them for Anthropic routes). Their names and argument shapes are a contract between the
 * run engine (services/agent/engine), the built-in local planner (providers/chat/local) and scripted
 * test upstreams; change them together.
 */
import type { FunctionTool } from '../chat/chat-request.types.ts';
import type { Modality } from './modality.ts';
import type { ToolResult } from './tool-result.ts';

export type { Modality };

export const AGENT_TOOL_NAMES = ['generate_image', 'generate_video', 'generate_music', 'ask_clarification', 'propose_model_change', 'run_subtask', 'search_context', 'read_context', 'finish'] as const;
export type AgentToolName = (typeof AGENT_TOOL_NAMES)[number];

export const MEDIA_TOOL_NAMES = ['generate_image', 'generate_video', 'generate_music'] as const;
export type MediaToolName = (typeof MEDIA_TOOL_NAMES)[number];

/** What the media tools make. */
export type MediaModality = Exclude<Modality, 'text'>;

export function isAgentToolName(name: string): name is AgentToolName {
  return (AGENT_TOOL_NAMES as readonly string[]).includes(name);
}

export function isMediaToolName(name: string): name is MediaToolName {
  return (MEDIA_TOOL_NAMES as readonly string[]).includes(name);
}

/** The modality a media tool produces (its registry entry's). */
export function modalityOfTool(name: MediaToolName): MediaModality {
  return AGENT_TOOLS[name].modality;
}

/** The media tool that makes `modality`. */
export function mediaToolFor(modality: MediaModality): MediaToolName {
  return MEDIA_TOOL_NAMES.find((name) => AGENT_TOOLS[name].modality === modality) ?? 'generate_image';
}

/**
 * Arguments of the media tools. `model` (a catalog id of that modality) is optional: without it the
 * run's default for the modality applies. `options` carries model-specific input fields (as
 * GET /api/v1/catalog/{id} lists them) and is validated by the catalog like any generation input.
 */
export interface MediaToolArguments {
  prompt: string;
  model?: string;
  aspectRatio?: string;
  durationSeconds?: number;
  referenceArtifactIds?: string[];
  instrumental?: boolean;
  title?: string;
  style?: string;
  options?: Record<string, unknown>;
}

export interface AskClarificationArguments {
  question: string;
  choices?: string[];
}

export interface ProposeModelChangeArguments {
  modality: Modality;
  toModelId: string;
  reason: string;
  /** How many reference images the operation needs (a model that accepts fewer cannot perform it). */
  requiredReferenceImages?: number;
}

export interface SubtaskArguments {
  instructions: string;
  context?: string;
}

export interface FinishArguments {
  summary: string;
  /** The artifacts that make up the main outcome; default: every artifact of the run. */
  artifactIds?: string[];
}

/** Model ids the tools may name, per modality (an enum in the schema helps models and the local planner). */
export interface ToolModelChoices {
  image: string[];
  video: string[];
  music: string[];
  text: string[];
  /** While a media model is pinned (its tool lists only it): every model a change may propose. */
  proposable?: string[];
}

const ASPECT_RATIOS = ['16:9', '9:16', '1:1', '4:3', '3:4', '3:2', '2:3', '21:9'];

function modelProperty(ids: string[], modality: string): Record<string, unknown> {
  return {
    type: 'string',
    description: `A ${modality} model id; omit it to use the run's default ${modality} model.`,
    ...(ids.length > 0 ? { enum: ids } : {}),
  };
}

const REFERENCES = {
  type: 'array',
  description: 'Artifacts of this conversation to use as reference images (their ids, art_…).',
  items: { type: 'string' },
  maxItems: 14,
};

const OPTIONS = {
  type: 'object',
  description: 'Model-specific input fields, as GET /api/v1/catalog/{model} lists them (validated like any generation input).',
};

/** What the registry knows of a tool: its function schema, and when the orchestrator is offered it. */
export type AgentToolSpec<N extends AgentToolName = AgentToolName> = {
  name: N;
  /** Offered only when the run references other conversations (rule 13). */
  needsContext: boolean;
  schema(models: ToolModelChoices): FunctionTool;
} & (N extends MediaToolName ? { /** The medium it makes: the run engine dispatches it as a paid generation. */ modality: MediaModality } : unknown);

/**
 * The tool registry: every tool by name, in the order the orchestrator is offered them. Its type asks
 * for an entry per name of AGENT_TOOL_NAMES, so a tool without a schema does not compile; the run
 * engine's handlers (services/agent/engine/tool-registry.ts) are keyed the same way, and the local
 * planner reads the media tools and their modalities from here.
 */
export const AGENT_TOOLS: { readonly [N in AgentToolName]: AgentToolSpec<N> } = {
  search_context: {
    name: 'search_context',
    needsContext: true,
    schema: () => ({
      type: 'function',
      name: 'search_context',
      description: 'Search the conversations this one references (listed in the system prompt) for messages; answers short fragments with their message ids.',
      parameters: { type: 'object', properties: { query: { type: 'string', description: 'A few words to find.' } }, required: ['query'] },
    }),
  },
  read_context: {
    name: 'read_context',
    needsContext: true,
    schema: () => ({
      type: 'function',
      name: 'read_context',
      description: 'Read one message found by search_context, 4,000 characters at a time (offset to go on).',
      parameters: { type: 'object', properties: { messageId: { type: 'string' }, offset: { type: 'integer', minimum: 0 } }, required: ['messageId'] },
    }),
  },
  generate_image: {
    name: 'generate_image',
    needsContext: false,
    modality: 'image',
    schema: (models) => ({
      type: 'function',
      name: 'generate_image',
      description: 'Generate one or more images. Billed at the model\'s normal tariff within the run\'s spending limit.',
      parameters: {
        type: 'object',
        properties: {
          prompt: { type: 'string', description: 'What the image shows, in detail.' },
          model: modelProperty(models.image, 'image'),
          aspectRatio: { type: 'string', enum: ASPECT_RATIOS },
          referenceArtifactIds: REFERENCES,
          options: OPTIONS,
        },
        required: ['prompt'],
      },
    }),
  },
  generate_video: {
    name: 'generate_video',
    needsContext: false,
    modality: 'video',
    schema: (models) => ({
      type: 'function',
      name: 'generate_video',
      description: 'Generate a video clip. Billed at the model\'s normal tariff within the run\'s spending limit.',
      parameters: {
        type: 'object',
        properties: {
          prompt: { type: 'string', description: 'What happens in the video, in detail.' },
          model: modelProperty(models.video, 'video'),
          durationSeconds: { type: 'number', minimum: 1, maximum: 60, description: 'Wanted length; the nearest length the model offers is used.' },
          aspectRatio: { type: 'string', enum: ASPECT_RATIOS },
          referenceArtifactIds: REFERENCES,
          options: OPTIONS,
        },
        required: ['prompt'],
      },
    }),
  },
  generate_music: {
    name: 'generate_music',
    needsContext: false,
    modality: 'music',
    schema: (models) => ({
      type: 'function',
      name: 'generate_music',
      description: 'Generate music (a song, a jingle, a soundtrack). Billed at the model\'s normal tariff within the run\'s spending limit.',
      parameters: {
        type: 'object',
        properties: {
          prompt: { type: 'string', description: 'A description of the music (style, mood, instruments, what it is for).' },
          model: modelProperty(models.music, 'music'),
          instrumental: { type: 'boolean', description: 'No vocals.' },
          title: { type: 'string' },
          style: { type: 'string', description: 'Genre and style tags.' },
          options: OPTIONS,
        },
        required: ['prompt'],
      },
    }),
  },
  ask_clarification: {
    name: 'ask_clarification',
    needsContext: false,
    schema: () => ({
      type: 'function',
      name: 'ask_clarification',
      description: 'Ask the user one question and wait for the answer. Use it only when the request cannot be carried out without it.',
      parameters: {
        type: 'object',
        properties: {
          question: { type: 'string' },
          choices: { type: 'array', items: { type: 'string' }, maxItems: 8, description: 'Suggested answers, if any.' },
        },
        required: ['question'],
      },
    }),
  },
  propose_model_change: {
    name: 'propose_model_change',
    needsContext: false,
    schema: (models) => ({
      type: 'function',
      name: 'propose_model_change',
      description:
        'Ask the user to approve another model when the current one cannot perform an operation (for example it accepts too few reference images). The run waits for the decision.',
      parameters: {
        type: 'object',
        properties: {
          modality: { type: 'string', enum: ['text', 'image', 'video', 'music'] },
          toModelId: { type: 'string', description: 'The proposed model id.', ...(models.proposable?.length ? { enum: models.proposable } : {}) },
          reason: { type: 'string' },
          requiredReferenceImages: { type: 'integer', minimum: 0 },
        },
        required: ['modality', 'toModelId', 'reason'],
      },
    }),
  },
  run_subtask: {
    name: 'run_subtask',
    needsContext: false,
    schema: () => ({
      type: 'function',
      name: 'run_subtask',
      description:
        'Hand a piece of text work (a script, a list of shots, a summary of a long file) to a helper on your own model. It sees only the context you give it and answers in text; it cannot make media. At most two per request, each within a third of the spending limit and 60 seconds; billed like any call.',
      parameters: {
        type: 'object',
        properties: {
          instructions: { type: 'string', description: 'What the helper should do.' },
          context: { type: 'string', description: 'Everything it needs to know; it sees nothing else.' },
        },
        required: ['instructions'],
      },
    }),
  },
  finish: {
    name: 'finish',
    needsContext: false,
    schema: () => ({
      type: 'function',
      name: 'finish',
      description: 'End the run with its main outcome: a short summary for the user and the artifacts that answer the request.',
      parameters: {
        type: 'object',
        properties: {
          summary: { type: 'string' },
          artifactIds: { type: 'array', items: { type: 'string' } },
        },
        required: ['summary'],
      },
    }),
  },
};

/** The function tools offered to the orchestrator, in the registry's order. */
export function agentToolDefinitions(models: ToolModelChoices, options: { context?: boolean } = {}): FunctionTool[] {
  return Object.values(AGENT_TOOLS)
    .filter((tool) => !tool.needsContext || options.context === true)
    .map((tool) => tool.schema(models));
}

/** What a media tool's result says to the model (JSON in the tool message). */
export interface MediaToolResult extends ToolResult {
  status: 'succeeded' | 'failed' | 'refused';
  model: string;
  generationId?: string;
  artifacts?: Array<{ artifactId: string; type: string; url: string }>;
  costMicroUsd?: string;
  error?: string;
  /** Adjustments the engine made (a duration rounded to what the model offers, a default model). */
  notes?: string[];
}

/** The marker the title request carries in its system prompt (the local planner answers it). */
export const TITLE_INSTRUCTION = 'Write a short title (at most six words) for a conversation that starts with the message below. Answer with the title only.';
