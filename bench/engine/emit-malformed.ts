// Writes a JSON value as the kind of text a language model produces: the same value, spelled with
// unquoted keys, single quotes, trailing commas, comments, missing commas and Python literals, each
// with a given probability. Every spelling used here has exactly one reading, so a correct repair of
// the text gives back the original value (the benchmark checks that before timing anything).
import type { Random } from '../../support/random.js';

export interface MalformedStyle {
  bareKeys: number;
  singleQuotes: number;
  trailingCommas: number;
  lineComments: number;
  blockComments: number;
  /** Omitted commas, only where a line break follows (unambiguous). */
  missingCommas: number;
  /** True/False/None instead of true/false/null. */
  pythonLiterals: boolean;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;
// Bare words the engine reads as literals, not as key names; never left unquoted.
const RESERVED = new Set(['true', 'false', 'null', 'True', 'False', 'None', 'NaN', 'Infinity', 'undefined']);
const COMMENT_WORDS = ['todo', 'see spec', 'generated', 'units: ms', 'keep in sync', "don't edit"];

function doubleQuoted(text: string): string {
  return JSON.stringify(text);
}

/** 'text' with apostrophes escaped and double quotes left bare, as JavaScript writes it. */
function singleQuoted(text: string): string {
  const inner = JSON.stringify(text).slice(1, -1);
  return `'${inner.replace(/\\\\|\\"|'/g, (m) => (m === '\\"' ? '"' : m === "'" ? "\\'" : m))}'`;
}

export class MalformedEmitter {
  private readonly parts: string[] = [];
  private length = 0;

  constructor(
    private readonly random: Random,
    private readonly style: MalformedStyle,
  ) {}

  /** Offset the next written character will have in the output. */
  get offset(): number {
    return this.length;
  }

  write(text: string): void {
    this.parts.push(text);
    this.length += text.length;
  }

  text(): string {
    return this.parts.join('');
  }

  value(value: unknown, indent: string): void {
    if (value === null) return this.write(this.style.pythonLiterals ? 'None' : 'null');
    if (typeof value === 'boolean') {
      const word = value ? 'true' : 'false';
      return this.write(this.style.pythonLiterals ? word[0]!.toUpperCase() + word.slice(1) : word);
    }
    if (typeof value === 'number') return this.write(JSON.stringify(value));
    if (typeof value === 'string') return this.string(value);
    if (Array.isArray(value)) return this.array(value, indent);
    return this.object(value as Record<string, unknown>, indent);
  }

  string(text: string): void {
    this.write(this.random.chance(this.style.singleQuotes) ? singleQuoted(text) : doubleQuoted(text));
  }

  key(name: string): void {
    if (IDENTIFIER.test(name) && !RESERVED.has(name) && this.random.chance(this.style.bareKeys)) this.write(name);
    else this.string(name);
  }

  object(value: Record<string, unknown>, indent: string): void {
    const keys = Object.keys(value);
    this.write('{');
    const inner = `${indent}  `;
    keys.forEach((key, i) => {
      this.member(key, value[key], inner, i === keys.length - 1);
    });
    this.close('}', keys.length, indent);
  }

  /** One member on its own line; callers building an object by hand (inputs.ts) use it directly. */
  member(key: string, value: unknown, indent: string, last: boolean): void {
    this.write(`\n${indent}`);
    this.comment(indent);
    this.key(key);
    this.write(': ');
    this.value(value, indent);
    this.separator(last);
  }

  private array(items: readonly unknown[], indent: string): void {
    if (items.every((item) => typeof item === 'number')) {
      // Short numeric rows stay on one line, as models write them; no comma may go missing there.
      this.write(`[${items.join(', ')}`);
      if (items.length > 0 && this.random.chance(this.style.trailingCommas)) this.write(',');
      this.write(']');
      return;
    }
    this.write('[');
    const inner = `${indent}  `;
    items.forEach((item, i) => {
      this.write(`\n${inner}`);
      this.comment(inner);
      this.value(item, inner);
      this.separator(i === items.length - 1);
    });
    this.close(']', items.length, indent);
  }

  private separator(last: boolean): void {
    if (last) {
      if (this.random.chance(this.style.trailingCommas)) this.write(',');
    } else if (!this.random.chance(this.style.missingCommas)) {
      this.write(',');
    }
  }

  private comment(indent: string): void {
    if (this.random.chance(this.style.lineComments)) {
      this.write(`// ${this.random.pick(COMMENT_WORDS)}\n${indent}`);
    } else if (this.random.chance(this.style.blockComments)) {
      this.write(`/* ${this.random.pick(COMMENT_WORDS)} */ `);
    }
  }

  close(bracket: string, count: number, indent: string): void {
    this.write(count > 0 ? `\n${indent}${bracket}` : bracket);
  }
}
