// The streaming healer's property on one text (engine/heal/): cut into deltas anywhere, the deltas
// joined equal healJson's text for the whole, and every prefix sent is a prefix of it.
import { createJsonHealer, healJson } from '../../engine/index.js';

/**
 * Cuts `text` at `cuts` (offsets, any order, duplicates allowed: empty deltas), pushes the pieces
 * and finishes; throws when the property fails.
 */
export function check(text: string, schema: object | undefined, cuts: number[], truncated = false): void {
  const want = healJson(text, { schema, truncated }).text;
  const points = [...new Set(cuts.map((c) => Math.min(c, text.length)))].sort((a, b) => a - b);
  const healer = createJsonHealer({ schema });
  let sent = '';
  let from = 0;
  for (const at of [...points, text.length]) {
    sent += healer.push(text.slice(from, at));
    from = at;
    if (!want.startsWith(sent)) throw new Error(`sent ${JSON.stringify(sent)}, not a prefix of ${JSON.stringify(want)} (text ${JSON.stringify(text)}, cuts ${points})`);
  }
  const end = healer.finish({ truncated });
  sent += end.delta;
  if (sent !== want) throw new Error(`joined ${JSON.stringify(sent)} != ${JSON.stringify(want)} (text ${JSON.stringify(text)}, cuts ${points})`);
  if (end.result.text !== want) throw new Error(`result.text ${JSON.stringify(end.result.text)} != ${JSON.stringify(want)}`);
}
