// The engine's public entry: `import { repair, createStream } from 'jsonmend/engine'`.
export { repair } from './repair.js';
export type * from './types.js';
export { ERROR_CODES, WARNING_CODES, makeError, makeWarning } from './error-codes.js';
export { REPAIR_KINDS, compactRepairName } from './repair-kinds.js';
export { createStream, treeBytesEstimate, type RepairStream, type StreamOptions } from './stream.js';
export { DeadlineExceededError } from './deadline.js';
export { healJson, createJsonHealer, type HealOptions, type HealReport, type HealResult, type JsonHealer } from './heal/index.js';
