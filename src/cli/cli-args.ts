/** Minimal `--name value` / `--flag` parsing for the operator CLI. */
export interface ParsedArgs {
  positional: string[];
  options: Map<string, string>;
}

export function parseArgs(args: string[]): ParsedArgs {
  const positional: string[] = [];
  const options = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] ?? '';
    if (arg.startsWith('--')) {
      const [name, inline] = arg.slice(2).split('=', 2) as [string, string | undefined];
      if (inline !== undefined) options.set(name, inline);
      else if (i + 1 < args.length && !(args[i + 1] ?? '').startsWith('--')) options.set(name, args[++i] ?? '');
      else options.set(name, 'true');
    } else {
      positional.push(arg);
    }
  }
  return { positional, options };
}

export class UsageError extends Error {}

export function requireArg(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`missing ${what}`);
  return value;
}

export function integerOption(args: ParsedArgs, name: string): number | undefined {
  const v = args.options.get(name);
  if (v === undefined) return undefined;
  if (!/^-?\d+$/.test(v)) throw new UsageError(`--${name} must be an integer, got ${JSON.stringify(v)}`);
  return Number(v);
}
