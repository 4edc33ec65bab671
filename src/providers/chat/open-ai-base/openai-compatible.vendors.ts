/**
 * The OpenAI-compatible chat provider types, one entry each over `open-ai-base`: adding a vendor that
 * speaks OpenAI's `/chat/completions` is an entry here (its default base URL, key header, fixed
 * headers), and the registry offers it as a provider `type`. DeepSeek, xAI, Qwen, Gemini's compatible
 * endpoint, OpenRouter, vLLM and Ollama are served today by `openai` with their `baseUrl`.
 */
import type { OpenAiCompatibleVendor } from './open-ai-base.provider.ts';

export const OPENAI_COMPATIBLE_VENDORS: Readonly<Record<string, OpenAiCompatibleVendor>> = {
  openai: { defaultBaseUrl: 'https://api.openai.com/v1' },
};
