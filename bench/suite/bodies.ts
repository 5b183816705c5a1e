// Request bodies of the bench, all generated (fixed seeds, identical every run) from the engine
// bench's inputs, each with the value a correct repair gives so the bench can refuse to time a
// wrong answer. Sizes are those of the text to repair.
import { CUT_MEMBER, generateDocument, llmReply, malformDocument } from '../engine/inputs.js';

export interface Input {
  /** The text to repair (raw_output / content). */
  text: string;
  /** Its UTF-8 length. */
  bytes: number;
  /** The value a correct repair gives. */
  expected: unknown;
}

function input(text: string, expected: unknown): Input {
  return { text, bytes: Buffer.byteLength(text), expected };
}

const reply = llmReply();

/** The ~1 KB reply's value, pretty-printed: valid JSON, the fast path. */
export const VALID_1KB = input(JSON.stringify(reply.expected, null, 2), reply.expected);

/** A ~1 KB model reply: prose, a fence, bare keys, single quotes, True/None, cut mid-string. */
export const MALFORMED_1KB = input(reply.text, reply.expected);

function malformedOfSize(bytes: number): Input {
  const malformed = malformDocument(generateDocument(bytes));
  return input(malformed.text, malformed.expected);
}

const cache = new Map<number, Input>();

/** A generated document of about `bytes`, spelled as a model would and cut off mid-string. */
export function malformedDocument(bytes: number): Input {
  let found = cache.get(bytes);
  if (found === undefined) {
    found = malformedOfSize(bytes);
    cache.set(bytes, found);
  }
  return found;
}

/**
 * A JSON Schema read off a value: its types, every member required, no others allowed. It holds
 * for the value, so a correct repair under it changes nothing beyond the syntax repairs.
 */
export function schemaOf(value: unknown): Record<string, unknown> {
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) return value.length === 0 ? { type: 'array' } : { type: 'array', items: schemaOf(value[0]) };
  if (typeof value === 'object') {
    const members = value as Record<string, unknown>;
    const properties: Record<string, unknown> = {};
    for (const [key, member] of Object.entries(members)) properties[key] = schemaOf(member);
    return { type: 'object', properties, required: Object.keys(members), additionalProperties: false };
  }
  if (typeof value === 'number') return { type: Number.isInteger(value) ? 'integer' : 'number' };
  return { type: typeof value };
}

/**
 * The reply's schema; kept as one object so every request sends the same text. The member the
 * reply is cut inside is optional: with a schema a cut member is dropped, and a required one would
 * fail the repair (docs/schema.md "Cut replies").
 */
export const REPLY_SCHEMA = schemaOf(reply.expected);
REPLY_SCHEMA.required = (REPLY_SCHEMA.required as string[]).filter((name) => name !== CUT_MEMBER);

/** The ~1 KB reply under REPLY_SCHEMA: its cut member dropped. */
export const MALFORMED_1KB_WITH_SCHEMA = input(reply.text, reply.expectedWithSchema);

/** `text` cut into `count` pieces of nearly equal length (the pushes of a streaming session). */
export function chunksOf(text: string, count: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < count; i++) chunks.push(text.slice(Math.floor((i * text.length) / count), Math.floor(((i + 1) * text.length) / count)));
  return chunks;
}
