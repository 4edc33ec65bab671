/**
 * Generated from the gateway's OpenAPI document (GET /api/v1/openapi.json) by npm run gen:web-types
 * (scripts/gen-web-api-types.ts). Do not edit: change the route's response schema under src/http/routes
 * and regenerate. test/unit/web/web-api-types.test.ts fails while this file is not current.
 */

import type { components } from './components.ts';

/** The body of each of these operations' successful JSON answer, by `METHOD /path`. */
export interface CatalogResponses {
  /** Every model with its parameters and prices */
  'GET /api/v1/catalog': components['schemas']['CatalogModel'][];
  /** One model */
  'GET /api/v1/catalog/{id}': components['schemas']['CatalogModel'];
  /** Prices of every model, grouped by model */
  'GET /api/v1/cost': {
    currency?: 'USD';
    models?: {
      model: string;
      name: string;
      type: string;
      kind: 'media' | 'llm';
      priceUnit: 'generation' | 'second' | 'megatoken';
      priceFrom?: string;
      tiers: {
        key: string;
        /** USD per unit */
        price: string;
        /** The same price in integer micro-USD */
        priceMicroUsd: string;
        isDefault: boolean;
        dimensions?: { [key: string]: string };
      }[];
      /** Text models: USD per 1M tokens */
      tokens?: {
        input?: string;
        output?: string;
        cachedInput?: string;
        /** Cache writes with the default (5-minute) lifetime */
        cacheWrite?: string;
        /** Cache writes with a one-hour lifetime */
        cacheWrite1h?: string;
        /** Priority processing, where offered */
        priority?: {
          input?: string;
          output?: string;
          cachedInput?: string;
        };
        /** USD per 1,000 server-side web searches, where offered */
        webSearchPer1k?: string;
        /** Above abovePromptTokens prompt tokens the whole request costs these prices; without prices such prompts are refused */
        longContext?: {
          abovePromptTokens?: number;
          input?: string;
          output?: string;
          cachedInput?: string;
          refused?: boolean;
        };
      };
    }[];
  };
  /** Prices of one model */
  'GET /api/v1/cost/{model}': {
    currency?: 'USD';
    model?: string;
    name?: string;
    type?: string;
    kind?: 'media' | 'llm';
    priceUnit?: 'generation' | 'second' | 'megatoken';
    priceFrom?: string;
    tiers?: {
      key: string;
      /** USD per unit */
      price: string;
      /** The same price in integer micro-USD */
      priceMicroUsd: string;
      isDefault: boolean;
      dimensions?: { [key: string]: string };
    }[];
    /** Text models: USD per 1M tokens */
    tokens?: {
      input?: string;
      output?: string;
      cachedInput?: string;
      /** Cache writes with the default (5-minute) lifetime */
      cacheWrite?: string;
      /** Cache writes with a one-hour lifetime */
      cacheWrite1h?: string;
      /** Priority processing, where offered */
      priority?: {
        input?: string;
        output?: string;
        cachedInput?: string;
      };
      /** USD per 1,000 server-side web searches, where offered */
      webSearchPer1k?: string;
      /** Above abovePromptTokens prompt tokens the whole request costs these prices; without prices such prompts are refused */
      longContext?: {
        abovePromptTokens?: number;
        input?: string;
        output?: string;
        cachedInput?: string;
        refused?: boolean;
      };
    };
  };
}
