/**
 * One CSV record (RFC 4180: fields with a comma, a quote or a line break are quoted, quotes doubled),
 * ended by CRLF. Text a user wrote is kept from being read as a formula by a spreadsheet (OWASP's CSV
 * injection advice: a leading =, +, -, @, tab or carriage return gets a leading apostrophe); numbers
 * are passed as numbers and keep their sign.
 */
export type CsvField = string | number | boolean | null | { text: string };

const NEEDS_QUOTES = /[",\r\n]/;
const FORMULA_START = /^[=+\-@\t\r]/;

export function csvRecord(fields: readonly CsvField[]): string {
  return `${fields.map(csvField).join(',')}\r\n`;
}

function csvField(field: CsvField): string {
  if (field === null) return '';
  if (typeof field === 'number' || typeof field === 'boolean') return String(field);
  const raw = typeof field === 'string' ? field : FORMULA_START.test(field.text) ? `'${field.text}` : field.text;
  return NEEDS_QUOTES.test(raw) ? `"${raw.replaceAll('"', '""')}"` : raw;
}
