// A member whose name matches a declared property only once case, surrounding spaces and the way
// words are joined are ignored (`"First Name"`, `firstName`, `FIRST-NAME` for `first_name`). The
// member is renamed only when exactly one declared property folds to the same text and the object
// does not already hold it: two candidates are a guess, and a guess is never made.
import type { Effective } from './effective.js';

const AMBIGUOUS = '';
/** Per schema record: folded name → the one declared name it folds from ('' when several do). */
const folded = new WeakMap<Effective, Map<string, string>>();

/** The name folded: lower case, without spaces, underscores, hyphens and dots. */
export function foldName(name: string): string {
  return name.toLowerCase().replace(/[\s_.-]+/g, '');
}

/** The declared property `name` stands for, or undefined when none or several. */
export function declaredNameFor(e: Effective, name: string, target: Record<string, unknown>): string | undefined {
  if (e.properties === null) return undefined;
  let map = folded.get(e);
  if (map === undefined) {
    map = new Map();
    for (const declared of e.properties.keys()) {
      const key = foldName(declared);
      const seen = map.get(key);
      map.set(key, seen === undefined ? declared : AMBIGUOUS);
    }
    folded.set(e, map);
  }
  const found = map.get(foldName(name));
  if (found === undefined || found === AMBIGUOUS || Object.hasOwn(target, found)) return undefined;
  return found;
}
