/**
 * The built-in embedding models (issue 20, item 3): text in, one vector per input out, billed per
 * input token. USD per 1M tokens. OpenAI's two `text-embedding-3` models at OpenAI's list prices
 * (platform.openai.com/docs/pricing); `bge-m3`, an open model served by OpenAI-compatible endpoints
 * (DeepInfra, vLLM, Ollama, TEI), at DeepInfra's list price as we know it (not rechecked: an operator
 * routing it elsewhere sets `models.bge-m3.inputPrice`). docs/decisions.md "Embeddings".
 */
import { ConfigError } from '../../config-error.ts';
import { usdToMicro } from '../../money.ts';
import type { ModelOverride } from '../catalog-overrides.ts';

export interface EmbeddingModelDefinition {
  id: string;
  name: string;
  vendor: string;
  description: string;
  inputMicroPerMillion: number;
  /** The size of a vector when the request gives no `dimensions`. */
  defaultDimensions: number;
  /** The `dimensions` the model accepts, inclusive; absent: its vectors have one size (`dimensions` refused). */
  dimensions?: { min: number; max: number };
  /** The most tokens one input may have (the vendor refuses more). */
  maxInputTokens: number;
  hidden: boolean;
}

interface EmbeddingSeed {
  readonly id: string;
  readonly name: string;
  readonly vendor: string;
  readonly description: string;
  readonly input: string;
  readonly defaultDimensions: number;
  readonly dimensions?: { readonly min: number; readonly max: number };
  readonly maxInputTokens: number;
}

const EMBEDDING_SEEDS: readonly EmbeddingSeed[] = [
  {
    id: 'text-embedding-3-small',
    name: 'Text Embedding 3 Small',
    vendor: 'OpenAI',
    description: 'OpenAI embeddings, 1,536 dimensions (shortened with `dimensions`).',
    input: '0.02',
    defaultDimensions: 1536,
    dimensions: { min: 1, max: 1536 },
    maxInputTokens: 8191,
  },
  {
    id: 'text-embedding-3-large',
    name: 'Text Embedding 3 Large',
    vendor: 'OpenAI',
    description: 'OpenAI embeddings, 3,072 dimensions (shortened with `dimensions`).',
    input: '0.13',
    defaultDimensions: 3072,
    dimensions: { min: 1, max: 3072 },
    maxInputTokens: 8191,
  },
  {
    id: 'bge-m3',
    name: 'BGE-M3',
    vendor: 'BAAI',
    description: 'Open multilingual embeddings (BAAI/bge-m3), 1,024 dimensions, on OpenAI-compatible endpoints.',
    input: '0.01',
    defaultDimensions: 1024,
    maxInputTokens: 8192,
  },
];

export function builtInEmbeddingModels(): EmbeddingModelDefinition[] {
  return EMBEDDING_SEEDS.map((s) => ({
    id: s.id,
    name: s.name,
    vendor: s.vendor,
    description: s.description,
    inputMicroPerMillion: usdToMicro(s.input),
    defaultDimensions: s.defaultDimensions,
    ...(s.dimensions ? { dimensions: { ...s.dimensions } } : {}),
    maxInputTokens: s.maxInputTokens,
    hidden: false,
  }));
}

/** An operator's `models.<id>` for an embedding model: name, description, visibility and `inputPrice`. */
export function applyEmbeddingOverride(def: EmbeddingModelDefinition, o: ModelOverride, field: string): void {
  if (o.pricing !== undefined) throw new ConfigError(`${field}.pricing`, 'applies to media models only; embedding models take inputPrice');
  for (const key of ['outputPrice', 'cachedInputPrice'] as const) {
    if (o[key] !== undefined) throw new ConfigError(`${field}.${key}`, 'does not apply to embedding models (they are billed per input token: inputPrice)');
  }
  if (o.hidden !== undefined) def.hidden = o.hidden;
  if (o.name !== undefined) def.name = o.name;
  if (o.description !== undefined) def.description = o.description;
  if (o.inputPrice !== undefined) {
    try {
      def.inputMicroPerMillion = usdToMicro(o.inputPrice);
    } catch {
      throw new ConfigError(`${field}.inputPrice`, `must be a USD amount with at most 6 decimals, got ${JSON.stringify(o.inputPrice)}`);
    }
  }
}
