import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { checkOutputSchema, OUTPUT_SCHEMA_LIMITS } from '../../../src/domain/agent/output-schema.ts';
import { checkUserPattern, compileUserPattern, MAX_PATTERN_SIZE } from '../../../src/domain/agent/user-pattern.ts';

const obj = (properties: Record<string, unknown>) => ({ type: 'object', properties, required: Object.keys(properties), additionalProperties: false });

describe('user patterns: what is refused', () => {
  const refused: Array<[string, RegExp]> = [
    ['(a+)+c', /nest quantifiers/],
    ['(a+)+', /nest quantifiers/],
    ['(\\w+\\s?)*', /nest quantifiers/],
    ['(a|b+)*', /nest quantifiers/],
    ['(?:a*)*', /nest quantifiers/],
    ['((a+))+', /nest quantifiers/],
    ['(?<x>a+){2,}', /nest quantifiers/],
    ['(a+){2,5}', /nest quantifiers/],
    ['(?=a)a', /lookahead or lookbehind/],
    ['(?<!a)b', /lookahead or lookbehind/],
    ['(a)\\1', /back-references/],
    ['\\k<x>(?<x>a)', /back-references/],
    ['(?i:a)', /groups only/],
    ['a{1001}', /at most 1000 times/],
    ['(?:.{100}){11}', /too large/],
    ['[\\Sa]', /\\S inside a class/],
    ['\\p{Script_Extensions=Latin}', /General_Category values and scripts/],
    ['(', /not a valid regular expression/],
    ['a{2', /not a valid regular expression/],
  ];
  for (const [pattern, reason] of refused) {
    it(`refuses ${pattern}`, () => {
      const check = checkUserPattern(pattern);
      assert.equal(check.ok, false);
      if (!check.ok) assert.match(check.message, reason);
    });
  }

  it('refuses a pattern longer than 1,000 characters, and a schema whose patterns are too large together', () => {
    assert.equal(checkUserPattern('a'.repeat(1_001)).ok, false);
    const many = obj(Object.fromEntries(Array.from({ length: 201 }, (_, i) => [`p${i}`, { type: 'string', pattern: `^x${i}$` }])));
    const verdict = checkOutputSchema(many);
    assert.equal(verdict.ok, false);
    if (!verdict.ok) {
      assert.equal(verdict.pointer, '/properties/p200/pattern');
      assert.match(verdict.message, new RegExp(`more than ${OUTPUT_SCHEMA_LIMITS.patternSize}`));
    }
    // The same pattern on every field counts once.
    const same = obj(Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`p${i}`, { type: 'string', pattern: '^[a-z]+$' }])));
    assert.deepEqual(checkOutputSchema(same), { ok: true });
  });

  it('names the pattern\'s pointer in the schema', () => {
    const verdict = checkOutputSchema(obj({ a: obj({ b: { type: 'string', pattern: '(a+)+c' } }) }));
    assert.equal(verdict.ok, false);
    if (!verdict.ok) assert.equal(verdict.pointer, '/properties/a/properties/b/pattern');
  });
});

describe('user patterns: what is accepted, with ECMAScript meaning', () => {
  const cases: Array<[string, string[], string[]]> = [
    ['^[a-z0-9]+(?:-[a-z0-9]+)*$', ['a-red-fox', 'x'], ['a--b', '-a', 'A']],
    ['^(\\d{1,3}\\.){3}\\d{1,3}$', ['10.0.0.1'], ['10.0.0', '1.2.3.4.5']],
    ['^(\\d{3}-)+$', ['123-456-'], ['12-']],
    ['^[A-Z]{3}-\\d{4}$', ['ABC-1234'], ['AB-1234', 'abc-1234']],
    ['^\\p{L}+$', ['héllo', 'αβγ'], ['h3llo']],
    ['^\\p{Script=Greek}+$', ['αβγ'], ['abc']],
    ['^.$', ['😀', 'a'], ['\n', '\u2028', 'ab']],
    ['^\\s+$', [' \t', '\u3000\u00a0', '\ufeff'], ['x']],
    ['^\\S+$', ['abc'], ['a b']],
    ['^[\\s\\S]{2}$', ['a\n'], ['a']],
    ['^[^\\S]$', [' '], ['a']],
    ['^\\u{1F600}\\uD83D\\uDE00$', ['😀😀'], ['😀']],
    ['^a\\/b\\.c$', ['a/b.c'], ['a/bxc']],
    ['\\bfox\\b', ['a fox here'], ['foxes']],
    ['^[]$', [], ['', 'a']],
    ['^[^]$', ['a', '\n'], ['ab']],
    ['^(?<word>[a-z]+)!$', ['fox!'], ['fox']],
    ['colou?r', ['color', 'my colour'], ['colr']],
    ['^a{2,}?$', ['aa', 'aaaa'], ['a']],
    ['^\\cJ\\x41\\0$', ['\nA\0'], ['A']],
    ['^[\\b]$', ['\b'], ['b']],
  ];
  for (const [pattern, matching, failing] of cases) {
    it(`${pattern} matches as RegExp(…, 'u') does`, () => {
      const check = checkUserPattern(pattern);
      assert.equal(check.ok, true, check.ok ? '' : check.message);
      const compiled = compileUserPattern(pattern);
      const reference = new RegExp(pattern, 'u');
      for (const text of matching) assert.equal(compiled.test(text), true, `${pattern} on ${JSON.stringify(text)}`);
      for (const text of failing) assert.equal(compiled.test(text), false, `${pattern} on ${JSON.stringify(text)}`);
      for (const text of [...matching, ...failing]) assert.equal(compiled.test(text), reference.test(text), `RegExp differs on ${JSON.stringify(text)}`);
    });
  }

  it('the size counts counted repeats written out', () => {
    assert.equal((checkUserPattern('\\d{4}') as { size: number }).size, 4);
    assert.equal((checkUserPattern('(?:ab){3}c') as { size: number }).size, 7);
    assert.equal((checkUserPattern('a+b*c?') as { size: number }).size, 3);
    assert.equal((checkUserPattern('(?:.{100}){10}') as { size: number }).size, MAX_PATTERN_SIZE);
  });
});

describe('user patterns: linear time', () => {
  // A hang detector, not a timing: RegExp would take longer than the universe on this text, RE2 a few
  // milliseconds (bench/hostile-input.ts measures the event loop on the run that checks such a pattern).
  it('a pattern with the shape of (a+)+c, allowed by the rule, runs in linear time on RE2 where RegExp backtracks', { timeout: 30_000 }, () => {
    // (a|a)* is accepted (each alternative is a fixed part) and is exponential on a backtracking engine.
    const pattern = '^(a|a)*c$';
    assert.equal(checkUserPattern(pattern).ok, true);
    const compiled = compileUserPattern(pattern);
    assert.equal(compiled.test('a'.repeat(100_000)), false);
    assert.equal(compiled.test(`${'a'.repeat(100_000)}c`), true);
  });
});

describe('user patterns: fuzz', () => {
  it('3,000 random patterns: never an exception; accepted ones match as RegExp(…, \'u\') does on short texts', () => {
    let seed = 1_709;
    const r = () => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed / 2_147_483_648;
    };
    const pieces = ['a', 'b', 'é', '😀', '.', '\\d', '\\w', '\\s', '\\S', '\\b', '[ab]', '[^a]', '[a-c\\s]', '[\\s\\S]', '(', ')', '(?:', '(?<n>', '|', '*', '+', '?', '{2}', '{1,3}', '{2,}', '^', '$', '\\.', '\\u00e9', '\\p{L}', '-', ' '];
    const texts = ['', 'a', 'ab', 'ba', 'aab', 'é', '😀', 'a b', 'a.b', 'abc', '12', 'x\ny', 'aaaa', 'b😀a'];
    let accepted = 0;
    for (let i = 0; i < 3_000; i++) {
      const pattern = Array.from({ length: 1 + Math.floor(r() * 8) }, () => pieces[Math.floor(r() * pieces.length)]).join('');
      let reference: RegExp;
      try {
        reference = new RegExp(pattern, 'u');
      } catch {
        assert.equal(checkUserPattern(pattern).ok, false, pattern);
        continue;
      }
      const check = checkUserPattern(pattern);
      if (!check.ok) continue;
      accepted += 1;
      const compiled = compileUserPattern(pattern);
      for (const text of texts) assert.equal(compiled.test(text), reference.test(text), `${pattern} on ${JSON.stringify(text)} (RE2: ${check.re2})`);
    }
    assert.ok(accepted > 500, `${accepted} accepted`);
  });
});
