/**
 * A built-in 5×7 pixel font for captions. It is ours and ships in the code, so captions render the
 * same on every machine, with or without fonts installed (a fresh container has none, and SVG text
 * would depend on whatever fontconfig finds). Upper case only; lower case is drawn as upper case.
 */

/** The characters drawn, in table order: printable ASCII without the lower-case letters. */
const CHARSET = ' !"#$%&\'()*+,-./0123456789:;<=>?@ABCDEFGHIJKLMNOPQRSTUVWXYZ[\\]^_`{|}~';

/**
 * Seven rows per glyph, two hex digits per row, bit 4 is the leftmost of the five columns.
 * Six glyphs per line, in CHARSET order.
 */
const GLYPH_ROWS = [
  '00000000000000040404040400040A0A0A000000000A0A1F0A1F0A0A040F140E051E0418190204081303',
  '0C12140815120D0404080000000002040808080402080402020204080004150E1504000004041F040400',
  '000000000C04080000001F00000000000000000C0C000102040810000E11131519110E040C040404040E',
  '0E11010204081F1F02040201110E02060A121F02021F101E0101110E0608101E11110E1F010204080808',
  '0E11110E11110E0E11110F01020C000C0C000C0C00000C0C000C04080204081008040200001F001F0000',
  '080402010204080E1101020400040E11010D15150E0E11111F1111111E11111E11111E0E11101010110E',
  '1C12111111121C1F10101E10101F1F10101E1010100E11101711110F1111111F1111110E04040404040E',
  '0702020202120C111214181412111010101010101F111B1515111111111119151311110E11111111110E',
  '1E11111E1010100E11111115120D1E11111E1412110F10100E01011E1F0404040404041111111111110E',
  '11111111110A041111111515150A11110A040A111111110A040404041F01020408101F0E08080808080E',
  '001008040201000E02020202020E040A11000000000000000000001F0804020000000002040408040402',
  '040404040404040804040204040800000815020000',
].join('');

export const GLYPH_WIDTH = 5;
export const GLYPH_HEIGHT = 7;
/** A character cell: the glyph plus one column of spacing, and two rows of line spacing. */
export const CELL_WIDTH = 6;
export const CELL_HEIGHT = 9;

const glyphIndex = new Map<string, number>([...CHARSET].map((ch, i) => [ch, i]));

/**
 * Upper-cases, strips accents (é → E), straightens dashes and quotes, turns whitespace runs into one
 * space and anything else the font lacks into '?'.
 */
export function toFontText(text: string): string {
  const plain = text
    .replace(/[\u2010-\u2015\u2212]/gu, '-')
    .replace(/[\u2018\u2019\u201A\u201B\u2032]/gu, "'")
    .replace(/[\u201C-\u201F\u2033\u00AB\u00BB]/gu, '"')
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toUpperCase()
    .replace(/\s+/gu, ' ')
    .trim();
  let out = '';
  for (const ch of plain) out += glyphIndex.has(ch) ? ch : '?';
  return out;
}

/**
 * Word-wraps into at most `maxLines` lines of at most `columns` characters. Words longer than a
 * line are cut; text that does not fit ends with "...".
 */
export function wrapText(text: string, columns: number, maxLines: number): string[] {
  if (columns < 4 || maxLines < 1) throw new RangeError('wrapText needs at least 4 columns and 1 line');
  const words = toFontText(text).split(' ').filter((w) => w !== '');
  const lines: string[] = [];
  let current = '';
  let truncated = false;
  for (let i = 0; i < words.length; i += 1) {
    let word = words[i] as string;
    while (word.length > 0) {
      const sep = current === '' ? '' : ' ';
      if (current.length + sep.length + word.length <= columns) {
        current += sep + word;
        word = '';
      } else if (current === '') {
        current = word.slice(0, columns);
        word = word.slice(columns);
      } else {
        lines.push(current);
        current = '';
      }
      if (lines.length === maxLines) {
        truncated = true;
        break;
      }
    }
    if (truncated) break;
  }
  if (!truncated && current !== '') lines.push(current);
  if (truncated || lines.length > maxLines) {
    const kept = lines.slice(0, maxLines);
    const last = kept[maxLines - 1] ?? '';
    kept[maxLines - 1] = last.length + 3 <= columns ? `${last}...` : `${last.slice(0, columns - 3)}...`;
    return kept;
  }
  return lines;
}

/** One glyph's rows as 5-bit numbers; '?' for a character the font lacks. */
function glyphRows(ch: string): number[] {
  const index = glyphIndex.get(ch) ?? (glyphIndex.get('?') as number);
  const rows: number[] = [];
  for (let r = 0; r < GLYPH_HEIGHT; r += 1) {
    const at = (index * GLYPH_HEIGHT + r) * 2;
    rows.push(Number.parseInt(GLYPH_ROWS.slice(at, at + 2), 16));
  }
  return rows;
}

export interface TextMask {
  width: number;
  height: number;
  /** One byte per pixel, 255 where ink is. */
  alpha: Uint8Array;
}

/**
 * Draws the lines (left-aligned, each font pixel a `scale`×`scale` square) into a coverage mask of
 * `columns × CELL_WIDTH × scale` by `lines × CELL_HEIGHT × scale` pixels.
 */
export function drawText(lines: readonly string[], columns: number, scale: number): TextMask {
  const width = columns * CELL_WIDTH * scale;
  const height = lines.length * CELL_HEIGHT * scale;
  const alpha = new Uint8Array(width * height);
  lines.forEach((line, lineIndex) => {
    [...line].slice(0, columns).forEach((ch, col) => {
      const rows = glyphRows(ch);
      for (let gy = 0; gy < GLYPH_HEIGHT; gy += 1) {
        const bits = rows[gy] as number;
        if (bits === 0) continue;
        for (let gx = 0; gx < GLYPH_WIDTH; gx += 1) {
          if ((bits & (1 << (GLYPH_WIDTH - 1 - gx))) === 0) continue;
          const x0 = (col * CELL_WIDTH + gx) * scale;
          const y0 = (lineIndex * CELL_HEIGHT + gy) * scale;
          for (let y = y0; y < y0 + scale; y += 1) alpha.fill(255, y * width + x0, y * width + x0 + scale);
        }
      }
    });
  });
  return { width, height, alpha };
}
