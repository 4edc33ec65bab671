/**
 * JSON Schema of a published `ParamField` (SPEC "Param field" plus our optional additions), for the
 * HTTP layer's response schemas and OpenAPI. Response serializers drop members a schema does not
 * declare, so a bare `{type: 'object'}` would publish every param as `{}`.
 */
const scalar = { type: ['string', 'number', 'boolean'] };

const paramFieldProperties = {
  name: { type: 'string' },
  label: { type: 'string' },
  description: { type: 'string' },
  kind: { enum: ['string', 'number', 'boolean'] },
  isArray: { type: 'boolean' },
  required: { type: 'boolean' },
  default: { anyOf: [scalar, { type: 'array', items: scalar }, { type: 'null' }] },
  options: {
    type: 'array',
    items: {
      type: 'object',
      required: ['value', 'label'],
      properties: { value: { type: ['string', 'number'] }, label: { type: 'string' } },
    },
  },
  minimum: { type: 'number' },
  maximum: { type: 'number' },
  maxLength: { type: 'number' },
  isMedia: { type: 'boolean' },
  isPrompt: { type: 'boolean' },
  multiline: { type: 'boolean' },
  deprecated: { type: 'boolean' },
  minItems: { type: 'number' },
  maxItems: { type: 'number' },
  mediaKind: { enum: ['image', 'video', 'audio'] },
  isTaskReference: { type: 'boolean' },
} as const;

const REQUIRED = ['name', 'label', 'kind', 'isArray', 'required', 'isMedia', 'isPrompt', 'multiline', 'deprecated'];

/** Members of objects (`fields`) are ParamFields one level down; none of our fields nests deeper. */
export const PARAM_FIELD_JSON_SCHEMA: Record<string, unknown> = {
  type: 'object',
  required: REQUIRED,
  properties: {
    ...paramFieldProperties,
    fields: { type: 'array', items: { type: 'object', required: REQUIRED, properties: paramFieldProperties } },
    fieldsByValue: {
      type: 'object',
      additionalProperties: { type: 'array', items: { type: 'string' } },
      description: 'A choice that decides which other fields apply: for each value, the names of the fields it uses (others are refused)',
    },
    requiredWhen: {
      type: 'array',
      description: 'When the field is required besides `required`: the values of other fields (defaults count) that make it so, other fields (or sets of fields) that would do instead, and why',
      items: {
        type: 'object',
        required: ['when', 'reason'],
        properties: {
          when: { type: 'object', additionalProperties: { type: 'array', items: { type: ['string', 'boolean'] } } },
          orFields: { type: 'array', items: { type: 'string' } },
          alternatives: {
            type: 'array',
            description: 'Either/or between sets of fields: met when every field of one set is filled; the set in use is the first with a field filled',
            items: { type: 'array', items: { type: 'string' } },
          },
          reason: { type: 'string' },
        },
      },
    },
  },
};
