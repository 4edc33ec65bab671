/** Hostile `outputSchema`s of issue 17, shared by the agent API test and the hostile-input test. */
type Json = Record<string, unknown>;

export const closedObject = (properties: Json, extra: Json = {}): Json => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false, ...extra });

/** Issue 17's payload: d_i = {anyOf: [{$ref: d_i+1}, {$ref: d_i+1}]}, 40 levels, 2.7 KB: 2^40 schemas to try. */
export function fanOutSchema(levels = 40): Json {
  const defs: Json = { [`d${levels}`]: { type: 'string' } };
  for (let i = 0; i < levels; i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
  return closedObject({ summary: { $ref: '#/$defs/d0' } }, { $defs: defs });
}
