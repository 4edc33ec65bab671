import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkOutputSchema, OUTPUT_FORMATS, outputSchemaHash, validateOutput } from '../../../src/domain/agent/output-schema.ts';

type Json = Record<string, unknown>;

const obj = (properties: Json, extra: Json = {}): Json => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false, ...extra });

describe('output schema subset: examples', () => {
  it('accepts objects, nullable unions, arrays, enums, anyOf, local $ref and the listed keywords', () => {
    const schema = obj(
      {
        title: { type: 'string', description: 'a title', pattern: '^[A-Z]' },
        note: { type: ['string', 'null'] },
        count: { type: 'integer', minimum: 0, maximum: 10, multipleOf: 1 },
        ratio: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1 },
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { type: 'string' }, minItems: 1, maxItems: 5 },
        kind: { enum: ['a', 'b', null] },
        either: { anyOf: [{ type: 'string' }, { $ref: '#/$defs/point' }] },
      },
      { $defs: { point: obj({ x: { type: 'number' }, y: { type: 'number' } }) } },
    );
    assert.deepEqual(checkOutputSchema(schema), { ok: true });
  });

  const refusals: Array<[string, unknown, string]> = [
    ['a root that is not an object schema', { type: 'array', items: { type: 'string' } }, '/type'],
    ['a non-object', 'hello', ''],
    ['open properties', { type: 'object', properties: {}, required: [] }, '/additionalProperties'],
    ['an optional property', { ...obj({ a: { type: 'string' } }), required: [] }, '/required'],
    ['allOf', obj({ a: { allOf: [{ type: 'string' }] } }), '/properties/a/allOf'],
    ['not', obj({ a: { type: 'string', not: { const: 'x' } } }), '/properties/a/not'],
    ['if/then', obj({ a: { type: 'string', if: {}, ['th' + 'en']: {} } }), '/properties/a/if'],
    ['patternProperties', { ...obj({}), patternProperties: {} }, '/patternProperties'],
    ['an unknown keyword', obj({ a: { type: 'string', colour: 'red' } }), '/properties/a/colour'],
    ['a remote $ref', obj({ a: { $ref: 'https://example.com/s.json' } }), '/properties/a/$ref'],
    ['a $ref to a missing definition', obj({ a: { $ref: '#/$defs/nope' } }), '/properties/a/$ref'],
    ['an unknown format', obj({ a: { type: 'string', format: 'credit-card' } }), '/properties/a/format'],
    ['a bad pattern', obj({ a: { type: 'string', pattern: '(' } }), '/properties/a/pattern'],
    ['an array without items', obj({ a: { type: 'array' } }), '/properties/a/items'],
    ['a numeric keyword on a string', obj({ a: { type: 'string', minimum: 1 } }), '/properties/a/minimum'],
    ['a property name with a slash', obj({ 'a/b': { type: 'boolean', maxItems: 1 } }), '/properties/a~1b/maxItems'],
  ];
  for (const [what, schema, pointer] of refusals) {
    it(`refuses ${what}, naming ${pointer || 'the root'}`, () => {
      const check = checkOutputSchema(schema);
      assert.equal(check.ok, false);
      if (!check.ok) assert.equal(check.pointer, pointer, check.message);
    });
  }

  it('refuses past the limits: depth 10, 5,000 properties, 1,000 enum values, 120,000 characters', () => {
    let deep: Json = { type: 'string' };
    for (let i = 0; i < 11; i++) deep = obj({ d: deep });
    assert.match(String((checkOutputSchema(deep) as { message: string }).message), /deeper than 10/);
    let nine: Json = { type: 'string' };
    for (let i = 0; i < 10; i++) nine = obj({ d: nine });
    assert.deepEqual(checkOutputSchema(nine), { ok: true }, 'ten levels are allowed');
    const wide = obj(Object.fromEntries(Array.from({ length: 5_001 }, (_, i) => [`p${i}`, { type: 'boolean' }])));
    assert.match(String((checkOutputSchema(wide) as { message: string }).message), /5000 properties/);
    const enums = obj({ a: { enum: Array.from({ length: 1_001 }, (_, i) => i) } });
    assert.match(String((checkOutputSchema(enums) as { message: string }).message), /1000 enum values/);
    const long = obj({ a: { type: 'string', description: 'x'.repeat(120_001) } });
    assert.match(String((checkOutputSchema(long) as { message: string }).message), /120000 characters/);
  });

  it('the hash is the same for the same schema in any key order', () => {
    const a = obj({ x: { type: 'string' }, y: { type: 'integer' } });
    const b = { additionalProperties: false, required: ['x', 'y'], properties: { y: { type: 'integer' }, x: { type: 'string' } }, type: 'object' };
    assert.equal(outputSchemaHash(a), outputSchemaHash(b));
    assert.match(outputSchemaHash(a), /^[0-9a-f]{64}$/);
  });

  it('validates values: types, required and extra properties, enums, anyOf, $ref, formats, bounds', () => {
    const schema = obj(
      { n: { type: 'integer', minimum: 1 }, s: { type: ['string', 'null'], format: 'email' }, p: { $ref: '#/$defs/p' }, e: { enum: ['a'] }, u: { anyOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'number' }, maxItems: 1 }] } },
      { $defs: { p: obj({ x: { type: 'number' } }) } },
    );
    assert.deepEqual(validateOutput(schema, { n: 2, s: null, p: { x: 1.5 }, e: 'a', u: [3] }), []);
    const errors = validateOutput(schema, { n: 0, s: 'not-an-email', p: { x: 'one', z: 1 }, e: 'b', u: [1, 2], extra: true });
    assert.deepEqual(errors.map((e) => e.pointer).sort(), ['/e', '/extra', '/n', '/p/x', '/p/z', '/s', '/u'].sort());
    assert.deepEqual(validateOutput(schema, { n: 1 }).map((e) => e.pointer).sort(), ['/e', '/p', '/s', '/u']);
  });
});

/** A small seeded generator, so a failure can be replayed. */
function rng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SCALARS = ['string', 'number', 'integer', 'boolean'];

/** A schema inside the subset, built by construction. */
function validSchema(r: () => number, depth: number, defs: string[]): Json {
  const pick = r();
  if (depth >= 9 || pick < 0.35) {
    const type = SCALARS[Math.floor(r() * SCALARS.length)] as string;
    const node: Json = { type: r() < 0.3 ? [type, 'null'] : type };
    if (type === 'string' && r() < 0.3) node.format = OUTPUT_FORMATS[Math.floor(r() * OUTPUT_FORMATS.length)];
    if (type === 'string' && r() < 0.2) node.pattern = '^[a-z]+$';
    if ((type === 'number' || type === 'integer') && r() < 0.4) Object.assign(node, { minimum: 0, maximum: 100 });
    if (r() < 0.2) node.description = 'field';
    return node;
  }
  if (pick < 0.45) return { enum: ['a', 1, true, null].slice(0, 1 + Math.floor(r() * 4)) };
  if (pick < 0.55 && defs.length > 0) return { $ref: `#/$defs/${defs[Math.floor(r() * defs.length)]}` };
  if (pick < 0.65) return { anyOf: [validSchema(r, depth + 1, defs), validSchema(r, depth + 1, defs)] };
  if (pick < 0.8) return { type: 'array', items: validSchema(r, depth + 1, defs), ...(r() < 0.3 ? { minItems: 0, maxItems: 3 } : {}) };
  const properties: Json = {};
  const n = Math.floor(r() * 4);
  for (let i = 0; i < n; i++) properties[`f${i}`] = validSchema(r, depth + 1, defs);
  return obj(properties);
}

function randomValidRoot(r: () => number): Json {
  const defs: Json = {};
  if (r() < 0.3) defs.d0 = obj({ v: { type: 'string' } });
  const names = Object.keys(defs);
  const root = obj({ a: validSchema(r, 1, names), b: validSchema(r, 1, names) });
  if (names.length > 0) root.$defs = defs;
  return root;
}

/** Breaks a valid schema in one known way: the result is outside the subset. */
function mutate(r: () => number, schema: Json): Json {
  const copy = structuredClone(schema);
  const props = copy.properties as Json;
  const target = props.a as Json;
  const ways: Array<() => void> = [
    () => {
      copy.additionalProperties = true;
    },
    () => {
      copy.required = ['a'];
    },
    () => {
      props.a = { allOf: [target] };
    },
    () => {
      props.a = { ...target, not: {} };
    },
    () => {
      props.a = { $ref: '#/$defs/missing' };
    },
    () => {
      props.a = { type: 'string', format: 'phone' };
    },
    () => {
      props.a = { type: 'strin' };
    },
    () => {
      copy.patternProperties = {};
    },
    () => {
      props.a = { type: 'array' };
    },
    () => {
      let deep: Json = { type: 'string' };
      for (let i = 0; i < 11; i++) deep = obj({ d: deep });
      props.a = deep;
    },
    () => {
      props.a = { type: ['string', 'number'] };
    },
    () => {
      props.a = { type: 'object', properties: {}, required: [] };
    },
  ];
  (ways[Math.floor(r() * ways.length)] as () => void)();
  return copy;
}

/** Random JSON, mostly not schemas at all. */
function garbage(r: () => number, depth = 0): unknown {
  const pick = r();
  if (depth > 4 || pick < 0.3) return [null, true, 1.5, -3, 'type', 'object', '', '#/$defs/x'][Math.floor(r() * 8)];
  if (pick < 0.5) return Array.from({ length: Math.floor(r() * 4) }, () => garbage(r, depth + 1));
  const keys = ['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf', '$ref', '$defs', 'format', 'pattern', 'minimum', 'weird', 'allOf'];
  const out: Json = {};
  for (let i = 0; i < Math.floor(r() * 5); i++) out[keys[Math.floor(r() * keys.length)] as string] = garbage(r, depth + 1);
  return out;
}

/** An independent reading of the subset (written apart from the checker), for what the checker accepts. */
function inSubset(node: unknown, root: Json, depth: number): boolean {
  if (node === null || typeof node !== 'object' || Array.isArray(node) || depth > 10) return false;
  const n = node as Json;
  const allowed = ['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf', '$ref', 'title', 'description', 'pattern', 'format', 'multipleOf', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'minItems', 'maxItems'];
  for (const key of Object.keys(n)) if (!allowed.includes(key) && !(depth === 0 && key === '$defs')) return false;
  if (typeof n.$ref === 'string') return n.$ref.startsWith('#/$defs/') && Object.hasOwn((root.$defs ?? {}) as Json, n.$ref.slice(8));
  if (Array.isArray(n.anyOf)) return n.anyOf.length > 0 && n.anyOf.every((b) => inSubset(b, root, depth + 1));
  const types = n.type === undefined ? [] : Array.isArray(n.type) ? n.type : [n.type];
  if (types.length === 0 && !Array.isArray(n.enum)) return false;
  if (!types.every((t) => ['string', 'number', 'integer', 'boolean', 'object', 'array', 'null'].includes(String(t)))) return false;
  if (types.includes('object')) {
    if (n.additionalProperties !== false) return false;
    const props = (n.properties ?? {}) as Json;
    const required = (n.required ?? []) as unknown[];
    if (Object.keys(props).length !== required.length || !Object.keys(props).every((k) => required.includes(k))) return false;
    if (!Object.values(props).every((p) => inSubset(p, root, depth + 1))) return false;
  }
  if (types.includes('array') && !inSubset(n.items, root, depth + 1)) return false;
  if (n.format !== undefined && !(OUTPUT_FORMATS as readonly unknown[]).includes(n.format)) return false;
  return true;
}

describe('output schema subset: fuzz', () => {
  it('5,000 generated schemas: valid ones accepted, broken ones refused with a pointer, garbage never throws, nothing outside the subset accepted', () => {
    const r = rng(20261125);
    let accepted = 0;
    for (let i = 0; i < 5_000; i++) {
      const valid = randomValidRoot(r);
      assert.deepEqual(checkOutputSchema(valid), { ok: true }, JSON.stringify(valid));
      accepted += 1;
      const broken = mutate(r, valid);
      const verdict = checkOutputSchema(broken);
      assert.equal(verdict.ok, false, `accepted a broken schema: ${JSON.stringify(broken)}`);
      if (!verdict.ok) assert.equal(typeof verdict.pointer, 'string');
      const noise = i % 2 === 0 ? garbage(r) : { type: 'object', ...(garbage(r) as object) };
      const noiseVerdict = checkOutputSchema(noise);
      if (noiseVerdict.ok) assert.ok(inSubset(noise, noise as Json, 0), `accepted outside the subset: ${JSON.stringify(noise)}`);
      // Values checked against a valid schema never throw either.
      assert.ok(Array.isArray(validateOutput(valid, garbage(r))));
    }
    assert.equal(accepted, 5_000);
  });
});
