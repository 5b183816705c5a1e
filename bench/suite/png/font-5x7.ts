// A 5×7 bitmap font for chart labels (printable ASCII plus µ), with two more rows below the
// baseline for descenders (g j p q y). Each glyph is its rows, top first, one base-32 digit (0-9, a-v)
// per row whose five bits are the pixels, leftmost pixel highest; missing rows are blank.
const GLYPHS: Record<string, string> = {
  ' ': '0000000', '!': '4444404', '"': 'aaa0000', '#': 'aavavaa', '%': 'op248j3', "'": '4480000',
  '(': '2488842', ')': '8422248', '*': '04lel40', '+': '044v440', ',': '0000c48', '-': '000v000',
  '.': '00000cc', '/': '122488g', ':': '0cc0cc0', ';': '0cc0c48', '<': '248g842', '=': '00v0v00',
  '>': '8421248', '?': 'eh12404', '[': 'e88888e', ']': 'e22222e', '_': '000000v', '|': '4444444',
  '{': '2448442', '}': '8442448', '~': '008l200', 'µ': '0hhhrlg',
  '0': 'ehjlphe', '1': '4c4444e', '2': 'eh1248v', '3': 'v2421he', '4': '26aiv22',
  '5': 'vgu11he', '6': '68guhhe', '7': 'v124888', '8': 'ehhehhe', '9': 'ehhf12c',
  A: 'ehhvhhh', B: 'uhhuhhu', C: 'ehggghe', D: 'sihhhis', E: 'vgguggv', F: 'vgguggg', G: 'ehgnhhf',
  H: 'hhhvhhh', I: 'e44444e', J: '72222ic', K: 'hikokih', L: 'ggggggv', M: 'hrllhhh', N: 'hhpljhh',
  O: 'ehhhhhe', P: 'uhhuggg', Q: 'ehhhlid', R: 'uhhukih', S: 'fgge11u', T: 'v444444', U: 'hhhhhhe',
  V: 'hhhhha4', W: 'hhhllla', X: 'hha4ahh', Y: 'hha4444', Z: 'v1248gv',
  a: '00e1fhf', b: 'ggmphhu', c: '00egghe', d: '11djhhf', e: '00ehvge', f: '698s888', g: '00fhhhf1e',
  h: 'ggmphhh', i: '40c444e', j: '2062222ic', k: 'ggikoki', l: 'c44444e', m: '00qllhh', n: '00mphhh',
  o: '00ehhhe', p: '00uhhhugg', q: '00fhhhf11', r: '00mpggg', s: '00ege1u', t: '88s8896', u: '00hhhjd',
  v: '00hhha4', w: '00hhlla', x: '00ha4ah', y: '00hhhhf1e', z: '00v248v',
};

export const GLYPH_WIDTH = 5;
export const GLYPH_HEIGHT = 9;
const UNKNOWN = 'vhhhhhv'; // a box

/** The GLYPH_HEIGHT rows of the glyph for `char`, each a 5-bit number (bit 4 = leftmost pixel). */
export function glyphRows(char: string): number[] {
  const code = (GLYPHS[char] ?? UNKNOWN).padEnd(GLYPH_HEIGHT, '0');
  return [...code].map((digit) => parseInt(digit, 32));
}
