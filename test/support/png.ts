import { crc32, deflateSync } from 'node:zlib';

/**
 * A PNG built by hand from its header fields and raw scanlines (each row: a filter byte, then its
 * bytes), for tests that need what an encoder will not write: a header that claims more pixels than
 * its data holds, or a 1-bit image of 16k×16k that is tiny on disk.
 */
export function handMadePng(ihdr: { width: number; height: number; bitDepth: number; colourType: number }, scanlines: Buffer): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(ihdr.width, 0);
  header.writeUInt32BE(ihdr.height, 4);
  header.writeUInt8(ihdr.bitDepth, 8);
  header.writeUInt8(ihdr.colourType, 9);
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(scanlines, { level: 9 })), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'latin1');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0);
  return Buffer.concat([head, data, crc]);
}
