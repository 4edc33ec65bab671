/**
 * An RFC 4180 reader for the exports under test: records end in CRLF (a bare LF is accepted too), a
 * field in double quotes may hold commas, quotes (doubled) and line breaks. A quote inside an
 * unquoted field, or text after a closing quote, is an error: the writer under test must not make one.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  let closed = false;
  let i = 0;
  const endField = () => {
    record.push(field);
    field = '';
    quoted = false;
    closed = false;
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (quoted && !closed) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i += 2;
      } else if (c === '"') {
        closed = true;
        i += 1;
      } else {
        field += c;
        i += 1;
      }
      continue;
    }
    if (c === ',') {
      endField();
      i += 1;
    } else if (c === '\r' || c === '\n') {
      endField();
      records.push(record);
      record = [];
      i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    } else if (closed) {
      throw new Error(`text after a closing quote at offset ${i}`);
    } else if (c === '"') {
      if (field !== '') throw new Error(`a quote inside an unquoted field at offset ${i}`);
      quoted = true;
      i += 1;
    } else {
      field += c;
      i += 1;
    }
  }
  if (quoted && !closed) throw new Error('a quoted field is not closed at the end of the text');
  if (field !== '' || record.length > 0 || closed) {
    endField();
    records.push(record);
  }
  return records;
}

/** Records as objects keyed by the header record's names; every record must have the header's width. */
export function csvObjects(text: string): Array<Record<string, string>> {
  const [header, ...rows] = parseCsv(text);
  if (!header) return [];
  return rows.map((row, n) => {
    if (row.length !== header.length) throw new Error(`record ${n + 2} has ${row.length} fields, the header ${header.length}`);
    return Object.fromEntries(header.map((name, k) => [name, row[k] as string]));
  });
}

/** An exact decimal of US dollars ("-0.010000", "12.5") as integer micro-USD. */
export function usdToMicro(text: string): bigint {
  const match = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(text);
  if (!match) throw new Error(`not an exact dollar amount: ${JSON.stringify(text)}`);
  const micro = BigInt(match[2] as string) * 1_000_000n + BigInt((match[3] ?? '').padEnd(6, '0'));
  return match[1] ? -micro : micro;
}
