// The shape of a model's reply around its JSON, judged once over the whole text before or after
// the scanner's single pass (batch only: a stream's finalize is repair() of its whole buffer, so both
// answer alike): a fenced answer after prose that holds brackets of its own, and — when the scan
// found no root, or a doubtful one — the reply read again: an unclosed <think> block, a fragment
// read as prose, members whose `{` is missing, a scalar answer after prose. Each pass is told how
// to read prose (ProsePolicy) and reports what it saw (ProseReport); nothing else of the scanner's
// state is touched here.
import { holdsJsonValue } from './scanner/scan-prose.js';
import { FIRST_READING, type ProsePolicy, Scanner } from './scanner/scanner.js';

/**
 * The reply read once, and again where its shape says the first reading missed the answer: the
 * scanner whose roots are the answer (repair.ts concludes from it). `reading`: how the first pass
 * reads (repair.ts reads string items as such when a schema asks for it).
 */
export function readReply(input: string, reading: ProsePolicy = FIRST_READING): Scanner {
  const fenceStart = fencedAnswerStart(input);
  const first = scan(input, { ...reading, proseUntil: fenceStart });
  const reread = first.roots.length === 0 ? rereadWithoutRoot(first, input, fenceStart)
    : rereadPastLineFragment(first, input, fenceStart) ?? membersAroundRoot(first, input, fenceStart);
  return reread ?? first;
}

/**
 * The first root was a member's value on lines of members whose `{` the reply left out, after
 * prose (`Here:⏎"a": [1, 2],⏎"b": 3`: the first scan took `[1, 2]`): the members read as one
 * object (membersAnswer), when no bracket comes before the first member's line. Null otherwise.
 */
function membersAroundRoot(first: Scanner, input: string, fenceStart: number): Scanner | null {
  // Only the root's own line is looked at first: `"name":` and blanks before the root's bracket.
  const at = first.firstRootAt;
  if (fenceStart >= 0 || at <= 0) return null;
  const lineStart = input.lastIndexOf('\n', at - 1) + 1;
  if (lineStart === 0 || !NAME_BEFORE_VALUE.test(input.slice(lineStart, at))) return null;
  const member = MEMBER_LINE.exec(input);
  if (member === null) return null;
  const before = input.slice(0, member.index);
  if (before.indexOf('{') >= 0 || before.indexOf('[') >= 0) return null;
  return membersAnswer(input, member);
}

/**
 * A pass over input[from, end) under `policy`, reporting positions in the whole input. The prose
 * before `from`, when it is dropped, is recorded first at `leadingTextAt`.
 */
function scan(input: string, policy: ProsePolicy, from = 0, end = input.length, leadingTextAt = -1): Scanner {
  const scanner = new Scanner(policy, from);
  if (leadingTextAt >= 0) {
    if (holdsJsonValue(input, leadingTextAt, from)) {
      scanner.log.doubt('stripped_leading_text', leadingTextAt, 'medium');
      scanner.warnLeftOut(leadingTextAt);
    } else scanner.log.record('stripped_leading_text', leadingTextAt);
  }
  scanner.feed(from === 0 && end === input.length ? input : input.slice(from, end), true);
  return scanner;
}

const FENCE_TAG = /^(json[c5]?|javascript|js)?$/i;
// A scalar that ends the reply (a period may follow), after a colon or alone on its line: the answer
// of a reply with no object or array in it (`The answer is: 42`, `Sentiment:\n"positive"`). `I have
// 3 cats` is not one. Only the reply's last 256 characters are looked at.
const YAML_LINE = /^[ \t]*[\w-]+:[ \t]*\S/gm;
const FINAL_SCALAR = /(?:[:\n][ \t]*)(-?(?:\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)|true|false|null|True|False|None|"[^"\\\n]{0,200}")[ \t]*\.?\s*$/;
// A line that starts with two members whose names are bare, the first with a JSON value (`name:
// "John", age: 30`; not `Note: this is fine, really: ok`).
const BARE_MEMBERS_LINE = /^[ \t]*[A-Za-z_$][\w$]*[ \t]*:[ \t]*(?:["'{[\d-]|true\b|false\b|null\b|True\b|False\b|None\b)[^\n:]*?,[ \t]*[A-Za-z_$][\w$]*[ \t]*:[ \t]*\S/m;
// The end of a line of members before the last one's value: `, age: `.
const MEMBER_BEFORE = /,[ \t]*[A-Za-z_$][\w$]*[ \t]*:[ \t]*$/;
// A line that starts with a quoted name, a colon and the start of a JSON value: a member of an
// object whose `{` the reply left out (`Here:\n"name": "A",\n"age": 3`).
const MEMBER_LINE = /^[ \t]*"[^"\\\n]{1,200}"[ \t]*:[ \t]*(?:["'{[\d-]|true\b|false\b|null\b)/m;
// A line's text before a value that is a member's: a quoted name and its colon.
const NAME_BEFORE_VALUE = /^[ \t]*"[^"\\\n]{1,200}"[ \t]*:[ \t]*$/;

/**
 * Where the answer's fence starts, when a reply opens with prose that holds a `{` or `[` of its own
 * (`Expected shape: {"a": number}`, `return {} if none`, `see [2], then`) before a fenced block:
 * the block is the answer, so the scanner treats those brackets as prose. Only the first fence
 * counts, and only a JSON-tagged one or an untagged one whose content opens with `{` or `[`: a
 * ```bash block after the JSON is not an answer. -1 when no such fence.
 */
function fencedAnswerStart(text: string): number {
  const a = firstNonBlank(text, 0);
  const first = text.charCodeAt(a);
  if (first === 0x7b || first === 0x5b || first === 0x22 || first === 0x27 || first === 0x60) return -1; // { [ " ' `
  const fence = text.indexOf('```', a);
  if (fence < 0) return -1;
  const before = text.slice(a, fence);
  if (before.indexOf('{') < 0 && before.indexOf('[') < 0) return -1;
  const lineEnd = text.indexOf('\n', fence);
  if (lineEnd < 0) return -1;
  const tag = text.slice(fence + 3, lineEnd).trim();
  if (!FENCE_TAG.test(tag)) return -1;
  if (tag === '') {
    const opener = text.charCodeAt(firstNonBlank(text, lineEnd));
    if (opener !== 0x7b && opener !== 0x5b) return -1;
  }
  return fence;
}

/**
 * A scan of the whole reply found no root: the reply read again the one way its scan says may hold
 * the answer, or null (the first scan's failure stands).
 * - The reasoning block never closed (`<think>… {"a": 0} maybe\n\n{"a": 1}`): the answer was
 *   written inside it, so its text is read as prose around the JSON. Fragments in that prose stay
 *   prose: reasoning cut before any answer is no JSON.
 * - The only JSON was a fragment read as prose (`Here: {"a": 1} hope this helps`): it is read as JSON.
 * - Otherwise members may follow the prose without their `{` (membersAnswer), or a scalar may end
 *   the reply (scalarAnswer).
 */
function rereadWithoutRoot(first: Scanner, input: string, fenceStart: number): Scanner | null {
  const seen = first.report;
  if (seen.thinkUnclosed) {
    // repair: the opening tag and the reasoning before the JSON are dropped
    const again = scan(input, { ...FIRST_READING, proseUntil: fenceStart }, seen.thinkBodyAt, input.length, seen.thinkAt);
    if (again.roots.length > 0) {
      // repair: the answer was read from inside reasoning that never closed — it may be a draft: medium
      again.log.doubt('stripped_leading_text', seen.thinkAt, 'medium');
      return again;
    }
  }
  // The only JSON was a fragment read as prose: read it as JSON.
  if (seen.skippedFragment) return scan(input, { ...FIRST_READING, proseUntil: fenceStart, inlineFragmentsAreProse: false });
  return first.tooDeep ? null : membersAnswer(input) ?? bareLinesAnswer(input) ?? bareMembersAnswer(input) ?? scalarAnswer(input);
}

/**
 * A scanner that has read the members after the prose as one object (`Here:\n"name": "A",\n"age":
 * 3`: the model left out the `{`), or null when no line starts like a member. The scanner's own
 * rule for output that begins inside an object inserts the `{` (scan-string.ts fixContainerAround).
 */
function membersAnswer(input: string, member = MEMBER_LINE.exec(input)): Scanner | null {
  if (member === null || member.index === 0) return null;
  const at = member.index + member[0].indexOf('"');
  // repair: prose before members whose `{` is missing is dropped
  const answer = scan(input, FIRST_READING, at, input.length, firstNonBlank(input, 0));
  return answer.roots.length > 0 && !answer.tooDeep ? answer : null;
}

// One member on a line with a bare name (`age: 30`); a value of at most 200 characters.
const BARE_MEMBER_ONE = /[ \t]*[A-Za-z_$][\w$-]{0,60}[ \t]*:[ \t]*\S[^\n]{0,200}$/y;
// A line that only closes an object.
const CLOSER_LINE = /[ \t]*\}[ \t]*[.;]?[ \t]*$/y;

/**
 * A scanner that has read `key: value` lines closed by a `}` on a line of its own as one object
 * (`name: John⏎age: 30⏎}`: the model left out the `{`, the closer shows the lines were an object),
 * or null. A first line that ends in a colon (`Here it is:`) is prose. Each line is looked at once.
 */
function bareLinesAnswer(input: string): Scanner | null {
  let at = firstNonBlank(input, 0);
  let lineEnd = input.indexOf('\n', at);
  if (lineEnd > 0 && /:\s*$/.test(input.slice(at, lineEnd))) at = firstNonBlank(input, lineEnd + 1);
  const start = at;
  let members = 0;
  for (;;) {
    lineEnd = input.indexOf('\n', at);
    const line = input.slice(at, lineEnd < 0 ? input.length : lineEnd).replace(/\r$/, '');
    CLOSER_LINE.lastIndex = 0;
    if (members > 0 && CLOSER_LINE.test(line)) {
      const end = at + line.indexOf('}') + 1;
      return objectWithBrace(input, start, start > firstNonBlank(input, 0), input.slice(start, end), end, 1);
    }
    BARE_MEMBER_ONE.lastIndex = 0;
    if (!BARE_MEMBER_ONE.test(line)) return null;
    members++;
    if (lineEnd < 0) return null;
    at = lineEnd + 1;
  }
}

/**
 * A scanner that has read `members` (the input's text from `start`, up to `end`) as one object
 * whose `{` the model left out, or null unless that gives one object of `minMembers` members or
 * more. Text after `end` is dropped and reported; so is what came before `start`, with `prose`.
 */
function objectWithBrace(input: string, start: number, prose: boolean, members: string, end: number, minMembers: number): Scanner | null {
  const answer = new Scanner(FIRST_READING, start - 1);
  // repair: prose before the members is dropped
  if (prose) answer.log.record('stripped_leading_text', firstNonBlank(input, 0));
  // repair: the `{` the members need is supplied — a reading, not a certainty: medium
  answer.log.record('inserted_missing_opening_bracket', start);
  answer.feed(`{${members}`, true);
  // repair: text after the members is dropped
  if (input.slice(end).trim().length > 0) answer.log.record('stripped_trailing_text', end);
  const value = answer.roots[0];
  const object = answer.roots.length === 1 && !answer.tooDeep && value !== null && typeof value === 'object' && !Array.isArray(value);
  return object && Object.keys(value).length >= minMembers ? answer : null;
}

/**
 * A scanner that has read a line of members with bare names as one object (`name: "John", age:
 * 30`, `Result:\nid: 7, label: "x"`: the model left out the braces and the quotes), or null when
 * no line holds two such members. Only that line is read: the lines after it are not members.
 */
function bareMembersAnswer(input: string): Scanner | null {
  const line = BARE_MEMBERS_LINE.exec(input);
  if (line === null) return null;
  const at = line.index + line[0].length - line[0].trimStart().length;
  let end = input.indexOf('\n', at);
  if (end < 0) end = input.length;
  return objectWithBrace(input, at, at > 0, input.slice(at, end), end + 1, 2);
}

/** Index of the first character from k above U+0020 (text.length when none). */
function firstNonBlank(text: string, k: number): number {
  while (k < text.length && text.charCodeAt(k) <= 0x20) k++;
  return k;
}

/**
 * The first root was a short fragment ending a line of prose (`See reference [1]`,
 * `- Items: [apple, pear]`, `1. Set "name" to {first, last}`; scan-prose.ts lineFragmentEnd). When
 * a root of the other kind followed it (an object after `[1]`: rows of one list, `Results: [1]` then
 * `[2]`, stay together), or it read as JSON only through guesses, the reply is read again with
 * such fragments as prose, and the reread stands if it finds a root: the JSON that starts a line of
 * its own is the answer. Null when the first scan stands.
 */
function rereadPastLineFragment(first: Scanner, input: string, fenceStart: number): Scanner | null {
  if (!first.report.lineFragmentRoot) return null;
  const roots = first.roots;
  const otherKindFollows = roots.length > 1 && Array.isArray(roots[0]) !== Array.isArray(roots[1]);
  if (!otherKindFollows && !first.log.hasGuess()) return null;
  const again = scan(input, { ...FIRST_READING, proseUntil: fenceStart, lineFragmentsAreProse: true });
  return again.roots.length > 0 ? again : null;
}

/**
 * A scanner that has read the scalar answer ending the reply (see FINAL_SCALAR), or null when there
 * is none: prose must come before it (`1\n2` is a list, not an answer), and YAML
 * (`name: Alice\nage: 30`) is not prose.
 */
function scalarAnswer(input: string): Scanner | null {
  const tail = input.length > 256 ? input.slice(-256) : input;
  const scalar = FINAL_SCALAR.exec(tail);
  if (scalar === null || !/[A-Za-z]/.test(tail.slice(0, scalar.index + 1)) || (tail.match(YAML_LINE)?.length ?? 0) >= 2) return null;
  const at = input.length - scalar[0].length + scalar[0].indexOf(scalar[1]!);
  const end = at + scalar[1]!.length;
  // repair: prose before a scalar answer (`The answer is: 42`, `Result:\ntrue`) is dropped; when the
  // scalar is the last of several members on its line (`name: Alice, age: 30`), the others were
  // data: low confidence
  const answer = scan(input, FIRST_READING, at, end, 0);
  if (MEMBER_BEFORE.test(input.slice(input.lastIndexOf('\n', at) + 1, at))) {
    answer.log.doubt('stripped_leading_text', 0, 'low');
    answer.warnLeftOut(0);
  }
  // repair: a period after it is dropped
  if (input.slice(end).trim().length > 0) answer.log.record('stripped_trailing_text', end);
  return answer.roots.length > 0 ? answer : null;
}
