// A small RGB canvas: rectangles, thick lines, square markers and 5×7 text scaled up, drawn
// straight into a pixel buffer for png-writer.
import { GLYPH_HEIGHT, GLYPH_WIDTH, glyphRows } from './font-5x7.js';
import { encodePng } from './png-writer.js';

export type Colour = readonly [number, number, number];

export class Bitmap {
  readonly pixels: Uint8Array;

  constructor(readonly width: number, readonly height: number, background: Colour = [255, 255, 255]) {
    this.pixels = new Uint8Array(width * height * 3);
    this.fillRect(0, 0, width, height, background);
  }

  setPixel(x: number, y: number, colour: Colour): void {
    const px = Math.round(x);
    const py = Math.round(y);
    if (px < 0 || py < 0 || px >= this.width || py >= this.height) return;
    const at = (py * this.width + px) * 3;
    this.pixels[at] = colour[0];
    this.pixels[at + 1] = colour[1];
    this.pixels[at + 2] = colour[2];
  }

  fillRect(x: number, y: number, width: number, height: number, colour: Colour): void {
    for (let py = Math.round(y); py < Math.round(y + height); py++) {
      for (let px = Math.round(x); px < Math.round(x + width); px++) this.setPixel(px, py, colour);
    }
  }

  /** A line `thickness` pixels wide (a square brush moved along it). */
  line(x0: number, y0: number, x1: number, y1: number, colour: Colour, thickness = 1, dash = 0): void {
    const steps = Math.max(1, Math.ceil(Math.max(Math.abs(x1 - x0), Math.abs(y1 - y0))));
    const half = Math.floor(thickness / 2);
    for (let i = 0; i <= steps; i++) {
      if (dash > 0 && Math.floor(i / dash) % 2 === 1) continue;
      const x = Math.round(x0 + ((x1 - x0) * i) / steps);
      const y = Math.round(y0 + ((y1 - y0) * i) / steps);
      this.fillRect(x - half, y - half, thickness, thickness, colour);
    }
  }

  marker(x: number, y: number, colour: Colour, size = 7): void {
    const half = Math.floor(size / 2);
    this.fillRect(x - half, y - half, size, size, colour);
  }

  textWidth(text: string, scale = 2): number {
    return text.length * (GLYPH_WIDTH + 1) * scale - scale;
  }

  /** Text with its top-left corner at (x, y); `align` moves the anchor to the middle or the end. */
  text(x: number, y: number, text: string, colour: Colour, scale = 2, align: 'left' | 'center' | 'right' = 'left'): void {
    const width = this.textWidth(text, scale);
    let left = align === 'left' ? x : align === 'center' ? x - width / 2 : x - width;
    left = Math.round(left);
    for (const char of text) {
      glyphRows(char).forEach((bits, row) => {
        for (let col = 0; col < GLYPH_WIDTH; col++) {
          if (bits & (1 << (GLYPH_WIDTH - 1 - col))) this.fillRect(left + col * scale, y + row * scale, scale, scale, colour);
        }
      });
      left += (GLYPH_WIDTH + 1) * scale;
    }
  }

  /** Text turned a quarter to the left (reading upwards), centred on (x, y). */
  verticalText(x: number, y: number, text: string, colour: Colour, scale = 2): void {
    const width = this.textWidth(text, scale);
    let bottom = Math.round(y + width / 2);
    const left = Math.round(x - (GLYPH_HEIGHT * scale) / 2);
    for (const char of text) {
      glyphRows(char).forEach((bits, row) => {
        for (let col = 0; col < GLYPH_WIDTH; col++) {
          if (bits & (1 << (GLYPH_WIDTH - 1 - col))) this.fillRect(left + row * scale, bottom - (col + 1) * scale, scale, scale, colour);
        }
      });
      bottom -= (GLYPH_WIDTH + 1) * scale;
    }
  }

  toPng(): Buffer {
    return encodePng(this.width, this.height, this.pixels);
  }
}
