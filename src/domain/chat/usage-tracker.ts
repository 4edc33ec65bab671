/**
 * Keeps the token usage an upstream has reported during a stream, and fills what it has not reported
 * with upper bounds (the prompt estimate, the UTF-8 bytes of the output seen), flagged `estimated`.
 * A stream cut before its usage arrived would otherwise bill nothing for tokens the upstream did
 * produce and charge us for.
 */
import type { ChatUsage } from './chat-response.types.ts';

export class UsageTracker {
  #input: number | undefined;
  #cached = 0;
  #creation = 0;
  #creation1h: number | undefined;
  #reasoning: number | undefined;
  #webSearches: number | undefined;
  #serviceTier: string | undefined;
  #searchesSeen = 0;
  #output: number | undefined;
  #outputBytes = 0;
  readonly #estimatedInput: number;

  constructor(estimatedInputTokens = 0) {
    this.#estimatedInput = estimatedInputTokens;
  }

  /** Counts that the upstream reported; later reports replace earlier ones (they are totals). */
  report(usage: Partial<Omit<ChatUsage, 'estimated'>>): void {
    if (usage.inputTokens !== undefined) this.#input = usage.inputTokens;
    if (usage.cachedInputTokens !== undefined) this.#cached = usage.cachedInputTokens;
    if (usage.cacheCreationTokens !== undefined) this.#creation = usage.cacheCreationTokens;
    if (usage.cacheCreation1hTokens !== undefined) this.#creation1h = usage.cacheCreation1hTokens;
    if (usage.reasoningTokens !== undefined) this.#reasoning = usage.reasoningTokens;
    if (usage.webSearchRequests !== undefined) this.#webSearches = usage.webSearchRequests;
    if (usage.serviceTier !== undefined) this.#serviceTier = usage.serviceTier;
    if (usage.outputTokens !== undefined) this.#output = usage.outputTokens;
  }

  /** A server-side web search seen in the answer (its `server_tool_use` block), for when the count is not reported. */
  addWebSearch(): void {
    this.#searchesSeen++;
  }

  /** Output text or argument text that reached us, for the fallback bound. */
  addOutput(text: string): void {
    this.#outputBytes += Buffer.byteLength(text, 'utf8');
  }

  get complete(): boolean {
    return this.#input !== undefined && this.#output !== undefined;
  }

  snapshot(): ChatUsage {
    const usage: ChatUsage = {
      inputTokens: this.#input ?? this.#estimatedInput,
      outputTokens: this.#output ?? this.#outputBytes,
      cachedInputTokens: this.#cached,
      cacheCreationTokens: this.#creation,
    };
    if (this.#creation1h !== undefined) usage.cacheCreation1hTokens = this.#creation1h;
    if (this.#reasoning !== undefined) usage.reasoningTokens = this.#reasoning;
    // A stream cut before its final usage still bills the searches it showed: each one was run.
    const searches = this.#webSearches ?? (this.#searchesSeen > 0 ? this.#searchesSeen : undefined);
    if (searches !== undefined) usage.webSearchRequests = searches;
    if (this.#serviceTier !== undefined) usage.serviceTier = this.#serviceTier;
    if (!this.complete) usage.estimated = true;
    return usage;
  }
}
