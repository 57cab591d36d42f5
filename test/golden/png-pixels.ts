/**
 * Golden-image comparison, pixelmatch-style, in a few lines over raw RGBA: the PNGs compared are
 * resvg's own (8-bit RGBA, not interlaced), so decoding is inflate and PNG's five row filters, and the
 * diff image is written with filter 0. No dependency: node:zlib does the compression.
 */
import { deflateSync, inflateSync } from 'node:zlib';

export interface Pixels {
  width: number;
  height: number;
  /** RGBA, row after row. */
  data: Uint8Array;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

export function decodePng(png: Buffer): Pixels {
  if (!png.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG');
  let width = 0;
  let height = 0;
  const idat: Buffer[] = [];
  for (let at = 8; at < png.length; ) {
    const length = png.readUInt32BE(at);
    const type = png.toString('latin1', at + 4, at + 8);
    const body = png.subarray(at + 8, at + 8 + length);
    if (type === 'IHDR') {
      width = body.readUInt32BE(0);
      height = body.readUInt32BE(4);
      if (body[8] !== 8 || body[9] !== 6 || body[12] !== 0) throw new Error('only 8-bit RGBA, not interlaced (what resvg writes)');
    } else if (type === 'IDAT') idat.push(body);
    at += 12 + length;
  }
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * 4;
  const data = new Uint8Array(stride * height);
  for (let y = 0; y < height; y++) {
    const filter = raw[y * (stride + 1)];
    for (let x = 0; x < stride; x++) {
      const byte = raw[y * (stride + 1) + 1 + x] ?? 0;
      const a = x >= 4 ? (data[y * stride + x - 4] ?? 0) : 0;
      const b = y > 0 ? (data[(y - 1) * stride + x] ?? 0) : 0;
      const c = x >= 4 && y > 0 ? (data[(y - 1) * stride + x - 4] ?? 0) : 0;
      data[y * stride + x] = (byte + predictor(filter ?? 0, a, b, c)) & 0xff;
    }
  }
  return { width, height, data };
}

function predictor(filter: number, a: number, b: number, c: number): number {
  if (filter === 0) return 0;
  if (filter === 1) return a;
  if (filter === 2) return b;
  if (filter === 3) return (a + b) >> 1;
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  return pa <= pb && pa <= pc ? a : pb <= pc ? b : c;
}

export function encodePng(image: Pixels): Buffer {
  const stride = image.width * 4;
  const raw = Buffer.alloc((stride + 1) * image.height);
  for (let y = 0; y < image.height; y++) raw.set(image.data.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(image.width, 0);
  header.writeUInt32BE(image.height, 4);
  header.set([8, 6, 0, 0, 0], 8);
  return Buffer.concat([SIGNATURE, chunk('IHDR', header), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

function chunk(type: string, body: Buffer): Buffer {
  const out = Buffer.alloc(12 + body.length);
  out.writeUInt32BE(body.length, 0);
  out.write(type, 4, 'latin1');
  body.copy(out, 8);
  out.writeUInt32BE(crc32(out.subarray(4, 8 + body.length)), 8 + body.length);
  return out;
}

function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of bytes) {
    crc ^= byte;
    for (let k = 0; k < 8; k++) crc = crc & 1 ? (crc >>> 1) ^ 0xedb88320 : crc >>> 1;
  }
  return (crc ^ 0xffffffff) >>> 0;
}

export interface Tolerance {
  /** A pixel differs when one of its channels differs by more than this (0-255): anti-aliasing stays under it. */
  channel: number;
  /** The comparison fails when more than this share of the pixels differ. */
  ratio: number;
}

export interface Comparison {
  ok: boolean;
  differing: number;
  ratio: number;
  /** The expected picture faded, the differing pixels red. */
  diff: Pixels;
  why?: string;
}

export function comparePixels(actual: Pixels, expected: Pixels, tolerance: Tolerance): Comparison {
  const width = Math.max(actual.width, expected.width);
  const height = Math.max(actual.height, expected.height);
  const diff: Pixels = { width, height, data: new Uint8Array(width * height * 4) };
  let differing = 0;
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const inside = x < actual.width && y < actual.height && x < expected.width && y < expected.height;
      const a = (y * actual.width + x) * 4;
      const e = (y * expected.width + x) * 4;
      let differs = !inside;
      for (let c = 0; c < 4 && !differs; c++)
        differs = Math.abs((actual.data[a + c] ?? 0) - (expected.data[e + c] ?? 0)) > tolerance.channel;
      const light = inside ? ((expected.data[e] ?? 0) + (expected.data[e + 1] ?? 0) + (expected.data[e + 2] ?? 0)) / 3 : 255;
      const grey = 255 - Math.round((255 - light) / 4);
      diff.data.set(differs ? [255, 0, 0, 255] : [grey, grey, grey, 255], (y * width + x) * 4);
      if (differs) differing += 1;
    }
  const ratio = differing / (width * height);
  const sized = actual.width === expected.width && actual.height === expected.height;
  return {
    ok: sized && ratio <= tolerance.ratio,
    differing,
    ratio,
    diff,
    ...(sized ? {} : { why: `size ${actual.width}×${actual.height}, expected ${expected.width}×${expected.height}` }),
  };
}
