// The contract of a request that is refused before its body is parsed (bad key, rate limit, queue
// full, oversize body, crashed or timed-out worker). Small bodies are parsed exactly; a large one
// is judged by its first and last 4 KiB, because scanning megabytes on the uWS thread to shape an
// error would cost more than the refusal saves (an absent needle in 8 MB takes ~4 ms).
import type { ContractSetting } from '../config/load-config.js';
import { detectContract, fallbackContract, type Contract } from './contract.js';

export const EXACT_SNIFF_BYTES = 64 * 1024;
export const SNIFF_WINDOW_BYTES = 4 * 1024;

const ENVELOPE_NEEDLES = ['"raw_output"', '"session_id"', '"chunk"'].map((s) => Buffer.from(s));
const COMPACT_NEEDLES = ['"content"', '"sessionId"'].map((s) => Buffer.from(s));

/** What a refused request kept of its body: all of it up to EXACT_SNIFF_BYTES, else two windows. */
export interface BodySample {
  head: Uint8Array;
  tail: Uint8Array | null;
  totalBytes: number;
}

export function sampleOf(body: Uint8Array, copy: boolean): BodySample {
  if (body.byteLength <= EXACT_SNIFF_BYTES) return { head: copy ? body.slice() : body, tail: null, totalBytes: body.byteLength };
  const head = body.subarray(0, SNIFF_WINDOW_BYTES);
  const tail = body.subarray(body.byteLength - SNIFF_WINDOW_BYTES);
  return { head: copy ? head.slice() : head, tail: copy ? tail.slice() : tail, totalBytes: body.byteLength };
}

/**
 * The start of a body still arriving (`totalBytes` announced): judged by its field names, since a
 * prefix never parses. An empty tail marks the window mode.
 */
export function sampleOfPrefix(prefix: Uint8Array, totalBytes: number): BodySample {
  return { head: prefix.subarray(0, SNIFF_WINDOW_BYTES), tail: NO_TAIL, totalBytes };
}
const NO_TAIL = new Uint8Array(0);

/** The same sample from a body still in pieces (an oversize chunked upload). */
export function sampleOfChunks(chunks: readonly Uint8Array[], totalBytes: number): BodySample {
  const gather = (from: number, length: number): Uint8Array => {
    const out = new Uint8Array(length);
    let offset = 0;
    for (const chunk of chunks) {
      const start = Math.max(0, from - offset);
      const end = Math.min(chunk.byteLength, from + length - offset);
      if (start < end) out.set(chunk.subarray(start, end), offset + start - from);
      offset += chunk.byteLength;
    }
    return out;
  };
  if (totalBytes <= EXACT_SNIFF_BYTES) return { head: gather(0, totalBytes), tail: null, totalBytes };
  return { head: gather(0, SNIFF_WINDOW_BYTES), tail: gather(totalBytes - SNIFF_WINDOW_BYTES, SNIFF_WINDOW_BYTES), totalBytes };
}

function contains(bytes: Uint8Array | null, needles: readonly Buffer[]): boolean {
  if (bytes === null) return false;
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (const needle of needles) if (view.indexOf(needle) !== -1) return true;
  return false;
}

export function contractOfSample(setting: ContractSetting, sample: BodySample | null): Contract {
  if (setting !== 'auto' || sample === null) return fallbackContract(setting);
  if (sample.tail === null) {
    try {
      const text = Buffer.from(sample.head.buffer, sample.head.byteOffset, sample.head.byteLength).toString('utf8');
      return detectContract(JSON.parse(text), setting) ?? 'envelope';
    } catch {
      return 'envelope';
    }
  }
  if (contains(sample.head, ENVELOPE_NEEDLES) || contains(sample.tail, ENVELOPE_NEEDLES)) return 'envelope';
  if (contains(sample.head, COMPACT_NEEDLES) || contains(sample.tail, COMPACT_NEEDLES)) return 'compact';
  return 'envelope';
}
