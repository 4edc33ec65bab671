/**
 * Local PDF text extraction (issue 17, item 8): PDFs as tools write them read as before the rewrite
 * (the expected texts are what the regular-expression reader produced); what it got wrong is read
 * right; hostile files finish in one linear pass; inflation is bounded per stream and in total.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { deflateSync } from 'node:zlib';
import { inspectPdf } from '../../../src/domain/files/pdf-inspect.ts';
import { extractPdfText, PDF_TEXT_LIMITS, tidy } from '../../../src/domain/files/pdf-text.ts';
import { flate, fontFile, image, pdfOf, plain } from './pdf-fixtures.ts';

describe('PDF text', () => {
  test('PDFs as tools write them read as they did before the rewrite', () => {
    const cases: Array<[string, Buffer, string]> = [
      ['a Flate-compressed page', pdfOf([flate('BT /F1 12 Tf 72 712 Td (Budget: 300 euros) Tj ET')]), 'Budget: 300 euros'],
      [
        'line moves and a kerned TJ array',
        pdfOf([plain('BT /F1 12 Tf 72 712 Td (First line) Tj 0 -14 Td (Second line) Tj T* (Third) Tj ET\nBT 72 600 Td [(Ke) 120 (rned) -50 ( text)] TJ ET')]),
        'First line\nSecond line\nThird\n\nKerned text',
      ],
      [
        'escapes',
        pdfOf([plain('BT (Paren \\( and \\) and back\\\\slash) Tj (Octal \\101\\102\\103) Tj (tab\\tend) Tj (line\\\ncontinued) Tj ET')]),
        'Paren ( and ) and back\\slashOctal ABCtab\tendlinecontinued',
      ],
      ["the ' and \" operators", pdfOf([plain("BT 14 TL (Moved) ' 2 1 (Spaced) \" ET")]), 'Moved\nSpaced'],
      ['several pages, a nested dictionary, a page without text', pdfOf([flate('BT (Page one) Tj ET'), flate('BT (Page two) Tj ET', ' /DecodeParms << /Columns 1 >>'), plain('q 1 0 0 1 0 0 cm Q')]), 'Page one\n\nPage two'],
      ['pictures and embedded fonts skipped', pdfOf([flate('BT (Visible) Tj ET')], [image(300), fontFile('BT (Hidden font text) Tj ET')]), 'Visible'],
      ['blank lines tidied', pdfOf([plain('BT (a   ) Tj T* T* T* T* (b) Tj ET')]), 'a\n\nb'],
    ];
    for (const [name, pdf, expected] of cases) {
      assert.equal(extractPdfText(pdf, 20_000), expected, name);
      assert.deepEqual(inspectPdf(pdf, 20_000), { ok: true, pages: (pdf.toString('latin1').match(/\/Type \/Page /g) ?? []).length, text: expected }, name);
    }
  });

  test('what the regular expressions got wrong: ET inside a string, nested parentheses, inline pictures', () => {
    // `BT([\s\S]*?)ET` ended the block at the ET of "BUDGET" and lost the rest.
    assert.equal(extractPdfText(pdfOf([plain('BT (BUDGET MEETING) Tj T* (OFFSET) Tj ET')]), 1000), 'BUDGET MEETING\nOFFSET');
    assert.equal(extractPdfText(pdfOf([plain('BT (a (nested) pair) Tj ET')]), 1000), 'a (nested) pair');
    assert.equal(extractPdfText(pdfOf([plain('BT (before) Tj ET BI /W 2 /H 2 /BPC 8 /CS /G ID \x00(\xff)ET( EI BT (after) Tj ET')]), 1000), 'before\nafter');
  });

  test('the text is cut at maxChars', () => {
    const pdf = pdfOf([flate(`BT (${'word '.repeat(5000)}) Tj ET`), flate('BT (never read) Tj ET')]);
    const text = extractPdfText(pdf, 100);
    assert.equal(text.length, 100);
    assert.ok(text.startsWith('word word'));
  });

  test('hostile files finish in one pass: repeated BT, unclosed dictionaries, strings and arrays', () => {
    // Each of these took the regular-expression reader quadratic time (4 MB: hours).
    const size = 4 * 1024 * 1024;
    assert.equal(extractPdfText(pdfOf([plain('BT '.repeat(size / 3))]), 20_000), '');
    assert.equal(extractPdfText(Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from('<<'.repeat(size / 2))]), 20_000), '');
    assert.equal(extractPdfText(pdfOf([plain(`BT ${'['.repeat(size)} ET`)]), 20_000), '');
    assert.equal(extractPdfText(pdfOf([plain(`BT (${'\\'.repeat(size)}`)]), 100).length, 100);
    assert.equal(tidy(`a${' '.repeat(size)}b${' \t'.repeat(size / 2)}`), `a${' '.repeat(size)}b`);
  });

  test('inflation is bounded: a bomb stream is skipped, and the total budget ends reading', () => {
    const bomb = { dictionary: ' /Filter /FlateDecode', data: deflateSync(Buffer.alloc(64 * 1024 * 1024, 0x20), { level: 9 }) };
    assert.ok(bomb.data.length < 100 * 1024, 'a small file');
    const text = flate('BT (after the bomb) Tj ET');
    // Past the per-stream cap (16 MiB): skipped, the next stream still read.
    assert.equal(extractPdfText(pdfOf([bomb, text]), 1000), 'after the bomb');
    // Each failed inflation counts in full against the total: after four, nothing more is inflated.
    const tight = { ...PDF_TEXT_LIMITS, maxInflatedStreamBytes: 1024 * 1024, maxInflatedTotalBytes: 4 * 1024 * 1024 };
    assert.equal(extractPdfText(pdfOf([bomb, text]), 1000, tight), 'after the bomb');
    assert.equal(extractPdfText(pdfOf([bomb, bomb, bomb, bomb, text]), 1000, tight), '');
    // A damaged stream is skipped like before.
    assert.equal(extractPdfText(pdfOf([{ dictionary: ' /Filter /FlateDecode', data: Buffer.from('not deflate') }, text]), 1000), 'after the bomb');
  });

  test('tidy does what the two replacements and trim did', () => {
    const reference = (s: string) => s.replace(/[ \t]+\n/g, '\n').replace(/\n{3,}/g, '\n\n').trim();
    const alphabet = ['a', ' ', '\t', '\n', '\r', 'b'];
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648;
      return seed / 2147483648;
    };
    for (let i = 0; i < 5000; i++) {
      let s = '';
      const length = Math.floor(random() * 20);
      for (let j = 0; j < length; j++) s += alphabet[Math.floor(random() * alphabet.length)];
      assert.equal(tidy(s), reference(s), JSON.stringify(s));
    }
  });

  test('structure checks as before: header, end, cross-reference, pages', () => {
    const good = pdfOf([plain('BT (x) Tj ET')]);
    assert.deepEqual(inspectPdf(Buffer.from('GIF89a'), 10), { ok: false, error: 'the file does not start like a PDF (%PDF-)' });
    assert.deepEqual(inspectPdf(good.subarray(0, good.length - 8), 10), { ok: false, error: 'the PDF is cut off (no %%EOF at its end)' });
    assert.deepEqual(inspectPdf(Buffer.from('%PDF-1.4\n%%EOF\n'), 10), { ok: false, error: 'the PDF has no cross-reference (startxref)' });
    assert.deepEqual(inspectPdf(Buffer.from('%PDF-1.4\n1 0 obj << /Type /Pages >> endobj\nstartxref\n0\n%%EOF\n'), 10), { ok: false, error: 'the PDF holds no page' });
    assert.deepEqual(inspectPdf(Buffer.from('%PDF-1.4\n1 0 obj << /Type\n/ObjStm >> endobj\nstartxref\n0\n%%EOF\n'), 10), { ok: true, text: '' });
  });
});
