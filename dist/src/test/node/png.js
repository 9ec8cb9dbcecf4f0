// Small PNG images made in the test, so no binary file is checked in: truecolour, 8 bits, no
// interlace, one zlib stream (RFC 2083), each pixel's colour from `paint(x, y)` as [r, g, b].
import { crc32, deflateSync } from 'node:zlib';

function chunk(type, data) {
  const out = Buffer.alloc(12 + data.length);
  out.writeUInt32BE(data.length, 0);
  out.write(type, 4, 'latin1');
  data.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length);
  return out;
}

/** A width x height PNG, as bytes. */
export function png(width, height, paint) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8 bits, RGB, deflate, adaptive filtering, no interlace
  const rows = Buffer.alloc(height * (1 + 3 * width));
  for (let y = 0; y < height; y++) {
    const row = y * (1 + 3 * width); // filter byte 0: the row as it is
    for (let x = 0; x < width; x++) {
      rows.set(paint(x, y), row + 1 + 3 * x);
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

/** A PNG's data URI. */
export function pngDataUri(bytes) {
  return `data:image/png;base64,${bytes.toString('base64')}`;
}
