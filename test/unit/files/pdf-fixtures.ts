/** Small PDFs as common tools write them, for the text extraction tests. */
import { deflateSync } from 'node:zlib';

interface Stream {
  dictionary: string;
  data: Buffer;
}

/** A PDF of one page per content stream, plus any other streams (pictures, fonts), with a cross-reference. */
export function pdfOf(contents: Stream[], others: Stream[] = []): Buffer {
  const objects: Buffer[] = [];
  const pageIds = contents.map((_, i) => 3 + i * 2);
  objects.push(Buffer.from('<< /Type /Catalog /Pages 2 0 R >>'));
  objects.push(Buffer.from(`<< /Type /Pages /Kids [${pageIds.map((id) => `${id} 0 R`).join(' ')}] /Count ${contents.length} >>`));
  contents.forEach((content, i) => {
    objects.push(Buffer.from(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> /Contents ${pageIds[i] as number + 1} 0 R >>`));
    objects.push(streamObject(content));
  });
  for (const other of others) objects.push(streamObject(other));
  const parts: Buffer[] = [Buffer.from('%PDF-1.7\n%\xe2\xe3\xcf\xd3\n', 'latin1')];
  const offsets: number[] = [];
  let at = parts[0]?.length ?? 0;
  objects.forEach((body, i) => {
    offsets.push(at);
    const object = Buffer.concat([Buffer.from(`${i + 1} 0 obj\n`), body, Buffer.from('\nendobj\n')]);
    parts.push(object);
    at += object.length;
  });
  const xref = [`xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`, ...offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`)].join('');
  parts.push(Buffer.from(`${xref}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${at}\n%%EOF\n`));
  return Buffer.concat(parts);
}

function streamObject(stream: Stream): Buffer {
  return Buffer.concat([Buffer.from(`<< /Length ${stream.data.length}${stream.dictionary} >>\nstream\n`), stream.data, Buffer.from('\nendstream')]);
}

export function plain(content: string): Stream {
  return { dictionary: '', data: Buffer.from(content, 'latin1') };
}

export function flate(content: string, extra = ''): Stream {
  return { dictionary: ` /Filter /FlateDecode${extra}`, data: deflateSync(Buffer.from(content, 'latin1')) };
}

export function image(bytes: number): Stream {
  return { dictionary: ' /Type /XObject /Subtype /Image /Width 10 /Height 10 /BitsPerComponent 8 /ColorSpace /DeviceGray', data: Buffer.alloc(bytes, 0x42) };
}

export function fontFile(content: string): Stream {
  return { dictionary: ` /Length1 ${content.length}`, data: Buffer.from(content, 'latin1') };
}
