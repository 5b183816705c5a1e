// What the gateway reads of a Chat Completions request: whether it streams, each tool's `parameters`
// (the schema its call's arguments are healed against), and whether `message.content` is JSON to
// heal (`response_format` json_schema or json_object). The body itself goes upstream as it came.
import { makeError } from '../contracts/error-codes.js';
import type { RepairError } from '../../engine/types.js';

export interface ChatPlan {
  stream: boolean;
  /** Tool name → its `parameters` schema (absent: healed without a schema). */
  toolSchemas: ReadonlyMap<string, object>;
  /** null: content is text and passes untouched; otherwise heal it, against `schema` when given. */
  content: { schema: object | undefined } | null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The plan of a request body, or the INVALID_REQUEST its caller is answered with. */
export function planOf(body: Uint8Array): ChatPlan | RepairError {
  let request: unknown;
  try {
    request = JSON.parse(Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8'));
  } catch {
    return makeError('INVALID_REQUEST', 'The request body is not JSON: send a Chat Completions request object.');
  }
  if (!isObject(request)) return makeError('INVALID_REQUEST', 'The request body must be a JSON object (a Chat Completions request).');
  const toolSchemas = new Map<string, object>();
  if (Array.isArray(request['tools'])) {
    for (const tool of request['tools']) {
      const fn = isObject(tool) ? tool['function'] : undefined;
      if (isObject(fn) && typeof fn['name'] === 'string' && isObject(fn['parameters'])) toolSchemas.set(fn['name'], fn['parameters']);
    }
  }
  return { stream: request['stream'] === true, toolSchemas, content: contentPlan(request['response_format']) };
}

function contentPlan(format: unknown): ChatPlan['content'] {
  if (!isObject(format)) return null;
  if (format['type'] === 'json_object') return { schema: undefined };
  if (format['type'] !== 'json_schema') return null;
  const spec = format['json_schema'];
  return { schema: isObject(spec) && isObject(spec['schema']) ? spec['schema'] : undefined };
}
