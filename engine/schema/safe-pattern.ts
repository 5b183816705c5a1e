// `pattern` and `patternProperties` run on RE2 (re2js, a pure-JS port): matching is linear in the
// input, so a catastrophic-backtracking pattern such as ^(a+)+$ costs no more than a plain one.
// A pattern must also be valid ECMA-262 syntax (what JSON Schema specifies); features RE2 cannot
// run in linear time (lookaround, backreferences) make the schema INVALID_REQUEST.
import { RE2JS } from 're2js';
import type { RegExpEngine, RegExpLike } from 'ajv/dist/types/index.js';

const BACKREFERENCE = /(^|[^\\])(\\\\)*\\(k<|[1-9])/;

export class UnsupportedPatternError extends Error {}

export class SafePattern implements RegExpLike {
  readonly source: string;
  private readonly re: RE2JS;

  constructor(source: string) {
    try {
      new RegExp(source, 'u'); // syntax check only; the native engine never runs it
    } catch (error) {
      throw new UnsupportedPatternError(`pattern "${source}" is not a valid regular expression: ${(error as Error).message}`);
    }
    // re2js would quietly turn \k<name> into literal text; refuse it instead.
    if (BACKREFERENCE.test(source)) throw unsupported(source, 'backreferences');
    try {
      this.re = RE2JS.compile(RE2JS.translateRegExp(source));
    } catch (error) {
      throw unsupported(source, (error as Error).message.replace(/^error parsing regexp: /, ''));
    }
    this.source = source;
  }

  test(input: string): boolean {
    return this.re.test(input);
  }

  // ajv de-duplicates patterns by this text, so it must identify the pattern.
  toString(): string {
    return '/' + this.source + '/u';
  }
}

function unsupported(source: string, why: string): UnsupportedPatternError {
  return new UnsupportedPatternError(
    `pattern "${source}" cannot run on the linear-time engine (${why}); lookaround and backreferences are not supported`,
  );
}

/** ajv's `code.regExp` option. */
export const safeRegExpEngine: RegExpEngine = Object.assign(
  (pattern: string, _flags: string): RegExpLike => new SafePattern(pattern),
  { code: 'jsonmendSafePattern' },
);
