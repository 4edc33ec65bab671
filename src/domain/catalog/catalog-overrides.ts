/** What an operator's configuration may change in the catalog: prices, names and visibility of built-in models, and added models. The config reader fills these; the catalog applies them. */
export interface PriceTierOverride {
  key: string;
  price: string;
  isDefault?: boolean;
  dimensions?: Record<string, string>;
}

export interface ModelOverride {
  hidden?: boolean;
  name?: string;
  description?: string;
  /** Media models: replaces the price tiers. */
  pricing?: PriceTierOverride[];
  /** Text models: USD per 1M tokens. */
  inputPrice?: string;
  outputPrice?: string;
  cachedInputPrice?: string;
  /** Text models: cache writes with the 5-minute and the one-hour lifetime, USD per 1M tokens. */
  cacheWritePrice?: string;
  cacheWrite1hPrice?: string;
  /** Text models: server-side web searches, USD per 1,000. */
  webSearchPrice?: string;
}

/** A text model the operator adds beside the built-in ones. */
export interface AddedChatModel {
  id: string;
  name: string;
  vendor: string | undefined;
  inputPrice: string;
  outputPrice: string;
  cachedInputPrice: string | undefined;
  /** Cache writes (5-minute, one-hour lifetime), USD per 1M tokens; absent: cache marks of that lifetime are refused. */
  cacheWritePrice?: string | undefined;
  cacheWrite1hPrice?: string | undefined;
  /** Server-side web searches, USD per 1,000; absent: web search tools are refused. */
  webSearchPrice?: string | undefined;
  protocols: Array<'openai' | 'anthropic'>;
  contextWindow: number;
  maxOutputTokens: number;
}

/** A media model the operator adds as a copy of a built-in one (same input family), under its own id and prices. */
export interface AddedMediaModel {
  id: string;
  name: string;
  basedOn: string;
  vendor: string | undefined;
  pricing: PriceTierOverride[] | undefined;
}
