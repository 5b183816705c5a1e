// Which contract a request speaks (docs/design.md "Contracts"). With CONTRACT=auto the request's own
// field names decide: raw_output / session_id / chunk mean envelope, content / sessionId compact.
import type { ContractSetting } from '../config/load-config.js';

export type Contract = 'envelope' | 'compact';

const ENVELOPE_FIELDS = ['raw_output', 'session_id', 'chunk'] as const;
const COMPACT_FIELDS = ['content', 'sessionId'] as const;

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** null: auto, and the body names neither contract (answered INVALID_REQUEST in the envelope shape). */
export function detectContract(body: unknown, setting: ContractSetting): Contract | null {
  if (setting !== 'auto') return setting;
  if (!isPlainObject(body)) return null;
  for (const field of ENVELOPE_FIELDS) if (Object.hasOwn(body, field)) return 'envelope';
  for (const field of COMPACT_FIELDS) if (Object.hasOwn(body, field)) return 'compact';
  return null;
}

/** The shape used when the body cannot tell (auto, and unparsed or neither contract). */
export function fallbackContract(setting: ContractSetting): Contract {
  return setting === 'auto' ? 'envelope' : setting;
}
