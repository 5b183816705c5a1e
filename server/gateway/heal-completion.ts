// Heals a whole (non-streaming) chat completion: each choice's tool-call arguments against their
// tool's parameters, and its content when the request asked for JSON. Nothing else is touched.
// When no healed text differs from what the model wrote, the upstream's bytes are kept and only the
// report is spliced in before the closing brace, so ids, usage and logprobs keep their exact
// spelling; otherwise the completion is written again (the same values, JSON.stringify's spelling).
import { healJson } from '../../engine/heal/index.js';
import type { ChatPlan } from './chat-request.js';
import type { AnswerReport, ReportBuilder } from './heal-report.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
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
  let changed = false;
  for (const [position, choice] of completion['choices'].entries()) {
    if (!isObject(choice) || !isObject(choice['message'])) continue;
    const index = typeof choice['index'] === 'number' ? choice['index'] : position;
    const truncated = choice['finish_reason'] === 'length';
    const message = choice['message'];
    if (plan.content !== null && typeof message['content'] === 'string') {
      const result = healJson(message['content'], { schema: plan.content.schema, truncated });
      builder.addContent(index, result.report);
      if (result.text !== message['content']) {
        message['content'] = result.text;
        changed = true;
      }
    }
    if (!Array.isArray(message['tool_calls'])) continue;
    for (const [k, call] of message['tool_calls'].entries()) {
      const fn = isObject(call) ? call['function'] : undefined;
      if (!isObject(fn) || typeof fn['arguments'] !== 'string') continue;
      const name = typeof fn['name'] === 'string' ? fn['name'] : null;
      const schema = name === null ? undefined : plan.toolSchemas.get(name);
      const result = healJson(fn['arguments'], { schema, truncated });
      const id = typeof (call as Json)['id'] === 'string' ? (call as Json)['id'] as string : null;
      builder.addToolCall(index, k, id, name, result.report);
      if (result.text !== fn['arguments']) {
        fn['arguments'] = result.text;
        changed = true;
      }
    }
  }
  const report = builder.build();
  if (changed) {
    completion['jsonmend'] = report;
    return JSON.stringify(completion);
  }
  return withReport(raw, report);
}

/** `raw` (a JSON object) with `"jsonmend": report` added as its last member, its own bytes unchanged. */
function withReport(raw: string, report: AnswerReport): string {
  const close = raw.lastIndexOf('}');
  let before = close - 1;
  while (before >= 0 && raw.charCodeAt(before) <= 0x20) before--; // whitespace before the brace
  const empty = raw.charCodeAt(before) === 0x7b; // `{`: an object with no member yet
  return `${raw.slice(0, close)}${empty ? '' : ','}"jsonmend":${JSON.stringify(report)}${raw.slice(close)}`;
}
