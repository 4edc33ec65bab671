/**
 * A text model as the catalog holds it: its definition in micro-USD, built from a built-in seed or an
 * operator's added model, and changed by the operator's override.
 */
import { ConfigError } from '../../config-error.ts';
import { usdToMicro } from '../../money.ts';
import type { AddedChatModel, ModelOverride } from '../catalog-overrides.ts';
import type { ChatModelDefinition } from '../catalog.types.ts';
import type { CHAT_MODELS, ChatModelSeed } from '../models/chat-models.ts';
import { applyOptionPrices, configPrice, scaled } from './chat-prices.ts';

export interface ChatEntry {
  def: ChatModelDefinition;
  hidden: boolean;
  /** Cache-write prices as multiples of the input price (the vendor publishes them so); 1 when absent. */
  cacheWriteFactor: { '5m': number; '1h': number };
}

const NO_CACHE_SURCHARGE = { '5m': 1, '1h': 1 } as const;

function longContextOf(seed: NonNullable<ChatModelSeed['longContext']>): NonNullable<ChatModelDefinition['longContext']> {
  if (seed.prices === undefined) return { aboveTokens: seed.above };
  return {
    aboveTokens: seed.above,
    prices: { inputMicroPerMillion: usdToMicro(seed.prices.input), outputMicroPerMillion: usdToMicro(seed.prices.output), cachedInputMicroPerMillion: usdToMicro(seed.prices.cachedInput) },
  };
}

export function chatEntry(seed: (typeof CHAT_MODELS)[number]): ChatEntry {
  const input = usdToMicro(seed.input);
  const factor = seed.cacheWrite ?? NO_CACHE_SURCHARGE;
  return {
    hidden: false,
    cacheWriteFactor: { ...factor },
    def: {
      id: seed.id,
      name: seed.name,
      vendor: seed.vendor,
      group: seed.group,
      description: seed.description,
      inputMicroPerMillion: input,
      outputMicroPerMillion: usdToMicro(seed.output),
      cachedInputMicroPerMillion: seed.cachedInput === undefined ? input : usdToMicro(seed.cachedInput),
      cacheWriteMicroPerMillion: scaled(input, factor['5m']),
      cacheWrite1hMicroPerMillion: scaled(input, factor['1h']),
      ...(seed.webSearchPer1k === undefined ? {} : { webSearchMicroPerCall: usdToMicro(seed.webSearchPer1k) / 1000 }),
      ...(seed.priority === undefined
        ? {}
        : {
            priority: {
              inputMicroPerMillion: usdToMicro(seed.priority.input),
              outputMicroPerMillion: usdToMicro(seed.priority.output),
              cachedInputMicroPerMillion: usdToMicro(seed.priority.cachedInput),
            },
          }),
      ...(seed.longContext === undefined ? {} : { longContext: longContextOf(seed.longContext) }),
      protocols: [...seed.protocols],
      contextWindow: seed.contextWindow,
      maxOutputTokens: seed.maxOutputTokens,
      capabilities: [...seed.capabilities],
      tags: [...seed.tags],
      ...(seed.sampling === undefined ? {} : { sampling: seed.sampling }),
    },
  };
}

/** An operator's added text model (`chatModels[i]`, named by `field`); its id was checked by the catalog. */
export function addedChatEntry(m: AddedChatModel, field: string): ChatEntry {
  if (m.protocols.length === 0) throw new ConfigError(`${field}.protocols`, 'must name at least one protocol (openai, anthropic)');
  const input = configPrice(`${field}.inputPrice`, m.inputPrice);
  const entry: ChatEntry = {
    hidden: false,
    cacheWriteFactor: { ...NO_CACHE_SURCHARGE },
    def: {
      id: m.id,
      name: m.name,
      vendor: m.vendor ?? 'custom',
      group: m.id,
      inputMicroPerMillion: input,
      outputMicroPerMillion: configPrice(`${field}.outputPrice`, m.outputPrice),
      cachedInputMicroPerMillion: m.cachedInputPrice === undefined ? input : configPrice(`${field}.cachedInputPrice`, m.cachedInputPrice),
      cacheWriteMicroPerMillion: input,
      cacheWrite1hMicroPerMillion: input,
      // Only what the configuration prices: an unpriced write would cost the operator what nobody is charged.
      cacheWriteLifetimes: [],
      protocols: [...m.protocols],
      contextWindow: m.contextWindow,
      maxOutputTokens: m.maxOutputTokens,
      capabilities: ['streaming'],
      tags: ['text', 'custom'],
    },
  };
  applyOptionPrices(entry.def, m, field);
  return entry;
}

/** The operator's override of a text model (`models.<id>`, named by `field`). */
export function applyChatOverride(chat: ChatEntry, o: ModelOverride, field: string): void {
  if (o.pricing !== undefined) throw new ConfigError(`${field}.pricing`, 'applies to media models only; text models take inputPrice, outputPrice and cachedInputPrice');
  if (o.hidden !== undefined) chat.hidden = o.hidden;
  if (o.name !== undefined) chat.def.name = o.name;
  if (o.description !== undefined) chat.def.description = o.description;
  const hadOwnCached = chat.def.cachedInputMicroPerMillion !== chat.def.inputMicroPerMillion;
  if (o.inputPrice !== undefined) {
    chat.def.inputMicroPerMillion = configPrice(`${field}.inputPrice`, o.inputPrice);
    if (!hadOwnCached) chat.def.cachedInputMicroPerMillion = chat.def.inputMicroPerMillion;
    // Cache writes are published as multiples of the input price: they follow it.
    chat.def.cacheWriteMicroPerMillion = scaled(chat.def.inputMicroPerMillion, chat.cacheWriteFactor['5m']);
    chat.def.cacheWrite1hMicroPerMillion = scaled(chat.def.inputMicroPerMillion, chat.cacheWriteFactor['1h']);
  }
  if (o.outputPrice !== undefined) chat.def.outputMicroPerMillion = configPrice(`${field}.outputPrice`, o.outputPrice);
  if (o.cachedInputPrice !== undefined) chat.def.cachedInputMicroPerMillion = configPrice(`${field}.cachedInputPrice`, o.cachedInputPrice);
  applyOptionPrices(chat.def, o, field);
}
