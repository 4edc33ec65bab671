import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { EXPANSION_LIMITS, measureExpansion } from '../../../src/domain/agent/output-schema-bounds.ts';
import { checkOutputSchema, compileOutputSchema, OUTPUT_FORMATS, outputSchemaHash, validateOutput } from '../../../src/domain/agent/output-schema.ts';
import { VALIDATION_STEP_BUDGET } from '../../../src/domain/agent/output-validator.ts';
import { interpretOutput } from '../../support/output-schema-interpreter.ts';

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

/** A value for a schema of the subset: mostly fitting, sometimes broken in one place. */
function valueFor(r: () => number, node: Json, defs: Json, depth = 0): unknown {
  if (depth > 12) return null;
  if (r() < 0.05) return garbage(r);
  if (typeof node.$ref === 'string') return valueFor(r, defs[node.$ref.slice(8)] as Json, defs, depth + 1);
  if (Array.isArray(node.anyOf)) return valueFor(r, node.anyOf[Math.floor(r() * node.anyOf.length)] as Json, defs, depth + 1);
  if (Array.isArray(node.enum)) return node.enum[Math.floor(r() * node.enum.length)];
  const types = Array.isArray(node.type) ? node.type : [node.type];
  const type = types[Math.floor(r() * types.length)];
  switch (type) {
    case 'null':
      return null;
    case 'boolean':
      return r() < 0.5;
    case 'integer':
      return Math.floor(r() * 120) - 10;
    case 'number':
      return r() * 120 - 10;
    case 'string':
      return ['abc', 'Hello', 'a@b.co', '2026-01-02T03:04:05Z', '10.0.0.1', '', 'x y', 'P1D'][Math.floor(r() * 8)];
    case 'array':
      return Array.from({ length: Math.floor(r() * 4) }, () => valueFor(r, node.items as Json, defs, depth + 1));
    case 'object': {
      const out: Json = {};
      for (const [key, sub] of Object.entries((node.properties ?? {}) as Json)) if (r() > 0.05) out[key] = valueFor(r, sub as Json, defs, depth + 1);
      if (r() < 0.05) out.extra = 1;
      return out;
    }
    default:
      return null;
  }
}

describe('output schema: the compiled validator', () => {
  it('gives the interpreter\'s verdicts (errors, pointers, messages) on 5,000 generated schemas and values', () => {
    const r = rng(20260417);
    let failing = 0;
    for (let i = 0; i < 5_000; i++) {
      const schema = randomValidRoot(r);
      const compiled = compileOutputSchema(schema);
      for (let j = 0; j < 3; j++) {
        const value = j === 2 ? garbage(r) : valueFor(r, schema, (schema.$defs ?? {}) as Json);
        const expected = interpretOutput(schema, value);
        assert.deepEqual(compiled.validate(value), expected, `${JSON.stringify(schema)} / ${JSON.stringify(value)}`);
        if (expected.length > 0) failing += 1;
      }
    }
    assert.ok(failing > 1_000 && failing < 14_000, `both verdicts are exercised (${failing} failing of 15,000)`);
  });

  it('keeps the first 20 errors in order', () => {
    const schema = obj(Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, { type: 'integer' }])));
    const value = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`p${i}`, 'x']));
    const errors = validateOutput(schema, value);
    assert.equal(errors.length, 20);
    assert.deepEqual(errors, interpretOutput(schema, value));
  });

  it('stops at the step budget with a clear error instead of running on', () => {
    const schema = obj({ list: { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'boolean' }, obj({ a: { type: 'string' } })] } } });
    const fits = { list: Array.from({ length: 100 }, () => ({ a: 'x' })) };
    assert.deepEqual(validateOutput(schema, fits), []);
    const huge = { list: Array.from({ length: VALIDATION_STEP_BUDGET }, () => ({ a: 'x' })) };
    const errors = validateOutput(schema, huge);
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? '', new RegExp(`stopped after ${VALIDATION_STEP_BUDGET} steps`));
    // A smaller budget stops sooner; the same value fits a budget large enough.
    assert.match(compileOutputSchema(schema, 50).validate(fits)[0]?.message ?? '', /stopped after 50 steps/);
  });

  it('charges a pattern match by its text and the pattern\'s size, before running it', () => {
    const schema = obj({ s: { type: 'string', pattern: '^(?:.{100}){10}$' } });
    assert.deepEqual(validateOutput(schema, { s: 'x'.repeat(1000) }), []);
    assert.match(validateOutput(schema, { s: 'x'.repeat(20_000) })[0]?.message ?? '', /stopped after/);
  });

  it('formats longer than any valid value are refused without running their expressions', () => {
    const schema = obj({ e: { type: 'string', format: 'email' }, v6: { type: 'string', format: 'ipv6' } });
    assert.deepEqual(validateOutput(schema, { e: 'ada@example.com', v6: '2001:db8::1' }), []);
    const errors = validateOutput(schema, { e: `a@${'a.'.repeat(20_000)} `, v6: `${':'.repeat(40_000)}x` });
    assert.deepEqual(errors.map((e) => e.message), ['is not a valid email', 'is not a valid ipv6']);
  });

  it('a stored schema past the expansion bounds (from before they existed) always fails, with the reason', () => {
    const defs: Json = { d40: { type: 'string' } };
    for (let i = 0; i < 40; i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
    const errors = validateOutput(obj({ summary: { $ref: '#/$defs/d0' } }, { $defs: defs }), { summary: 'x' });
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? '', /cannot be checked: \/\$defs\/d\d+ the schema is nested deeper than 64 levels/);
    const poisonPattern = validateOutput(obj({ s: { type: 'string', pattern: '(a+)+c' } }), { s: 'a'.repeat(40) });
    assert.match(poisonPattern[0]?.message ?? '', /cannot be checked against the pattern \(a\+\)\+c: pattern may not nest quantifiers/);
  });
});

describe('output schema: expansion through $ref', () => {
  const fanOut = (levels: number): Json => {
    const defs: Json = { [`d${levels}`]: { type: 'string' } };
    for (let i = 0; i < levels; i++) defs[`d${i}`] = { anyOf: [{ $ref: `#/$defs/d${i + 1}` }, { $ref: `#/$defs/d${i + 1}` }] };
    return obj({ summary: { $ref: '#/$defs/d0' } }, { $defs: defs });
  };

  it('refuses the fan-out of issue 17 (40 levels, 2.7 KB) naming the definition that passes the bounds', () => {
    const schema = fanOut(40);
    assert.ok(JSON.stringify(schema).length < 3_000);
    const verdict = checkOutputSchema(schema);
    assert.equal(verdict.ok, false);
    if (!verdict.ok) {
      assert.match(verdict.pointer, /^\/\$defs\/d\d+$/);
      assert.match(verdict.message, /counted through \$ref/);
    }
  });

  it('refuses fan-out past 50,000 nodes within the depth: the pointer is the first definition past the budget', () => {
    // d_i expands to 2^(levels - i + 2) - 3 nodes: d5 of 18 levels is 32,765, d4 is 65,533.
    const verdict = checkOutputSchema(fanOut(18));
    assert.deepEqual(verdict, { ok: false, pointer: '/$defs/d4', message: `the schema expands to more than ${EXPANSION_LIMITS.nodes} nodes through $ref here (a value would take too long to check)` });
    assert.deepEqual(checkOutputSchema(fanOut(13)), { ok: true }, 'a fan-out within the budget is accepted');
    // The root, its $ref and d0's 2^15 - 3; two levels of depth per definition, and two more.
    assert.deepEqual(measureExpansion(fanOut(13)), { ok: true, nodes: 2 ** 15 - 1, depth: 28 });
  });

  it('measures without expanding: 1,000 definitions that each use the next twice are refused at once', () => {
    const verdict = measureExpansion(fanOut(1_000));
    assert.equal(verdict.ok, false);
  });

  const cycles: Array<[string, Json, string]> = [
    ['a definition that refers to itself', obj({ a: { $ref: '#/$defs/a' } }, { $defs: { a: { $ref: '#/$defs/a' } } }), '/$defs/a/$ref'],
    ['a cycle through a property and anyOf', obj({ a: { $ref: '#/$defs/a' } }, { $defs: { a: obj({ x: { $ref: '#/$defs/b' } }), b: { anyOf: [{ type: 'null' }, { $ref: '#/$defs/a' }] } } }), '/$defs/b/anyOf/1/$ref'],
    ['a tree (items of itself)', obj({ root: { $ref: '#/$defs/node' } }, { $defs: { node: obj({ children: { type: 'array', items: { $ref: '#/$defs/node' } } }) } }), '/$defs/node/properties/children/items/$ref'],
  ];
  for (const [what, schema, pointer] of cycles) {
    it(`refuses a $ref cycle: ${what}, naming the $ref that closes it`, () => {
      const verdict = checkOutputSchema(schema);
      assert.equal(verdict.ok, false);
      if (!verdict.ok) {
        assert.equal(verdict.pointer, pointer);
        assert.match(verdict.message, /\$ref cycle #\/\$defs\/.* recursive schemas are not supported/);
      }
    });
  }

  it('refuses a chain of definitions deeper than 64 levels; accepts a definition used many times', () => {
    const defs: Json = { c70: { type: 'string' } };
    for (let i = 0; i < 70; i++) defs[`c${i}`] = { $ref: `#/$defs/c${i + 1}` };
    const verdict = checkOutputSchema(obj({ a: { $ref: '#/$defs/c0' } }, { $defs: defs }));
    assert.equal(verdict.ok, false);
    if (!verdict.ok) assert.match(verdict.message, /deeper than 64 levels/);
    const shared = obj(Object.fromEntries(Array.from({ length: 1_000 }, (_, i) => [`p${i}`, { $ref: '#/$defs/point' }])), { $defs: { point: obj({ x: { type: 'number' }, y: { type: 'number' } }) } });
    assert.deepEqual(checkOutputSchema(shared), { ok: true });
  });
});
