/**
 * The one-pass JSON check of uploaded .json files (issue 17, item 14) agrees with JSON.parse on what
 * is valid, without building the value: 25 MiB of tiny arrays is checked with a byte per level.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { jsonSyntaxError } from '../../../src/domain/files/json-syntax.ts';
import { inspectText } from '../../../src/domain/files/text-file.ts';

const parses = (text: string) => {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
};

describe('JSON syntax', () => {
  test('agrees with JSON.parse on hand-picked texts', () => {
    const texts = [
      '{}', '[]', '0', '-0', '1.5e10', '-1.5E-3', '"a"', 'true', 'false', 'null', ' \n\t\r[1, 2 ,3]\n',
      '{"a":{"b":[1,{"c":null}]},"d":"\\u00e9\\n\\"\\\\\\/"}', '"\ud800"', '[[[[[]]]]]', '{"a":1,"a":2}',
      '', ' ', '{', '}', '[1,]', '[,1]', '{"a":1,}', '{"a"}', '{a:1}', "{'a':1}", '01', '1.', '.5', '+1', '-', '1e', '1e+',
      'tru', 'nul', 'truex', '[1 2]', '"\t"', '"\\x"', '"\\u12g4"', '"abc', '[1]]', '{"a":1}}', '[1] [2]', 'NaN', 'Infinity',
      '\ufeff{}', '[\u00a0]', '{"a" : 1 , "b" : [ ] }', '"\u2028"',
    ];
    for (const text of texts) assert.equal(jsonSyntaxError(text) === undefined, parses(text), JSON.stringify(text));
  });

  test('agrees with JSON.parse on thousands of mutated texts', () => {
    const seeds = ['{"a":[1,2.5,-3e2,{"b":"c\\n"}],"d":true,"e":null}', '[[],{},"",0]', '{"k":"v","n":{"m":[false]}}'];
    const pieces = ['{', '}', '[', ']', ',', ':', '"', '\\', '1', '-', '.', 'e', 'a', ' ', 'true', 'null', '0'];
    let seed = 11;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return Math.floor((seed / 2147483648) * n);
    };
    for (let i = 0; i < 20_000; i++) {
      let text = seeds[random(seeds.length)] as string;
      for (let edits = random(3) + 1; edits > 0; edits--) {
        const at = random(text.length + 1);
        const cut = random(2);
        text = text.slice(0, at) + (random(2) ? (pieces[random(pieces.length)] as string) : '') + text.slice(at + cut);
      }
      assert.equal(jsonSyntaxError(text) === undefined, parses(text), JSON.stringify(text));
    }
  });

  test('says where the text goes wrong', () => {
    assert.equal(jsonSyntaxError('[1, 2'), 'unexpected end of the text at position 5');
    assert.equal(jsonSyntaxError('{"a" 1}'), "expected ':' after a property name at position 5");
  });

  test('25 MiB of tiny arrays and deep nesting are checked without building them', () => {
    const size = 25 * 1024 * 1024;
    const flat = `[${'[],'.repeat(size / 3 - 1)}[]]`;
    assert.equal(jsonSyntaxError(flat), undefined);
    const deep = '['.repeat(size / 2) + ']'.repeat(size / 2);
    assert.equal(jsonSyntaxError(deep), undefined);
    assert.match(String(jsonSyntaxError(`${deep}]`)), /unexpected data after the JSON value/);
  });

  test('an uploaded text file: UTF-8, no NUL, JSON when announced so, and the text kept for runs', () => {
    const bytes = (s: string) => new TextEncoder().encode(s);
    assert.deepEqual(inspectText(bytes('café\nnotes'), false, 4), { ok: true, chars: 10, text: 'café' });
    assert.deepEqual(inspectText(Uint8Array.from([0x63, 0xe9]), false, 10), { ok: false, error: 'the file is not valid UTF-8 text' });
    assert.deepEqual(inspectText(bytes('a\u0000b'), false, 10), { ok: false, error: 'the file holds NUL bytes: it is not text' });
    assert.deepEqual(inspectText(bytes('{"a": 1,'), true, 10), { ok: false, error: 'the file is not valid JSON: unexpected end of the text at position 8' });
    assert.deepEqual(inspectText(bytes('{"a": [1, 2]}'), true, 100), { ok: true, chars: 13, text: '{"a": [1, 2]}' });
  });
});
