// Where jsonmend deliberately answers differently from a peer (docs/design.md, docs/peers.md).
// Each entry recognises its own kind of case narrowly, from the input, the peer's answer and ours,
// so that a disagreement it does not explain stays visible as a possible engine bug.
import { jsonEqual } from '../../support/json-equal.js';
import type { Ours, PeerExpectation } from './peer-tables.js';

type Repaired = Extract<Ours, { success: true }>;

export interface DeliberateDifference {
  id: string;
  /** One line for the summary; docs/peers.md gives the reasoning in full. */
  title: string;
  matches(input: string, expected: PeerExpectation, ours: Ours): boolean;
}

function parsesAs(input: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(input) };
  } catch {
    return { ok: false };
  }
}

/** A copy of a JSON value with `edit` applied to every string, keys included (small values only). */
function mapStrings(value: unknown, edit: (s: string) => string): unknown {
  if (typeof value === 'string') return edit(value);
  if (Array.isArray(value)) return value.map((v) => mapStrings(v, edit));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [edit(k), mapStrings(v, edit)]));
  }
  return value;
}

/** `expected` without the members `ours` lacks whose peer value is an invented null or "". */
function withoutInventedMembers(expected: unknown, ours: unknown): unknown {
  if (Array.isArray(expected) && Array.isArray(ours)) return expected.map((v, i) => withoutInventedMembers(v, ours[i]));
  if (expected === null || typeof expected !== 'object' || ours === null || typeof ours !== 'object' || Array.isArray(ours)) return expected;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(expected)) {
    if (!(key in ours) && (value === null || value === '')) continue;
    out[key] = withoutInventedMembers(value, (ours as Record<string, unknown>)[key]);
  }
  return out;
}

/** Every scalar of a value as text, in order, letters and digits only: what was said, not how it was split. */
function spokenText(value: unknown): string {
  if (value === null || typeof value !== 'object') return String(value).replace(/[^\p{L}\p{N}]/gu, '');
  if (Array.isArray(value)) return value.map(spokenText).join('');
  return Object.entries(value).map(([k, v]) => spokenText(k) + spokenText(v)).join('');
}

const count = (text: string, char: string): number => text.split(char).length - 1;

function repairedWith(ours: Ours, type: string): ours is Repaired {
  return ours.success && ours.repairs.includes(type);
}

function peerValue(expected: PeerExpectation): unknown {
  return expected.kind === 'value' ? expected.value : undefined;
}

export const DELIBERATE_DIFFERENCES: readonly DeliberateDifference[] = [
  {
    id: 'valid-json-kept',
    title: 'valid JSON is returned as JSON.parse reads it, never "repaired"',
    matches: (input, _expected, ours) => {
      const parsed = parsesAs(input);
      return parsed.ok && ours.success && jsonEqual(ours.value, parsed.value);
    },
  },
  {
    id: 'no-json-no-value',
    title: 'input without any JSON structure (bare words, prose, invalid numbers) fails; it is not made a string',
    matches: (input, expected, ours) =>
      !ours.success && ours.errors.includes('UNRECOVERABLE_SYNTAX_ERROR') && typeof peerValue(expected) === 'string' && !/["'{[\]}`‘’“”]/.test(input),
  },
  {
    id: 'valueless-member-dropped',
    title: 'a member whose value never came ({"a":} or cut after the key) is dropped, not given null or ""',
    matches: (_input, expected, ours) =>
      (repairedWith(ours, 'removed_truncated_member') || repairedWith(ours, 'removed_member_without_value')) && expected.kind === 'value' && jsonEqual(ours.value, withoutInventedMembers(expected.value, ours.value)),
  },
  {
    id: 'several-values-wrapped',
    title: 'several top-level values become one array of them all; the peer keeps one',
    matches: (_input, expected, ours) =>
      repairedWith(ours, 'wrapped_multiple_values') && Array.isArray(ours.value) && ours.value.some((v) => jsonEqual(v, peerValue(expected))),
  },
  {
    id: 'first-fenced-block',
    title: 'of several fenced code blocks the first is the answer; the rest is trailing prose',
    matches: (_input, expected, ours) => {
      const value = peerValue(expected);
      return repairedWith(ours, 'removed_markdown_fence') && Array.isArray(value) && jsonEqual(value[0], ours.value);
    },
  },
  {
    id: 'string-content-verbatim',
    title: 'string content is kept as written: a raw line break before the closing quote stays (escaped), not trimmed',
    matches: (_input, expected, ours) =>
      repairedWith(ours, 'escaped_control_character') && expected.kind === 'value' &&
      jsonEqual(mapStrings(ours.value, (s) => s.trimEnd()), mapStrings(expected.value, (s) => s.trimEnd())),
  },
  {
    id: 'invalid-escape-keeps-backslash',
    title: 'an invalid escape such as \\a keeps its backslash as text (C:\\apps stays C:\\apps)',
    matches: (_input, expected, ours) =>
      repairedWith(ours, 'escaped_backslash') && expected.kind === 'value' &&
      jsonEqual(mapStrings(ours.value, (s) => s.replace(/\\([^"\\/bfnrtu])/g, '$1')), expected.value),
  },
  {
    id: 'unterminated-string-runs-on',
    title: 'an unterminated string runs to the end of the input (or its closing bracket): commas and + inside are text',
    matches: (input, expected, ours) =>
      repairedWith(ours, 'closed_string') && count(input, '"') % 2 === 1 && !input.trimEnd().endsWith('```') && expected.kind === 'value' &&
      spokenText(ours.value) === spokenText(expected.value),
  },
  {
    id: 'line-comment-to-end-of-line',
    title: '# and // comments run to the end of the line, brackets on that line included',
    matches: (input, _expected, ours) => repairedWith(ours, 'removed_comments') && /(#|\/\/)[^\n]*[}\]]/.test(input),
  },
  {
    id: 'opened-container-kept',
    title: 'a container that was opened is kept, empty if nothing was written in it ([{] gives [{}])',
    matches: (input, expected, ours) =>
      /^[\s[\]{}]+$/.test(input) && ours.success && expected.kind === 'value' && JSON.stringify(ours.value).length > JSON.stringify(expected.value).length,
  },
  {
    id: 'cut-name-dropped',
    title: 'a member name cut by the end of the input is dropped with its member, not made an element or a value',
    matches: (input, expected, ours) =>
      /[{,]\s*"[^"\\]*$/.test(input) && repairedWith(ours, 'removed_truncated_member') && expected.kind === 'value' &&
      jsonEqual(ours.value, withoutInventedMembers(expected.value, ours.value)) === false && spokenText(expected.value).startsWith(spokenText(ours.value)),
  },
  {
    id: 'repaired-where-peer-gives-up',
    title: 'we repair input the peer rejects (trailing prose, JSONP, several values, control characters, True)',
    matches: (input, expected, ours) =>
      expected.kind !== 'value' && ours.success &&
      // A string already ending in its quote never needs closing: that would be a bug, not a choice.
      !(ours.repairs.includes('closed_string') && input.trimEnd().endsWith('"')),
  },
];

export function classifyDifference(input: string, expected: PeerExpectation, ours: Ours): string | null {
  for (const difference of DELIBERATE_DIFFERENCES) {
    if (difference.matches(input, expected, ours)) return difference.id;
  }
  return null;
}
