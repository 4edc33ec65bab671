import assert from 'node:assert/strict';
import { Catalog } from '../../../src/domain/catalog/catalog.ts';
import type { MeasuredMedia, ValidatedInput } from '../../../src/domain/catalog/catalog.types.ts';
import { AppError } from '../../../src/domain/errors.ts';

export const catalog = Catalog.build();

export const IMG = 'https://media.example.com/a.png';
export const IMG2 = 'https://media.example.com/b.png';
export const VID = 'https://media.example.com/a.mp4';
export const VID2 = 'https://media.example.com/b.mp4';
export const AUD = 'https://media.example.com/a.mp3';
export const AUD2 = 'https://media.example.com/b.mp3';

export function valid(model: string, input: unknown): ValidatedInput {
  return catalog.validate(model, input);
}

/** Micro-USD charged for a request. */
export function cost(model: string, input: unknown, measured: MeasuredMedia[] = []): number {
  return catalog.price(model, catalog.validate(model, input), measured).costMicro;
}

export function video(url: string, durationS: number, format = 'mp4', bytes = 1_000_000): MeasuredMedia {
  return { url, durationS, format, bytes };
}

export function audio(url: string, durationS: number, format = 'mp3', bytes = 100_000): MeasuredMedia {
  return { url, durationS, format, bytes };
}

/** Asserts `fn` throws invalid_input (HTTP 400) whose param is `field` and whose message names it. */
export function refused(fn: () => unknown, field: string, pattern?: RegExp): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof AppError, `expected AppError, got ${String(error)}`);
    assert.equal(error.code, 'invalid_input');
    assert.equal(error.status, 400);
    assert.equal(error.param, field, `param of "${error.message}"`);
    assert.ok(error.message.includes(field), `message "${error.message}" does not name ${field}`);
    if (pattern) assert.match(error.message, pattern);
    return true;
  });
}

/** Shorthand: validating `input` for `model` is refused on `field` (written without `input.`). */
export function rejects(model: string, input: unknown, field: string, pattern?: RegExp): void {
  refused(() => catalog.validate(model, input), field === 'model' || field === 'input' ? field : `input.${field}`, pattern);
}
