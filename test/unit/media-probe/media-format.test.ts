import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { detectFormat, normalizeFormatName } from '../../../src/domain/files/media-format.ts';

function bytes(...parts: Array<string | number[]>): Buffer {
  return Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));
}

describe('detectFormat', () => {
  test('recognises each container by its magic bytes', () => {
    const cases: Array<[Buffer, string]> = [
      [bytes([0x89], 'PNG\r\n\x1a\n', [0, 0, 0, 13]), 'png'],
      [bytes([0xff, 0xd8, 0xff, 0xe0, 0, 0x10]), 'jpeg'],
      [bytes('GIF89a', [1, 0, 1, 0]), 'gif'],
      [bytes('RIFF', [0, 0, 0, 0], 'WEBPVP8 '), 'webp'],
      [bytes('RIFF', [0, 0, 0, 0], 'WAVEfmt '), 'wav'],
      [bytes([0, 0, 0, 0x18], 'ftypisom', [0, 0, 2, 0]), 'mp4'],
      [bytes([0, 0, 0, 0x14], 'ftypqt  ', [0, 0, 2, 0]), 'mov'],
      [bytes([0, 0, 0, 0x08], 'wide', [0, 0, 0, 8], 'mdat'), 'mov'],
      [bytes([0, 0, 0, 0x18], 'ftypM4A ', [0, 0, 2, 0]), 'm4a'],
      [bytes([0, 0, 0, 0x18], 'ftypavif', [0, 0, 0, 0]), 'avif'],
      [bytes([0, 0, 0, 0x18], 'ftypheic', [0, 0, 0, 0]), 'heic'],
      [bytes([0x1a, 0x45, 0xdf, 0xa3, 0x9f, 0x42, 0x82, 0x84], 'webm'), 'webm'],
      [bytes([0x1a, 0x45, 0xdf, 0xa3, 0xa3, 0x42, 0x82, 0x88], 'matroska'), 'mkv'],
      [bytes('OggS', [0, 2, 0, 0]), 'ogg'],
      [bytes('fLaC', [0, 0, 0, 0x22]), 'flac'],
      [bytes([0xff, 0xfb, 0x90, 0x64]), 'mp3'],
      [bytes('ID3', [3, 0, 0, 0, 0, 0, 2], [0, 0], [0xff, 0xfb, 0x90, 0x64]), 'mp3'],
      [bytes([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc]), 'aac'],
      [bytes('II*\x00', [8, 0, 0, 0]), 'tiff'],
    ];
    for (const [data, format] of cases) assert.equal(detectFormat(data), format, format);
  });

  test('text, empty input and near misses are not media', () => {
    assert.equal(detectFormat(Buffer.from('<html><body>not an image</body></html>')), undefined);
    assert.equal(detectFormat(Buffer.alloc(0)), undefined);
    assert.equal(detectFormat(Buffer.from([0xff, 0xd8])), undefined);
    assert.equal(detectFormat(bytes('RIFF', [0, 0, 0, 0], 'AVI LIST')), undefined);
    // A frame sync with a reserved bitrate index is not MP3.
    assert.equal(detectFormat(Buffer.from([0xff, 0xfb, 0xf0, 0x64])), undefined);
    assert.equal(detectFormat(bytes('ID3', [3, 0, 0, 0, 0, 0, 2], [0, 0], 'junk')), undefined);
  });

  test('format names people write map to ours', () => {
    assert.equal(normalizeFormatName('JPG'), 'jpeg');
    assert.equal(normalizeFormatName(' quicktime '), 'mov');
    assert.equal(normalizeFormatName('mp4'), 'mp4');
  });
});
