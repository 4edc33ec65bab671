import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type JsonSchema, schemaToTs } from '../../../scripts/web-api-types/schema-to-ts.ts';

const ref = (r: string) => `Ref<${JSON.stringify(r)}>`;
const ts = (schema: JsonSchema) => schemaToTs(schema, 0, ref);

test('scalars, enums, constants and nullable types', () => {
  assert.equal(ts({ type: 'string', format: 'date-time', maxLength: 10 }), 'string');
  assert.equal(ts({ type: 'integer' }), 'number');
  assert.equal(ts({ type: ['string', 'null'] }), 'string | null');
  assert.equal(ts({ enum: ['a', "it's"] }), "'a' | 'it\\'s'");
  assert.equal(ts({ const: false }), 'false');
  assert.equal(ts({ type: 'string', nullable: true }), 'string | null');
  assert.equal(ts({}), 'unknown');
});

test('objects: required and optional properties, open and closed shapes', () => {
  assert.equal(ts({ type: 'object', required: ['a'], properties: { a: { type: 'string' }, 'b-c': { type: 'integer', description: 'B' } } }), "{\n  a: string;\n  /** B */\n  'b-c'?: number;\n}");
  assert.equal(ts({ type: 'object' }), '{ [key: string]: unknown }');
  assert.equal(ts({ type: 'object', additionalProperties: { type: 'string' } }), '{ [key: string]: string }');
  assert.equal(ts({ type: 'object', properties: { a: { type: 'string' } }, additionalProperties: true }), '{\n  a?: string;\n  [key: string]: unknown;\n}');
});

test('arrays of unions are grouped; choices become unions and $ref names the component', () => {
  assert.equal(ts({ type: 'array', items: { type: ['string', 'null'] } }), '(string | null)[]');
  assert.equal(ts({ type: 'array', items: { type: 'string' } }), 'string[]');
  assert.equal(ts({ oneOf: [{ $ref: '#/components/schemas/A' }, { type: 'null' }] }), 'Ref<"#/components/schemas/A"> | null');
  assert.equal(ts({ anyOf: [{ type: 'string' }, {}] }), 'unknown');
  assert.equal(ts({ allOf: [{ type: ['string', 'null'] }, { enum: ['x'] }] }), "(string | null) & 'x'");
  assert.equal(ts({ type: 'array', items: { enum: ["a'|b"] } }), "'a\\'|b'[]");
});
