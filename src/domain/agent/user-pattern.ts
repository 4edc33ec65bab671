/**
 * Regular expressions written by users (the `pattern` keyword of a run's `outputSchema`), matched
 * against text a user steers. V8's own engine backtracks: `(a+)+c` against 28 a's took 10.8 s of the
 * event loop. So a pattern is checked once at submit time and then runs on RE2 (the `re2js` port:
 * pure JavaScript, time linear in the text), never on `RegExp`.
 *
 * Accepted: an ECMAScript pattern (the `u` mode JSON Schema means) made of literals, escapes
 * (`\d \D \w \W \s \S \b \B \t \n \v \f \r \0 \xHH \uHHHH \u{H…} \cX` and escaped syntax
 * characters), `.`, classes with ranges and negation, `\p{…}`/`\P{…}` with General_Category values
 * and scripts (`\p{L}`, `\p{Script=Greek}`), `^`, `$`, alternation, groups `(…)`, `(?:…)` and
 * `(?<name>…)`, and quantifiers `* + ? {n} {n,} {n,m}` (counts up to 1,000), greedy or lazy.
 * Refused with the reason: back-references (`\1`, `\k<name>`), lookahead and lookbehind, inline
 * modifiers, and nested repetition that makes a match ambiguous: a repeated group that contains a
 * repeating quantifier, where one of the two is unbounded and some alternative of the group has no
 * part that must match exactly once (`(a+)+`, `(\w+\s?)*`, `(a|b+)*`; `(?:-[a-z0-9]+)*` and
 * `(\d{1,3}\.){3}` are fine). RE2 would run those in linear time too; the rule keeps patterns that
 * are catastrophic on backtracking engines (the model vendor's, a client's) out of stored schemas.
 *
 * Matching keeps ECMAScript's meaning where RE2's differs: `.` excludes the four line terminators and
 * `\s` is ECMAScript's Unicode white space (both are rewritten as classes); `[]` matches nothing and
 * `[^]` any character.
 */
import { RE2JS } from 're2js';

export const MAX_PATTERN = 1_000;
const MAX_REPEAT = 1_000;

/** ECMAScript white space and line terminators (\s): Zs, Zl and Zp are Unicode's `Z`. */
const WHITE_SPACE = '\\t\\n\\x0B\\f\\r\\x{FEFF}\\p{Z}';
const ANY = '\\x{0}-\\x{10FFFF}';
const SYNTAX_CHARACTERS = '^$\\.*+?()[]{}|/';

/** A pattern's size: its atoms once counted repeats are written out (`\d{4}` is 4): RE2's program grows with it, and so do its compile and match times. */
export const MAX_PATTERN_SIZE = 1_000;

export type PatternCheck = { ok: true; re2: string; size: number } | { ok: false; message: string };

/** A compiled pattern: `test` searches like `RegExp.prototype.test`, in time linear in the text (times `size`). */
export interface UserPattern {
  readonly source: string;
  readonly size: number;
  test(text: string): boolean;
}

class Refusal extends Error {}

/** The refusal reason, or the pattern rewritten in RE2 syntax with ECMAScript's meaning. */
export function checkUserPattern(pattern: string): PatternCheck {
  if (pattern.length > MAX_PATTERN) return { ok: false, message: `a pattern may have at most ${MAX_PATTERN} characters` };
  try {
    new RegExp(pattern, 'u');
  } catch {
    return { ok: false, message: 'pattern is not a valid regular expression' };
  }
  let re2: string;
  let size: number;
  try {
    ({ re2, size } = new PatternTranslator(pattern).translate());
  } catch (error) {
    if (error instanceof Refusal) return { ok: false, message: error.message };
    throw error;
  }
  if (size > MAX_PATTERN_SIZE) return { ok: false, message: `pattern is too large: ${size} atoms once its counted repeats are written out, above ${MAX_PATTERN_SIZE}` };
  try {
    RE2JS.compile(re2);
  } catch (error) {
    return { ok: false, message: `pattern is outside the supported syntax (${error instanceof Error ? error.message.replace(/^error parsing regexp: /, '').slice(0, 120) : 'RE2'})` };
  }
  return { ok: true, re2, size };
}

/** Compiles a pattern for matching; throws when checkUserPattern would refuse it. */
export function compileUserPattern(pattern: string): UserPattern {
  const check = checkUserPattern(pattern);
  if (!check.ok) throw new Error(check.message);
  const compiled = RE2JS.compile(check.re2);
  return { source: pattern, size: check.size, test: (text) => compiled.test(text) };
}

/**
 * The engine's first compile builds its tables (about 10 to 40 ms): done once at start, so that it
 * does not land on the first request that carries a pattern.
 */
export function warmUpPatternEngine(): void {
  compileUserPattern('^[a-z]\\s\\S.\\p{L}(?:x|y){2}$').test('a b.é xy');
}

interface Frame {
  /** Atoms in the group, counted repeats written out. */
  size: number;
  /** The group contains a quantifier that repeats (upper bound above 1). */
  repeats: boolean;
  /** The group contains a quantifier without an upper bound. */
  unbounded: boolean;
  /** The current alternative has a part that must match exactly once (a literal, a class, a group). */
  anchored: boolean;
  /** Some alternative has no such part: all of it is optional or repeated, so repeating the group is ambiguous. */
  loose: boolean;
}

/** The last atom, for a quantifier that may follow it; `anchoredBefore` undoes its mark when one does. */
type Atom = { kind: 'none' } | { kind: 'simple' | 'group'; size: number; anchoredBefore: boolean; frame?: Frame };

const newFrame = (): Frame => ({ size: 0, repeats: false, unbounded: false, anchored: false, loose: false });

/**
 * One pass over a pattern that `new RegExp(pattern, 'u')` accepted (so its syntax is known to be
 * well formed): emits RE2 syntax and refuses what RE2 cannot run or what we do not allow.
 */
class PatternTranslator {
  readonly #p: string;
  #i = 0;
  #out = '';
  readonly #frames: Frame[] = [newFrame()];
  #atom: Atom = { kind: 'none' };

  constructor(pattern: string) {
    this.#p = pattern;
  }

  translate(): { re2: string; size: number } {
    const p = this.#p;
    while (this.#i < p.length) {
      const c = p[this.#i] as string;
      switch (c) {
        case '\\':
          this.#escapeOutside();
          break;
        case '.':
          this.#i += 1;
          this.#emitAtom('[^\\n\\r\\x{2028}\\x{2029}]');
          break;
        case '[':
          this.#emitAtom(this.#characterClass());
          break;
        case '(':
          this.#openGroup();
          break;
        case ')':
          this.#closeGroup();
          break;
        case '|': {
          this.#i += 1;
          this.#out += '|';
          const frame = this.#frames.at(-1) as Frame;
          frame.loose ||= !frame.anchored;
          frame.anchored = false;
          this.#atom = { kind: 'none' };
          break;
        }
        case '^':
        case '$':
          this.#i += 1;
          this.#out += c;
          this.#atom = { kind: 'none' };
          break;
        case '*':
        case '+':
        case '?':
        case '{':
          this.#quantifier();
          break;
        default: {
          const cp = p.codePointAt(this.#i) as number;
          this.#i += cp > 0xffff ? 2 : 1;
          this.#emitAtom(literal(cp));
        }
      }
    }
    return { re2: this.#out, size: (this.#frames[0] as Frame).size };
  }

  #emitAtom(text: string): void {
    this.#out += text;
    const frame = this.#frames.at(-1) as Frame;
    frame.size += 1;
    this.#atom = { kind: 'simple', size: 1, anchoredBefore: frame.anchored };
    frame.anchored = true;
  }

  #escapeOutside(): void {
    const p = this.#p;
    const next = p[this.#i + 1] ?? '';
    if (next === 'b' || next === 'B') {
      this.#i += 2;
      this.#out += `\\${next}`;
      this.#atom = { kind: 'none' };
      return;
    }
    if (next === 's' || next === 'S') {
      this.#i += 2;
      this.#emitAtom(next === 's' ? `[${WHITE_SPACE}]` : `[^${WHITE_SPACE}]`);
      return;
    }
    this.#emitAtom(this.#escape(false));
  }

  /** An escape other than \b \B \s \S outside a class, as RE2 text. */
  #escape(inClass: boolean): string {
    const p = this.#p;
    const next = p[this.#i + 1] ?? '';
    this.#i += 2;
    switch (next) {
      case 'd':
      case 'D':
      case 'w':
      case 'W':
        return `\\${next}`;
      case 't':
        return '\\t';
      case 'n':
        return '\\n';
      case 'v':
        return '\\x0B';
      case 'f':
        return '\\f';
      case 'r':
        return '\\r';
      case '0':
        return '\\x00';
      case 'b':
        return '\\x08'; // inside a class: backspace
      case 'x': {
        const hex = p.slice(this.#i, this.#i + 2);
        this.#i += 2;
        return `\\x{${hex}}`;
      }
      case 'u':
        return `\\x{${this.#unicodeEscape().toString(16)}}`;
      case 'c': {
        const letter = p.charCodeAt(this.#i);
        this.#i += 1;
        return `\\x{${(letter % 32).toString(16)}}`;
      }
      case 'p':
      case 'P':
        return this.#property(next);
      case 'k':
        throw new Refusal('pattern may not use back-references (\\k<name>)');
      case '-':
        return '\\-';
      default:
        if (next >= '1' && next <= '9') throw new Refusal(`pattern may not use back-references (\\${next})`);
        if (SYNTAX_CHARACTERS.includes(next)) return next === '/' ? '/' : `\\${next}`;
        throw new Refusal(`pattern uses an escape outside the supported syntax: \\${next}${inClass ? ' in a class' : ''}`);
    }
  }

  /** After `\u`: `HHHH` (a surrogate pair of two such escapes makes one code point) or `{H…}`. */
  #unicodeEscape(): number {
    const p = this.#p;
    if (p[this.#i] === '{') {
      const end = p.indexOf('}', this.#i);
      const cp = Number.parseInt(p.slice(this.#i + 1, end), 16);
      this.#i = end + 1;
      return cp;
    }
    const unit = Number.parseInt(p.slice(this.#i, this.#i + 4), 16);
    this.#i += 4;
    if (unit >= 0xd800 && unit <= 0xdbff && p.startsWith('\\u', this.#i) && p[this.#i + 2] !== '{') {
      const low = Number.parseInt(p.slice(this.#i + 2, this.#i + 6), 16);
      if (low >= 0xdc00 && low <= 0xdfff) {
        this.#i += 6;
        return 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00);
      }
    }
    if (unit >= 0xd800 && unit <= 0xdfff) throw new Refusal('pattern may not name a lone surrogate');
    return unit;
  }

  /** After `\p` or `\P`: `{Name}`, `{Script=Name}`, `{General_Category=Name}` (and the short forms). */
  #property(letter: string): string {
    const p = this.#p;
    const end = p.indexOf('}', this.#i);
    const body = p.slice(this.#i + 1, end);
    this.#i = end + 1;
    const [key, value] = body.includes('=') ? (body.split('=', 2) as [string, string]) : ['', body];
    if (key !== '' && !['Script', 'sc', 'General_Category', 'gc'].includes(key)) throw new Refusal(`pattern may use \\p{…} with General_Category values and scripts only, not ${key}`);
    return `\\${letter}{${value}}`;
  }

  /** `[…]` at the current position, as an RE2 class. */
  #characterClass(): string {
    const p = this.#p;
    this.#i += 1;
    let negated = false;
    if (p[this.#i] === '^') {
      negated = true;
      this.#i += 1;
    }
    const items: string[] = [];
    let notSpace = false;
    let space = false;
    while (p[this.#i] !== ']') {
      const c = p[this.#i] as string;
      if (c === '\\') {
        const next = p[this.#i + 1];
        if (next === 's') {
          this.#i += 2;
          space = true;
          items.push(WHITE_SPACE);
          continue;
        }
        if (next === 'S') {
          this.#i += 2;
          notSpace = true;
          continue;
        }
        items.push(this.#escape(true));
        continue;
      }
      if (c === '-') {
        this.#i += 1;
        items.push('-');
        continue;
      }
      const cp = p.codePointAt(this.#i) as number;
      this.#i += cp > 0xffff ? 2 : 1;
      items.push(literal(cp));
    }
    this.#i += 1;
    if (notSpace) {
      // RE2 has no class intersection: \S combines only with \s (any character) or stands alone.
      if (items.length === 0) return negated ? `[${WHITE_SPACE}]` : `[^${WHITE_SPACE}]`;
      if (space && items.length === 1) return negated ? `[^${ANY}]` : `[${ANY}]`;
      throw new Refusal('pattern may use \\S inside a class only as [\\S] or [\\s\\S]');
    }
    if (items.length === 0) return negated ? `[${ANY}]` : `[^${ANY}]`;
    return `[${negated ? '^' : ''}${items.join('')}]`;
  }

  #openGroup(): void {
    const p = this.#p;
    if (p[this.#i + 1] === '?') {
      const kind = p.slice(this.#i + 2, this.#i + 4);
      if (kind.startsWith(':')) {
        this.#i += 3;
      } else if (kind.startsWith('=') || kind.startsWith('!') || kind === '<=' || kind === '<!') {
        throw new Refusal('pattern may not use lookahead or lookbehind');
      } else if (kind.startsWith('<')) {
        this.#i = p.indexOf('>', this.#i) + 1; // a name: the group itself is what matters here
      } else {
        throw new Refusal('pattern may use (?:…) and (?<name>…) groups only');
      }
    } else {
      this.#i += 1;
    }
    this.#out += '(?:';
    this.#frames.push(newFrame());
    this.#atom = { kind: 'none' };
  }

  #closeGroup(): void {
    this.#i += 1;
    this.#out += ')';
    const frame = this.#frames.pop() as Frame;
    frame.loose ||= !frame.anchored;
    const parent = this.#frames.at(-1) as Frame;
    parent.size += frame.size;
    parent.repeats ||= frame.repeats;
    parent.unbounded ||= frame.unbounded;
    this.#atom = { kind: 'group', frame, size: frame.size, anchoredBefore: parent.anchored };
    parent.anchored ||= !frame.loose;
  }

  #quantifier(): void {
    const p = this.#p;
    const start = this.#i;
    let max: number;
    let min = p[this.#i] === '+' ? 1 : 0;
    // RE2 writes x{n,m} out as m copies (n for x{n,}); *, + and ? are one copy and a loop.
    let copies = 1;
    if (p[this.#i] === '{') {
      const end = p.indexOf('}', this.#i);
      const [low, high] = p.slice(this.#i + 1, end).split(',');
      min = Number(low);
      max = high === undefined ? min : high === '' ? Number.POSITIVE_INFINITY : Number(high);
      if (min > MAX_REPEAT || (Number.isFinite(max) && max > MAX_REPEAT)) throw new Refusal(`pattern may repeat at most ${MAX_REPEAT} times in one quantifier`);
      copies = Math.max(1, Number.isFinite(max) ? max : min);
      this.#i = end + 1;
    } else {
      max = p[this.#i] === '?' ? 1 : Number.POSITIVE_INFINITY;
      this.#i += 1;
    }
    if (p[this.#i] === '?') this.#i += 1;
    this.#out += p.slice(start, this.#i);
    const repeats = max > 1;
    const unbounded = max === Number.POSITIVE_INFINITY;
    const atom = this.#atom;
    const inner = atom.kind === 'none' ? undefined : atom.frame;
    if (inner && repeats && inner.repeats && inner.loose && (unbounded || inner.unbounded)) {
      throw new Refusal('pattern may not nest quantifiers: a repeated group made only of repeated or optional parts (like (a+)+ or (\\w+\\s?)*) is refused when either repetition is unbounded');
    }
    const frame = this.#frames.at(-1) as Frame;
    if (atom.kind !== 'none') {
      frame.size += atom.size * (copies - 1);
      // Anything but exactly once makes the atom optional or repeated, not a fixed part.
      if (min !== 1 || max !== 1) frame.anchored = atom.anchoredBefore;
    }
    frame.repeats ||= repeats;
    frame.unbounded ||= unbounded;
    this.#atom = { kind: 'none' };
  }
}

/** One code point as RE2 text: letters and digits as they are, the rest as an escape. */
function literal(cp: number): string {
  if ((cp >= 0x30 && cp <= 0x39) || (cp >= 0x41 && cp <= 0x5a) || (cp >= 0x61 && cp <= 0x7a) || cp === 0x20 || cp === 0x5f) return String.fromCodePoint(cp);
  return `\\x{${cp.toString(16)}}`;
}
