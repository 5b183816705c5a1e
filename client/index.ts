// The client's public entry: `import { Jsonmend, JsonmendError } from 'jsonmend/client'`.
// It runs wherever fetch does (Node 20+, browsers); the engine's types are imported as types only.
export { Jsonmend, type DemoRepairResponse, type JsonmendOptions, type RepairOptions, type RepairStreamOptions, type StartStreamOptions } from './jsonmend.js';
export { JsonmendError, type ClientErrorCode } from './errors.js';
export { JsonmendStream, type StreamRestart } from './stream.js';
export { applyPatch } from './apply-patch.js';
export type { Confidence, JsonValue, Mode, PatchOperation, PreviewMode, RepairDetail, RepairError, RepairMetadata, RepairResponse, StreamState, Warning } from '../engine/types.js';
