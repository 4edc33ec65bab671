/**
 * bench/output-validator: checking structured results against ordinary `outputSchema`s, the compiled
 * validator (src/domain/agent/output-validator.ts) against the interpreter it replaced
 * (test/support/output-schema-interpreter.ts). Two ways each: compile once and check many values (as
 * for several results of one schema), and compile + check per value (what one finalization step
 * does). Prints values/s and the ratio compiled / interpreter (above 1: the compiled one is faster),
 * then how long the step budget takes to run out on a value built to exhaust it.
 *
 *   node bench/output-validator.ts [--seconds 1] [--smoke]   (--smoke: 0.05 s per row)
 */
import { compileOutputSchema, VALIDATION_STEP_BUDGET } from '../src/domain/agent/output-validator.ts';
import { interpretOutput } from '../test/support/output-schema-interpreter.ts';
import { table } from './support/load.ts';
import { SMOKE } from './support/smoke.ts';

type Json = Record<string, unknown>;

const arg = (name: string, fallback: number) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const SECONDS = arg('seconds', SMOKE ? 0.05 : 1);

const obj = (properties: Json, extra: Json = {}): Json => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false, ...extra });

interface Case {
  name: string;
  schema: Json;
  value: unknown;
}

const person = obj({ name: { type: 'string' }, email: { type: ['string', 'null'], format: 'email' }, age: { type: ['integer', 'null'], minimum: 0, maximum: 150 } });

const CASES: Case[] = [
  {
    name: 'summary + urls (auto fields)',
    schema: obj({ summary: { type: 'string' }, imageUrls: { type: 'array', items: { type: 'string' } }, artifacts: { type: 'array', items: obj({ artifactId: { type: 'string' }, url: { type: 'string' } }) } }),
    value: { summary: 'Here is your fox.', imageUrls: ['https://x.test/a.png', 'https://x.test/b.png'], artifacts: [{ artifactId: 'art_1', url: 'https://x.test/a.png' }, { artifactId: 'art_2', url: 'https://x.test/b.png' }] },
  },
  {
    name: 'product listing ($ref, enum, nullable, bounds)',
    schema: obj(
      {
        title: { type: 'string' },
        currency: { enum: ['USD', 'EUR', 'GBP'] },
        items: { type: 'array', maxItems: 50, items: { $ref: '#/$defs/item' } },
        seller: { anyOf: [{ $ref: '#/$defs/person' }, { type: 'null' }] },
      },
      {
        $defs: {
          person,
          item: obj({ sku: { type: 'string' }, price: { type: 'number', exclusiveMinimum: 0 }, quantity: { type: 'integer', minimum: 1 }, tags: { type: 'array', items: { type: 'string' }, maxItems: 5 } }),
        },
      },
    ),
    value: {
      title: 'Spring sale',
      currency: 'EUR',
      items: Array.from({ length: 20 }, (_, i) => ({ sku: `sku-${i}`, price: 9.5 + i, quantity: 1 + (i % 3), tags: ['a', 'b'] })),
      seller: { name: 'Ada', email: 'ada@example.com', age: 36 },
    },
  },
  {
    name: 'patterns and formats',
    schema: obj({
      code: { type: 'string', pattern: '^[A-Z]{3}-\\d{4}$' },
      slug: { type: 'string', pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$' },
      when: { type: 'string', format: 'date-time' },
      id: { type: 'string', format: 'uuid' },
      contacts: { type: 'array', items: person },
    }),
    value: {
      code: 'ABC-1234',
      slug: 'a-red-fox-in-snow',
      when: '2026-05-01T10:00:00Z',
      id: '123e4567-e89b-12d3-a456-426614174000',
      contacts: Array.from({ length: 5 }, (_, i) => ({ name: `n${i}`, email: `p${i}@example.com`, age: null })),
    },
  },
  {
    name: 'a value with errors',
    schema: obj({ n: { type: 'integer', minimum: 1 }, s: { type: ['string', 'null'], format: 'email' }, u: { anyOf: [{ type: 'boolean' }, { type: 'array', items: { type: 'number' }, maxItems: 1 }] } }),
    value: { n: 0, s: 'not-an-email', u: [1, 2], extra: true },
  },
];

function rate(fn: () => void): number {
  for (let i = 0; i < 200; i++) fn(); // warm up
  const deadline = performance.now() + SECONDS * 1000;
  let n = 0;
  const started = performance.now();
  while (performance.now() < deadline) {
    for (let i = 0; i < 100; i++) fn();
    n += 100;
  }
  return n / ((performance.now() - started) / 1000);
}

const rows: Array<Record<string, string | number>> = [];
for (const c of CASES) {
  const verdictOld = JSON.stringify(interpretOutput(c.schema, c.value));
  const compiled = compileOutputSchema(c.schema);
  if (JSON.stringify(compiled.validate(c.value)) !== verdictOld) throw new Error(`different verdicts for ${c.name}`);
  const interpreted = rate(() => interpretOutput(c.schema, c.value));
  const reused = rate(() => compiled.validate(c.value));
  const each = rate(() => compileOutputSchema(c.schema).validate(c.value));
  rows.push({
    case: c.name,
    'interpreter /s': Math.round(interpreted),
    'compiled once /s': Math.round(reused),
    ratio: (reused / interpreted).toFixed(2),
    'compile + check /s': Math.round(each),
    'ratio ': (each / interpreted).toFixed(2),
  });
}
console.log(table(rows));

// The budget: an anyOf of three branches over a long array, every item trying all three.
const spender = obj({ list: { type: 'array', items: { anyOf: [{ type: 'number' }, { type: 'boolean' }, obj({ a: { type: 'string' }, b: { type: 'string' } })] } } });
const huge = { list: Array.from({ length: 1_000_000 }, () => ({ a: 'x', b: 'y' })) };
const check = compileOutputSchema(spender);
check.validate({ list: huge.list.slice(0, 1000) });
const started = performance.now();
const verdict = check.validate(huge);
console.log(`\nstep budget ${VALIDATION_STEP_BUDGET}: spent after ${(performance.now() - started).toFixed(1)} ms (${verdict[0]?.message})`);
