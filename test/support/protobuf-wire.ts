/**
 * The protobuf wire format (protobuf.dev/programming-guides/encoding), read without a schema: a
 * message is a list of fields, each a tag (field number and wire type) and a value. Enough to decode
 * OTLP in tests; what a field means is the caller's (test/support/otlp-protobuf.ts). Anything
 * malformed throws, so a collector can refuse the body as a real one would.
 */

export type WireField =
  | { field: number; wire: 'varint'; value: bigint }
  | { field: number; wire: 'i64'; value: Buffer }
  | { field: number; wire: 'len'; value: Buffer }
  | { field: number; wire: 'i32'; value: Buffer };

const VARINT = 0;
const I64 = 1;
const LEN = 2;
const I32 = 5;

/** Every field of one message, in wire order (repeated fields appear once per element). */
export function readFields(bytes: Buffer): WireField[] {
  const fields: WireField[] = [];
  let at = 0;
  while (at < bytes.length) {
    const tag = readVarint(bytes, at);
    at = tag.next;
    const field = Number(tag.value >> 3n);
    const wire = Number(tag.value & 7n);
    if (field === 0) throw new Error(`field number 0 at byte ${at}`);
    if (wire === VARINT) {
      const v = readVarint(bytes, at);
      fields.push({ field, wire: 'varint', value: v.value });
      at = v.next;
    } else if (wire === I64 || wire === I32) {
      const size = wire === I64 ? 8 : 4;
      if (at + size > bytes.length) throw new Error(`field ${field} runs past the end`);
      fields.push({ field, wire: wire === I64 ? 'i64' : 'i32', value: bytes.subarray(at, at + size) });
      at += size;
    } else if (wire === LEN) {
      const length = readVarint(bytes, at);
      const end = length.next + Number(length.value);
      if (end > bytes.length) throw new Error(`field ${field} runs past the end`);
      fields.push({ field, wire: 'len', value: bytes.subarray(length.next, end) });
      at = end;
    } else {
      // 3 and 4 are the deprecated groups, 6 and 7 do not exist: OTLP never sends them.
      throw new Error(`wire type ${wire} (field ${field}) at byte ${at}`);
    }
  }
  return fields;
}

/** A base-128 varint: 7 bits a byte, least significant first, at most 10 bytes (64 bits). */
function readVarint(bytes: Buffer, start: number): { value: bigint; next: number } {
  let value = 0n;
  for (let i = 0; i < 10; i++) {
    const byte = bytes[start + i];
    if (byte === undefined) throw new Error(`varint at byte ${start} runs past the end`);
    value |= BigInt(byte & 0x7f) << BigInt(7 * i);
    if ((byte & 0x80) === 0) return { value: BigInt.asUintN(64, value), next: start + i + 1 };
  }
  throw new Error(`varint at byte ${start} is longer than 10 bytes`);
}

/** The value of a `len` field (string, bytes or embedded message); any other wire type is malformed for it. */
export function lengthDelimited(f: WireField): Buffer {
  if (f.wire !== 'len') throw new Error(`field ${f.field} is ${f.wire}, expected length-delimited`);
  return f.value;
}

export function varint(f: WireField): bigint {
  if (f.wire !== 'varint') throw new Error(`field ${f.field} is ${f.wire}, expected varint`);
  return f.value;
}

/** A fixed64 (little-endian, unsigned). */
export function fixed64(f: WireField): bigint {
  if (f.wire !== 'i64') throw new Error(`field ${f.field} is ${f.wire}, expected 64-bit`);
  return f.value.readBigUInt64LE(0);
}

/** A double (IEEE 754, little-endian). */
export function double(f: WireField): number {
  if (f.wire !== 'i64') throw new Error(`field ${f.field} is ${f.wire}, expected 64-bit`);
  return f.value.readDoubleLE(0);
}

/** A UTF-8 string field; invalid UTF-8 is malformed (proto3 strings must be valid). */
export function utf8(f: WireField): string {
  return new TextDecoder('utf-8', { fatal: true }).decode(lengthDelimited(f));
}
