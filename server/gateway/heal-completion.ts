// Heals a whole (non-streaming) chat completion: each choice's tool-call arguments against their
// tool's parameters, and its content when the request asked for JSON. Nothing else is touched:
// the healed strings are spliced into the upstream's own bytes and the report is added before the
// closing brace, so ids, usage, logprobs and every other member keep their exact spelling (a
// string spelled with escapes JSON.stringify does not use, `\/` or `\u00e9`, is found all the same).
// Only when a healed string cannot be found as its member's value is the completion written again
// (the same values, JSON.stringify's spelling). Splicing is also cheaper than writing it again.
import { healJson, stringEnd, type HealReport } from '../../engine/heal/index.js';
import type { ChatPlan } from './chat-request.js';
import { reportJson, type AnswerReport, type ReportBuilder } from './heal-report.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string the healer read, in document order: where it is a member's value, and what it became. */
interface HealedPart {
  /** The member whose value it is (`content` or `arguments`). */
  name: string;
  original: string;
  healed: string;
}

/** The completion as the client receives it, or null when the upstream's 200 is not a completion object. */
export function healCompletion(raw: string, plan: ChatPlan, builder: ReportBuilder): string | null {
  let completion: unknown;
  try {
    completion = JSON.parse(raw);
  } catch {
    return null;
  }
  if (!isObject(completion) || !Array.isArray(completion['choices'])) return null;
  const parts: HealedPart[] = [];
  for (const [position, choice] of completion['choices'].entries()) {
    if (!isObject(choice) || !isObject(choice['message'])) continue;
    const index = typeof choice['index'] === 'number' ? choice['index'] : position;
    const truncated = choice['finish_reason'] === 'length';
    const message = choice['message'];
    // The message's members in the order written (JSON.parse keeps it), so parts are in document order.
    for (const member in message) {
      if (member === 'content' && plan.content !== null && typeof message['content'] === 'string') {
        const report = healInto(parts, message, 'content', plan.content.schema, truncated);
        builder.addContent(index, report);
      } else if (member === 'tool_calls' && Array.isArray(message['tool_calls'])) {
        healToolCalls(message['tool_calls'], index, plan, truncated, builder, parts);
      }
    }
  }
  const report = builder.build();
  const spliced = parts.some((part) => part.healed !== part.original) ? splice(raw, parts) : raw;
  if (spliced !== null) return withReport(spliced, report);
  completion['jsonmend'] = report;
  return JSON.stringify(completion);
}

/** Each call's arguments healed against its tool's parameters, in order. */
function healToolCalls(calls: unknown[], index: number, plan: ChatPlan, truncated: boolean, builder: ReportBuilder, parts: HealedPart[]): void {
  for (const [k, call] of calls.entries()) {
    const fn = isObject(call) ? call['function'] : undefined;
    if (!isObject(fn) || typeof fn['arguments'] !== 'string') continue;
    const name = typeof fn['name'] === 'string' ? fn['name'] : null;
    const report = healInto(parts, fn, 'arguments', name === null ? undefined : plan.toolSchemas.get(name), truncated);
    const id = typeof (call as Json)['id'] === 'string' ? (call as Json)['id'] as string : null;
    builder.addToolCall(index, k, id, name, report);
  }
}

/**
 * Heals the string `holder[name]` in place (the parsed completion, written again only when the
 * splice cannot be made) and notes the part for the splice; the healer's report.
 */
function healInto(parts: HealedPart[], holder: Json, name: string, schema: object | undefined, truncated: boolean): HealReport {
  const original = holder[name] as string;
  const result = healJson(original, { schema, truncated });
  parts.push({ name, original, healed: result.text });
  holder[name] = result.text;
  return result.report;
}

/**
 * `raw` with each part's string replaced by its healed text, or null when a part is not found as
 * the value of its member, after the part before it. A member's value is recognised by what
 * precedes it — `{` or `,`, the quoted name, `:` — which text inside a JSON string cannot show (its
 * quotes are escaped), and it is the part when it reads as the part's original. A part left as it
 * was keeps the upstream's own spelling.
 */
function splice(raw: string, parts: readonly HealedPart[]): string | null {
  let out = '';
  let from = 0;
  for (const part of parts) {
    const span = partSpan(raw, from, part);
    if (span === null) return null;
    const [at, end] = span;
    out += raw.slice(from, at) + (part.healed === part.original ? raw.slice(at, end) : JSON.stringify(part.healed));
    from = end;
  }
  return out + raw.slice(from);
}

/** Where `part`'s string stands in `raw` from `from` on: its opening quote and the index after its closing one, or null. */
function partSpan(raw: string, from: number, part: HealedPart): [number, number] | null {
  const name = `"${part.name}"`;
  for (let at = raw.indexOf(name, from); at >= 0; at = raw.indexOf(name, at + 1)) {
    const before = raw.charCodeAt(blankBefore(raw, at - 1));
    if (before !== 0x7b && before !== 0x2c) continue; // { ,
    let k = blankAfter(raw, at + name.length);
    if (raw.charCodeAt(k) !== 0x3a) continue; // :
    k = blankAfter(raw, k + 1);
    if (raw.charCodeAt(k) !== 0x22) continue; // "
    // The string read back, not the original spelled again: one parse of the string, where
    // JSON.stringify of the original and a search for it cost twice that (bench/gateway).
    const end = stringEnd(raw, k) + 1;
    try {
      if (JSON.parse(raw.slice(k, end)) === part.original) return [k, end];
    } catch {
      return null; // not a string token after all: written again
    }
  }
  return null;
}

/** The index of the last character at or before `k` that is not JSON whitespace. */
function blankBefore(raw: string, k: number): number {
  let c = raw.charCodeAt(k);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = raw.charCodeAt(--k); // space \n \r \t
  return k;
}

/** The index of the first character at or after `k` that is not JSON whitespace. */
function blankAfter(raw: string, k: number): number {
  let c = raw.charCodeAt(k);
  while (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) c = raw.charCodeAt(++k); // space \n \r \t
  return k;
}

/** `raw` (a JSON object) with `"jsonmend": report` added as its last member, its own bytes unchanged. */
function withReport(raw: string, report: AnswerReport): string {
  const close = raw.lastIndexOf('}');
  let before = close - 1;
  while (before >= 0 && raw.charCodeAt(before) <= 0x20) before--; // whitespace before the brace
  const empty = raw.charCodeAt(before) === 0x7b; // `{`: an object with no member yet
  return `${raw.slice(0, close)}${empty ? '' : ','}"jsonmend":${reportJson(report)}${raw.slice(close)}`;
}
