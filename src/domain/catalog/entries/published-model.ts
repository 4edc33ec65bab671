/** The frozen catalog entries GET /api/v1/catalog hands out, one per media or text model. */
import { microToUsd } from '../../money.ts';
import type { CatalogModel, ChatModelDefinition } from '../catalog.types.ts';
import { defaultCell, publishTiers } from '../pricing/price-table.ts';
import { chatPriceTiers } from './chat-prices.ts';
import type { MediaEntry } from './media-entry.ts';

/** Freezes a value and everything it holds (a published model is shared by every reader). */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

export function publishedMediaModel(e: MediaEntry): CatalogModel {
  return deepFreeze({
    id: e.info.id,
    group: e.info.group,
    name: e.info.name,
    description: e.description,
    type: e.info.type,
    kind: 'media',
    vendor: e.info.vendor,
    tags: [...e.def.tags],
    capabilities: [...e.capabilities],
    pricing: publishTiers(e.table),
    priceFrom: microToUsd(defaultCell(e.table).micro),
    priceUnit: e.table.unit,
    params: structuredClone(e.params),
  });
}

export function publishedChatModel(def: ChatModelDefinition): CatalogModel {
  return deepFreeze({
    id: def.id,
    group: def.group,
    name: def.name,
    ...(def.description !== undefined ? { description: def.description } : {}),
    type: 'TEXT',
    kind: 'llm',
    vendor: def.vendor,
    tags: [...def.tags],
    capabilities: [...def.capabilities],
    pricing: chatPriceTiers(def),
    priceFrom: microToUsd(def.inputMicroPerMillion),
    priceUnit: 'megatoken',
    params: [],
    protocols: [...def.protocols],
  });
}
