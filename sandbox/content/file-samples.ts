import { crc32, deflateSync } from 'node:zlib';
import type { DocumentExtension } from '../data/records.ts';

export const MAX_CONTENT_LENGTH = 5_242_880;

const MEDIA_TYPES: Readonly<Record<DocumentExtension, string>> = { JPG: 'image/jpeg', JPEG: 'image/jpeg', PNG: 'image/png', PDF: 'application/pdf' };

export function mediaTypeOf(extension: DocumentExtension): string {
  return MEDIA_TYPES[extension];
}

const PDF_MAGIC = Buffer.from('%PDF');
const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const JPEG_MAGIC = Buffer.from([0xff, 0xd8, 0xff]);

/** Whether the bytes start with the signature of the extension's file format. */
export function hasMagicOf(extension: DocumentExtension, bytes: Buffer): boolean {
  const magic = extension === 'PDF' ? PDF_MAGIC : extension === 'PNG' ? PNG_MAGIC : JPEG_MAGIC;
  return bytes.length >= magic.length && bytes.subarray(0, magic.length).equals(magic);
}

// The standard anti-malware test signature; scanners flag any file containing it.
const EICAR_SIGNATURE = Buffer.from('EICAR-STANDARD-ANTIVIRUS-TEST-FILE');

export function containsEicar(bytes: Buffer): boolean {
  return bytes.includes(EICAR_SIGNATURE);
}

/**
 * Content for a seeded document that never had a real upload: the format's
 * header and trailer around filler, exactly `length` bytes long so that it
 * agrees with the record's contentLength.
 */
export function synthesizeFile(extension: DocumentExtension, length: number): Buffer {
  const head = extension === 'PDF' ? Buffer.from('%PDF-1.4\n%sandbox\n') : extension === 'PNG' ? PNG_MAGIC : Buffer.from([0xff, 0xd8, 0xff, 0xe0]);
  const tail = extension === 'PDF' ? Buffer.from('\n%%EOF\n') : extension === 'PNG' ? Buffer.alloc(0) : Buffer.from([0xff, 0xd9]);
  const out = Buffer.alloc(Math.max(length, head.length + tail.length), extension === 'PDF' ? 0x20 : 0);
  head.copy(out, 0);
  tail.copy(out, out.length - tail.length);
  return out;
}

function pngChunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typeAndData = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** The default thumbnail: a valid 16×16 grey PNG. */
function buildThumbnail(): Buffer {
  const size = 16;
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.writeUInt8(8, 8); // bit depth
  header.writeUInt8(0, 9); // greyscale
  const rows = Buffer.alloc(size * (size + 1), 0xc0);
  for (let y = 0; y < size; y++) rows[y * (size + 1)] = 0; // filter byte: none
  return Buffer.concat([PNG_MAGIC, pngChunk('IHDR', header), pngChunk('IDAT', deflateSync(rows)), pngChunk('IEND', Buffer.alloc(0))]);
}

export const THUMBNAIL_PNG = buildThumbnail();
