/**
 * Agent money fields whose names end in `MicroUsd` are decimal integer strings on the wire
 * (SPEC "Conventions": 1000000 = USD 1).
 */
import { invalidInput } from '../errors.ts';

const DECIMAL_INTEGER = /^(0|[1-9][0-9]{0,15})$/;

export function parseMicroUsdString(value: unknown, field: string): number {
  if (typeof value !== 'string' || !DECIMAL_INTEGER.test(value)) {
    throw invalidInput(`${field} must be a decimal integer string of micro-USD (1000000 = USD 1)`, field);
  }
  const micro = Number(value);
  if (!Number.isSafeInteger(micro)) throw invalidInput(`${field} is too large`, field);
  return micro;
}

export function microUsdString(micro: number): string {
  return String(micro);
}
