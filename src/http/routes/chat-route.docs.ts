/** OpenAPI pieces shared by the two text routes (the bodies are validated by the protocol parsers). */
type JsonSchema = Record<string, unknown>;

const openAiErrorSchema: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message', 'type', 'code'],
      properties: {
        message: { type: 'string' },
        type: { type: 'string', description: 'OpenAI error type (invalid_request_error, authentication_error, insufficient_quota, rate_limit_error, server_error)' },
        param: { type: ['string', 'null'] },
        code: { type: 'string', description: 'Our error code: invalid_input, unauthorized, insufficient_balance, rate_limited, upstream_error, …' },
      },
    },
  },
};

const anthropicErrorSchema: JsonSchema = {
  type: 'object',
  required: ['type', 'error'],
  properties: {
    type: { const: 'error' },
    error: {
      type: 'object',
      required: ['type', 'message'],
      properties: {
        type: { type: 'string', description: 'Anthropic error type (invalid_request_error, authentication_error, billing_error, rate_limit_error, overloaded_error, api_error)' },
        message: { type: 'string' },
        code: { type: 'string', description: 'Our error code' },
      },
    },
    request_id: { type: 'string' },
  },
};

export function chatErrorResponse(protocol: 'openai' | 'anthropic', description: string): { description: string; schema: JsonSchema } {
  return { description, schema: protocol === 'openai' ? openAiErrorSchema : anthropicErrorSchema };
}

const message: JsonSchema = {
  type: 'object',
  required: ['role', 'content'],
  properties: {
    role: { type: 'string' },
    content: { description: 'A string, or an array of content parts (text, image)', oneOf: [{ type: 'string' }, { type: 'array', items: { type: 'object' } }] },
    name: { type: 'string' },
  },
};

export function chatRequestBodyDoc(protocol: 'openai' | 'anthropic'): JsonSchema {
  if (protocol === 'openai') {
    return {
      type: 'object',
      required: ['model', 'messages'],
      additionalProperties: true,
      properties: {
        model: { type: 'string', description: 'A text model id (GET /api/v1/models)' },
        messages: { type: 'array', minItems: 1, items: message },
        stream: { type: 'boolean', default: false },
        stream_options: { type: 'object', properties: { include_usage: { type: 'boolean' } } },
        temperature: { type: 'number', minimum: 0, maximum: 2, description: 'Left out for a model that refuses it (claude-opus-4-7), and named in the x-switchboard-dropped-fields response header' },
        top_p: { type: 'number', minimum: 0, maximum: 1, description: 'Left out, and named in x-switchboard-dropped-fields, for a model that refuses it, or refuses it with temperature (claude-sonnet-4-6, claude-haiku-4-5)' },
        max_tokens: { type: 'integer', minimum: 1, description: 'Capped by the service; default min(model maximum, cap)' },
        max_completion_tokens: { type: 'integer', minimum: 1, description: 'Alias of max_tokens (wins when both are given)' },
        n: { type: 'integer', minimum: 1, maximum: 1 },
        tools: { type: 'array', items: { type: 'object' } },
        tool_choice: {},
        response_format: { type: 'object' },
        service_tier: { enum: ['auto', 'default', 'priority', 'fast'], description: 'priority and fast: billed at the model\'s priority prices (GET /api/v1/models), where offered' },
      },
      description:
        'Other fields of OpenAI\'s chat completions request are accepted and forwarded; a field that is not one is refused (400). web_search_options, audio, prediction, input_audio parts and service_tier flex/scale are refused: their prices are not published.',
    };
  }
  return {
    type: 'object',
    required: ['model', 'max_tokens', 'messages'],
    additionalProperties: true,
    properties: {
      model: { type: 'string', description: 'A model whose catalog `protocols` include `anthropic`' },
      max_tokens: { type: 'integer', minimum: 1, description: 'Capped by the service' },
      system: { description: 'A string or an array of text blocks' },
      messages: { type: 'array', minItems: 1, items: message },
      stream: { type: 'boolean', default: false },
      temperature: { type: 'number', minimum: 0, maximum: 1, description: 'Refused (400) for a model that refuses it: claude-opus-4-7 (temperature, top_p, top_k, a thinking budget), and with top_p for claude-sonnet-4-6 and claude-haiku-4-5' },
      tools: { type: 'array', items: { type: 'object' }, description: 'A web search tool needs max_uses (each search is billed and reserved); code execution tools are refused' },
      tool_choice: { type: 'object' },
    },
    description:
      'Other fields of Anthropic\'s messages request are accepted and forwarded; a field that is not one is refused (400). Cache writes are billed by lifetime (cache_write, cache_write_1h prices; a model without them refuses cache marks); container, speed "fast" and inference_geo other than "global" are refused.',
  };
}
