/**
 * A value quoted for an error message or a log line, cut to a bounded length: an input must never be
 * able to make a response or a log line as large as itself.
 */
export function echo(value: string, max = 80): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}
