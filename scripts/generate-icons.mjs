// Writes the PWA icons in public/ from the same drawing as public/favicon.svg, so the installed
// app, the tab and the manifest agree. Plain Node (zlib) so it runs anywhere the build runs:
// `node scripts/generate-icons.mjs`. The PNGs are committed; rerun only when the design changes.
import { writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';

/** Samples per pixel side; 4×4 gives smooth edges without a real rasteriser. */
const SUPERSAMPLE = 4;
const BACKGROUND = [0x1f, 0x29, 0x33];
const FOREGROUND = [0xf5, 0xf7, 0xfa];
const ACCENT = [0x7b, 0xc4, 0xa6];

/** Shapes in the favicon's 64×64 coordinate space: [x0, y0, x1, y1, cornerRadius]. */
const BRACKET = [
  [18, 16, 46, 22, 0],
  [18, 22, 24, 42, 0],
  [18, 42, 46, 48, 0],
];
const TAB = [30, 28, 46, 36, 2];

function isInsideRoundedRect(x, y, [x0, y0, x1, y1, r]) {
  if (x < x0 || x > x1 || y < y0 || y > y1) return false;
  const cx = Math.min(Math.max(x, x0 + r), x1 - r);
  const cy = Math.min(Math.max(y, y0 + r), y1 - r);
  return (x - cx) ** 2 + (y - cy) ** 2 <= r * r;
}

/**
 * `maskable` fills the whole square (the platform cuts its own shape) and keeps the glyph inside
 * the central safe circle; the plain icon has the favicon's rounded corners.
 */
function colourAt(x, y, isMaskable) {
  const isBackground = isMaskable || isInsideRoundedRect(x, y, [0, 0, 64, 64, 14]);
  if (!isBackground) return null;
  // The maskable glyph is shrunk a little towards the centre so it stays in the 80% safe zone.
  const [gx, gy] = isMaskable ? [32 + (x - 32) / 0.85, 32 + (y - 32) / 0.85] : [x, y];
  if (isInsideRoundedRect(gx, gy, TAB)) return ACCENT;
  if (BRACKET.some((rect) => isInsideRoundedRect(gx, gy, rect))) return FOREGROUND;
  return BACKGROUND;
}

function renderRgba(size, isMaskable) {
  const pixels = Buffer.alloc(size * size * 4);
  const scale = 64 / size;
  for (let py = 0; py < size; py += 1) {
    for (let px = 0; px < size; px += 1) {
      const sum = [0, 0, 0, 0];
      for (let sy = 0; sy < SUPERSAMPLE; sy += 1) {
        for (let sx = 0; sx < SUPERSAMPLE; sx += 1) {
          const x = (px + (sx + 0.5) / SUPERSAMPLE) * scale;
          const y = (py + (sy + 0.5) / SUPERSAMPLE) * scale;
          const colour = colourAt(x, y, isMaskable);
          if (!colour) continue;
          sum[0] += colour[0];
          sum[1] += colour[1];
          sum[2] += colour[2];
          sum[3] += 1;
        }
      }
      const offset = (py * size + px) * 4;
      const covered = sum[3];
      pixels[offset] = covered ? Math.round(sum[0] / covered) : 0;
      pixels[offset + 1] = covered ? Math.round(sum[1] / covered) : 0;
      pixels[offset + 2] = covered ? Math.round(sum[2] / covered) : 0;
      pixels[offset + 3] = Math.round((covered / SUPERSAMPLE ** 2) * 255);
    }
  }
  return pixels;
}

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k += 1) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes) {
  let crc = 0xffffffff;
  for (const byte of bytes) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

function chunk(type, data) {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

function encodePng(size, rgba) {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 8; // bit depth
  header[9] = 6; // colour type RGBA
  const rows = Buffer.alloc(size * (size * 4 + 1));
  for (let y = 0; y < size; y += 1) {
    rows[y * (size * 4 + 1)] = 0; // filter: none
    rgba.copy(rows, y * (size * 4 + 1) + 1, y * size * 4, (y + 1) * size * 4);
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(rows, { level: 9 })),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

const ICONS = [
  { file: 'icon-192.png', size: 192, isMaskable: false },
  { file: 'icon-512.png', size: 512, isMaskable: false },
  { file: 'icon-maskable-512.png', size: 512, isMaskable: true },
  { file: 'apple-touch-icon-180.png', size: 180, isMaskable: true },
];

for (const { file, size, isMaskable } of ICONS) {
  const path = new URL(`../public/${file}`, import.meta.url);
  writeFileSync(path, encodePng(size, renderRgba(size, isMaskable)));
  console.log(`wrote public/${file}`);
}
