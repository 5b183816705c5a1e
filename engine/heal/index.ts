// Healing for the gateway: a piece of model JSON answered as the canonical text a client receives,
// whole (healJson) or as deltas while the model writes it (createJsonHealer). README "Healing".
export { healJson, type HealOptions, type HealReport, type HealResult } from './heal-json.js';
export { createJsonHealer, type JsonHealer } from './json-healer.js';
export type { Confidence } from '../types.js';
export { stringEnd } from './json-text.js';
