/**
 * The composer's result schema as typed: checked in the browser before any request (size first, so a
 * pasted huge text is never parsed; then JSON; then the top level). The closed subset itself is the
 * server's to judge: its refusal comes back as a 400 with a pointer, put into words by error-words.ts.
 */
/**
 * The server counts at most 120,000 characters of names and values (OUTPUT_SCHEMA_LIMITS.characters in
 * src/domain/agent/output-schema.ts, not imported: that module needs Node);
 * the text around them (quotes, keywords, spaces) is allowed as much again. A longer text could not
 * pass, and is refused here without a request.
 */
const SERVER_CHARACTERS = 120_000;
export const MAX_SCHEMA_TEXT = SERVER_CHARACTERS * 2;

export type SchemaTextCheck = { kind: 'empty' } | { kind: 'ok'; schema: Record<string, unknown> } | { kind: 'invalid'; message: string };

export function checkSchemaText(text: string): SchemaTextCheck {
  if (text.trim() === '') return { kind: 'empty' };
  if (text.length > MAX_SCHEMA_TEXT) {
    return { kind: 'invalid', message: `The schema is ${text.length.toLocaleString('en-US')} characters long; at most ${MAX_SCHEMA_TEXT.toLocaleString('en-US')} are accepted. Shorten it.` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { kind: 'invalid', message: `The schema is not valid JSON${placeOf(text, error)}. Check quotes, commas and brackets there.` };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return { kind: 'invalid', message: 'The schema must be a JSON object, such as {"type": "object", "properties": {…}}.' };
  const schema = value as Record<string, unknown>;
  if (schema.type !== 'object') return { kind: 'invalid', message: 'The top level of the schema must have "type": "object".' };
  return { kind: 'ok', schema };
}

/** " near line 3, column 7" from the browser's parse error (its character position), or nothing. */
function placeOf(text: string, error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  const line = /line (\d+) column (\d+)/.exec(message);
  if (line) return ` near line ${line[1]}, column ${line[2]}`;
  const position = /position (\d+)/.exec(message);
  if (!position) return /end of JSON input/i.test(message) ? ': it ends too early' : '';
  const before = text.slice(0, Number(position[1])).split('\n');
  return ` near line ${before.length}, column ${(before.at(-1)?.length ?? 0) + 1}`;
}
