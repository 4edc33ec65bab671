/**
 * Whether a text is one JSON value (RFC 8259, what JSON.parse accepts), checked in one pass without
 * building the value: a 25 MiB file of tiny arrays would make millions of objects for JSON.parse, and
 * this needs only a byte per level of nesting.
 */

const ARRAY = 0;
const OBJECT = 1;

/** undefined when `text` is valid JSON; else what is wrong and where. */
export function jsonSyntaxError(text: string): string | undefined {
  const n = text.length;
  let stack = new Uint8Array(64);
  let depth = 0;
  let i = 0;
  const skipWhite = () => {
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return;
      i++;
    }
  };
  const at = (what: string) => `${what} at position ${i}`;
  const push = (kind: number) => {
    if (depth === stack.length) {
      const bigger = new Uint8Array(stack.length * 2);
      bigger.set(stack);
      stack = bigger;
    }
    stack[depth++] = kind;
  };
  /** A string from its opening quote; false when it is not one. */
  const string = (): boolean => {
    i++;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        i++;
        return true;
      }
      if (c < 0x20) return false;
      if (c === 0x5c) {
        const e = text.charCodeAt(i + 1);
        if (e === 0x75 /* u */) {
          for (let k = 2; k < 6; k++) if (!isHex(text.charCodeAt(i + k))) return false;
          i += 6;
        } else if (e === 0x22 || e === 0x5c || e === 0x2f || e === 0x62 || e === 0x66 || e === 0x6e || e === 0x72 || e === 0x74) i += 2;
        else return false;
      } else i++;
    }
    return false;
  };
  const digits = (): boolean => {
    const from = i;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
    return i > from;
  };
  const number = (): boolean => {
    if (text.charCodeAt(i) === 0x2d) i++;
    if (text.charCodeAt(i) === 0x30) i++;
    else if (!digits()) return false;
    if (text.charCodeAt(i) === 0x2e) {
      i++;
      if (!digits()) return false;
    }
    const e = text.charCodeAt(i);
    if (e === 0x65 || e === 0x45) {
      i++;
      const sign = text.charCodeAt(i);
      if (sign === 0x2b || sign === 0x2d) i++;
      if (!digits()) return false;
    }
    return true;
  };
  const literal = (word: string): boolean => {
    if (!text.startsWith(word, i)) return false;
    i += word.length;
    return true;
  };
  /** An object member's key and colon, white space around. */
  const key = (): string | undefined => {
    if (i >= n) return at('unexpected end of the text');
    if (text.charCodeAt(i) !== 0x22) return at('expected a property name in double quotes');
    if (!string()) return at('bad string');
    skipWhite();
    if (text.charCodeAt(i) !== 0x3a) return at("expected ':' after a property name");
    i++;
    return undefined;
  };

  skipWhite();
  for (;;) {
    // A value is expected here.
    skipWhite();
    if (i >= n) return at('unexpected end of the text');
    const c = text.charCodeAt(i);
    let opened = false;
    if (c === 0x7b /* { */) {
      i++;
      skipWhite();
      if (text.charCodeAt(i) === 0x7d) i++;
      else {
        const problem = key();
        if (problem) return problem;
        push(OBJECT);
        opened = true;
      }
    } else if (c === 0x5b /* [ */) {
      i++;
      skipWhite();
      if (text.charCodeAt(i) === 0x5d) i++;
      else {
        push(ARRAY);
        opened = true;
      }
    } else if (c === 0x22) {
      if (!string()) return at('bad string');
    } else if (c === 0x2d || isDigit(c)) {
      if (!number()) return at('bad number');
    } else if (!(literal('true') || literal('false') || literal('null'))) return at('unexpected character');
    if (opened) continue;
    // After a value: a separator, the end of containers, or the end of the text.
    for (;;) {
      skipWhite();
      if (depth === 0) return i === n ? undefined : at('unexpected data after the JSON value');
      const top = stack[depth - 1];
      const d = text.charCodeAt(i);
      if (d === 0x2c /* , */) {
        i++;
        if (top === OBJECT) {
          skipWhite();
          const problem = key();
          if (problem) return problem;
        }
        break;
      }
      if ((top === ARRAY && d === 0x5d) || (top === OBJECT && d === 0x7d)) {
        i++;
        depth--;
        continue;
      }
      return i >= n ? at('unexpected end of the text') : at(top === ARRAY ? "expected ',' or ']'" : "expected ',' or '}'");
    }
  }
}

function isDigit(c: number): boolean {
  return c >= 0x30 && c <= 0x39;
}

function isHex(c: number): boolean {
  return isDigit(c) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
}
