// When the whole-text answer's canonical text does not start with what a stream committed, the
// answer may still be reachable from it: the committed text holds whole members in the order the
// model wrote them, and JSON.stringify would have moved a member named like an array index
// (`{"name": "x", "2024": 5}`) or kept only the last of a name given twice. Then the rest of the
// answer's members are written after the committed ones, so the text parses to the answer (a name
// given again carries its last value, as JSON.parse reads it). Null when the answer lacks something
// committed (another value, a member dropped): heal-json.ts settle keeps the committed value then.

import { escapedText } from './growing-string.js';

/**
 * The text that completes `committed` (canonical JSON cut between members or inside a string, closed by `closer`) into
 * a text whose value is `answer`, or null when no such text starts with `committed`.
 */
export function completion(committed: string, closer: string, answer: unknown): string | null {
  let shown: unknown;
  try {
    shown = JSON.parse(committed + closer);
  } catch {
    return null;
  }
  // The committed text may end inside a string member (its closing quote waits): completing it
  // starts there (completeObject).
  const openString = closer.charCodeAt(0) === 0x22; // "
  return complete(shown, answer, closer.length - (openString ? 1 : 0), openString);
}

/**
 * `open`: how many containers, this one included, are still open down the committed path;
 * `openString`: the innermost one's last member is a string whose closing quote is not committed.
 */
function complete(shown: unknown, answer: unknown, open: number, openString: boolean): string | null {
  if (shown === null || typeof shown !== 'object' || answer === null || typeof answer !== 'object') return null;
  if (Array.isArray(shown) !== Array.isArray(answer)) return null;
  if (Array.isArray(shown)) return completeArray(shown, answer as unknown[], open, openString);
  return completeObject(shown as Record<string, unknown>, answer as Record<string, unknown>, open, openString);
}

function completeArray(shown: unknown[], answer: unknown[], open: number, openString: boolean): string | null {
  // Only an object's string members are committed open (canonical-writer.ts).
  if (answer.length < shown.length || (openString && open === 1)) return null;
  let text = '';
  const last = shown.length - 1;
  for (let k = 0; k < shown.length; k++) {
    if (k === last && open > 1) {
      const inner = complete(shown[k], answer[k], open - 1, openString);
      if (inner === null) return null;
      text += inner;
    } else if (JSON.stringify(shown[k]) !== JSON.stringify(answer[k])) return null;
  }
  for (let k = shown.length; k < answer.length; k++) text += (k > 0 ? ',' : '') + JSON.stringify(answer[k]);
  return text + ']';
}

function completeObject(shown: Record<string, unknown>, answer: Record<string, unknown>, open: number, openString: boolean): string | null {
  const names = Object.keys(shown);
  // The open member (the last, when a container below is still open) is completed first.
  let text = '';
  let again = '';
  let count = names.length;
  const last = names.length - 1;
  for (let k = 0; k < names.length; k++) {
    const name = names[k]!;
    if (!Object.hasOwn(answer, name)) return null;
    if (k === last && open > 1) {
      const inner = complete(shown[name], answer[name], open - 1, openString);
      if (inner === null) return null;
      text = inner;
    } else if (k === last && openString) {
      const was = shown[name] as string;
      const now = answer[name];
      // The string goes on where the committed text stopped; one the answer changed is closed and given again.
      if (typeof now === 'string' && now.startsWith(was)) text = escapedText(now.slice(was.length)) + '"';
      else {
        text = '"';
        // repair: the answer's value for the name is written again after the one begun: the last counts
        again += ',' + JSON.stringify(name) + ':' + JSON.stringify(now);
      }
    } else if (JSON.stringify(shown[name]) !== JSON.stringify(answer[name])) {
      // repair: a member whose answer differs (a name given twice) is written again: the last counts
      again += ',' + JSON.stringify(name) + ':' + JSON.stringify(answer[name]);
    }
  }
  text += again;
  for (const name of Object.keys(answer)) {
    if (Object.hasOwn(shown, name)) continue;
    text += (count > 0 ? ',' : '') + JSON.stringify(name) + ':' + JSON.stringify(answer[name]);
    count++;
  }
  return text + '}';
}
