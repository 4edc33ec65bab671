import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkOutputSchema } from '../../../src/domain/agent/output-schema.ts';
import { describeApiError, schemaPlaceWords } from '../../../web/src/api/error-words.ts';

// Issue 21, item 17: a result schema the server refuses is shown in the composer as a place and a
// reason in words; the JSON pointer the API answers with never reaches a person.

/** The API's refusal of `schema`, as messages.service sends it (message and param carry the pointer). */
function refusal(schema: unknown): { code: string; message: string; param: string; status: number } {
  const check = checkOutputSchema(schema);
  assert.equal(check.ok, false, 'the schema is refused by the server checker');
  if (check.ok) throw new Error('unreachable');
  return { code: 'invalid_output_schema', message: `outputSchema${check.pointer}: ${check.message}`, param: `outputSchema${check.pointer}`, status: 400 };
}

const closed = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });

test('a refused schema reads as the field and the keyword, with no pointer or field name', () => {
  const cases: Array<{ schema: unknown; place: RegExp }> = [
    { schema: { ...closed({ summary: { type: 'string' } }), additionalProperties: true }, place: /at the top level, its extra-fields setting: every object must set additional properties: false/i },
    { schema: closed({ address: closed({ zip: { type: 'string', pattern: 1 } }) }), place: /at the field address › zip, its pattern/ },
    { schema: closed({ tags: { type: 'array', items: closed({ label: { type: 'strin' } }) } }), place: /at the field tags › each item › label, its type/ },
    { schema: closed({ size: { anyOf: [{ type: 'number', minLength: 2 }] } }), place: /at the field size › choice 1, its min length/ },
    { schema: closed({ when: { type: 'string', format: 'calendar' } }), place: /at the field when, its format/ },
  ];
  for (const { schema, place } of cases) {
    const words = describeApiError(refusal(schema));
    assert.match(words, /^The result format is not valid/);
    assert.match(words, place);
    assert.doesNotMatch(words, /outputSchema|\/properties|\/items|~1/, words);
  }
});

test('pointer tokens are unescaped, and a deep place keeps its end', () => {
  assert.equal(schemaPlaceWords('outputSchema/properties/a~1b~0c/enum/3'), 'the field a/b~c, allowed value 4');
  const deep = `outputSchema${'/properties/level'.repeat(9)}/properties/leaf/type`;
  assert.equal(schemaPlaceWords(deep), 'the field … › level › level › level › level › leaf, its type');
  assert.equal(schemaPlaceWords('outputSchema'), 'the top level');
});
