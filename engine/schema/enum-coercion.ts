// Enum and const (a one-member enum): an exact member passes; a string that equals exactly one
// string member once both are trimmed and lower-cased is replaced by that member (enum_coercion,
// low confidence); anything else is left for validation to report.
import { stableValueText } from './canonical.js';

const AMBIGUOUS: unique symbol = Symbol('ambiguous');

export class EnumInfo {
  private readonly primitives = new Set<unknown>();
  private readonly objectTexts: Set<string> | null = null;
  private readonly folded = new Map<string, string | typeof AMBIGUOUS>();

  constructor(readonly members: readonly unknown[]) {
    let objectTexts: Set<string> | null = null;
    for (const member of members) {
      if (member !== null && typeof member === 'object') {
        (objectTexts ??= new Set()).add(stableValueText(member));
        continue;
      }
      this.primitives.add(member);
      if (typeof member !== 'string') continue;
      const key = fold(member);
      const seen = this.folded.get(key);
      this.folded.set(key, seen === undefined || seen === member ? member : AMBIGUOUS);
    }
    this.objectTexts = objectTexts;
  }

  has(value: unknown): boolean {
    if (value !== null && typeof value === 'object') {
      return this.objectTexts !== null && this.objectTexts.has(stableValueText(value));
    }
    return this.primitives.has(value);
  }

  /** Whether `value` is a member or, a string, equals one ignoring case and surrounding whitespace. */
  mayMatch(value: unknown): boolean {
    return this.has(value) || (typeof value === 'string' && this.folded.has(fold(value)));
  }

  /** The unique member a string matches ignoring case and surrounding whitespace, else undefined. */
  caseInsensitiveMatch(value: string): string | undefined {
    const found = this.folded.get(fold(value));
    return found === AMBIGUOUS ? undefined : found;
  }
}

function fold(text: string): string {
  return text.trim().toLowerCase();
}
