// The streaming side of the gateway: turns the upstream's SSE events into the events the client
// receives. Chunks with nothing to heal pass through with their data untouched; in the others each
// healed part's delta (a tool call's `arguments` per choice and tool-call index, the content under
// response_format) is replaced by what the part's streaming healer releases, so the deltas a client
// joins are the healed text and nothing sent is taken back. What a healer still holds when a choice
// finishes is sent in a chunk of its own just before the one with `finish_reason`; the `jsonmend`
// report follows in a last chunk (`choices: []`) before `data: [DONE]`.
import { createJsonHealer, type JsonHealer } from '../../engine/heal/index.js';
import type { ChatPlan } from './chat-request.js';
import { ReportBuilder } from './heal-report.js';
import { DeltaShapes, type DeltaShape } from './delta-shape.js';
import type { SseEvent } from './sse-parser.js';

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

interface ToolState { healer: JsonHealer; id: string | null; name: string | null }

interface ChoiceState {
  content: JsonHealer | null;
  tools: Map<number, ToolState>;
  finished: boolean;
}

/** One SSE event as the client's wire bytes: every data line prefixed, a blank line after. */
export function frameEvent(event: string, data: string): string {
  const head = event === '' ? '' : `event: ${event}\n`;
  return `${head}data: ${data.includes('\n') ? data.split('\n').join('\ndata: ') : data}\n\n`;
}

export class StreamRewriter {
  readonly #choices = new Map<number, ChoiceState>();
  readonly report: ReportBuilder;
  /** The envelope of the last chunk seen (id, object, created, model): the chunks this adds copy it. */
  #envelope: Json = { object: 'chat.completion.chunk' };
  #done = false;
  readonly #shapes = new DeltaShapes();

  constructor(private readonly plan: ChatPlan, minConfidence: ReportBuilder['minConfidence']) {
    this.report = new ReportBuilder(minConfidence);
  }

  /** Whether `[DONE]` has been seen. */
  get done(): boolean {
    return this.#done;
  }

  /** The client's bytes for one upstream event ('' to send nothing). */
  rewrite(event: SseEvent): string {
    if (event.event === '' && event.data === '[DONE]') {
      this.#done = true;
      return `${this.finish()}data: [DONE]\n\n`;
    }
    const shape = event.event === '' ? this.#shapes.of(event.data) : null;
    if (shape !== null) {
      const spliced = this.#splice(event.data, shape);
      if (spliced !== null) return spliced;
    }
    let chunk: unknown;
    try {
      chunk = event.event === '' ? JSON.parse(event.data) : null;
    } catch {
      chunk = null;
    }
    if (!isObject(chunk) || !Array.isArray(chunk['choices'])) return frameEvent(event.event, event.data);
    this.#envelope = envelopeOf(chunk);
    let out = '';
    let modified = false;
    for (const [position, choice] of chunk['choices'].entries()) {
      if (!isObject(choice)) continue;
      const index = typeof choice['index'] === 'number' ? choice['index'] : position;
      const state = this.#stateOf(index);
      const delta = isObject(choice['delta']) ? choice['delta'] : null;
      // A delta after the choice finished (no upstream should send one) passes as it came.
      const touched = delta !== null && !state.finished && this.#healDelta(state, delta);
      if (touched) modified = true;
      if (choice['finish_reason'] == null || state.finished) continue;
      // The healed deltas of the finishing chunk go out with what the healers still held, before it.
      const carried: Json = {};
      if (touched) {
        if (state.content !== null && 'content' in delta!) carried['content'] = delta!['content'];
        if ('tool_calls' in delta!) carried['tool_calls'] = delta!['tool_calls'];
        delete delta!['content'];
        delete delta!['tool_calls'];
      }
      out += this.#finishChoice(index, state, choice['finish_reason'] === 'length', carried);
    }
    if (!modified) return out + frameEvent('', event.data);
    return carriesNothing(chunk) ? out : out + frameEvent('', JSON.stringify(chunk));
  }

  /** The stream ended: what the healers still hold, and the report chunk (once). */
  finish(): string {
    let out = '';
    for (const [index, state] of this.#choices) if (!state.finished) out += this.#finishChoice(index, state, false, {});
    if (this.#choices.size === 0 && this.report.healedParts === 0 && this.#done === false) return out;
    return out + frameEvent('', JSON.stringify({ ...this.#envelope, choices: [], jsonmend: this.report.build() }));
  }

  /**
   * A chunk of the common shape (delta-shape.ts): text passes as it is, a healed string is replaced
   * by what its healer releases. Null when the general way must take it (its part not yet known).
   */
  #splice(data: string, shape: DeltaShape): string | null {
    if (shape.tool < 0 && this.plan.content === null) return frameEvent('', data);
    const state = this.#choices.get(shape.choice);
    if (state === undefined || state.finished) return null;
    const healer = shape.tool < 0 ? state.content : state.tools.get(shape.tool)?.healer;
    if (healer === undefined || healer === null) return null;
    const sent = healer.push(JSON.parse(data.slice(shape.start - 1, shape.end + 1)) as string);
    if (sent === '' && shape.bare) return ''; // an empty delta with nothing else to say
    return frameEvent('', `${data.slice(0, shape.start)}${JSON.stringify(sent).slice(1, -1)}${data.slice(shape.end)}`);
  }

  #stateOf(index: number): ChoiceState {
    let state = this.#choices.get(index);
    if (state === undefined) {
      state = { content: this.plan.content === null ? null : createJsonHealer({ schema: this.plan.content.schema }), tools: new Map(), finished: false };
      this.#choices.set(index, state);
    }
    return state;
  }

  /** Replaces the healed parts of one delta in place; true when it touched any. */
  #healDelta(state: ChoiceState, delta: Json): boolean {
    let touched = false;
    if (state.content !== null && typeof delta['content'] === 'string') {
      const sent = state.content.push(delta['content']);
      if (sent === '' && delta['content'] !== '') delete delta['content'];
      else delta['content'] = sent;
      touched = true;
    }
    const calls = delta['tool_calls'];
    if (!Array.isArray(calls)) return touched;
    const kept: unknown[] = [];
    for (const [position, call] of calls.entries()) {
      if (!isObject(call)) {
        kept.push(call);
        continue;
      }
      const index = typeof call['index'] === 'number' ? call['index'] : position;
      const fn = isObject(call['function']) ? call['function'] : null;
      const tool = this.#toolOf(state, index, call, fn);
      if (fn !== null && typeof fn['arguments'] === 'string') {
        fn['arguments'] = tool.healer.push(fn['arguments']);
        touched = true;
        // An entry left with nothing but its index and empty arguments says nothing: dropped.
        if (fn['arguments'] === '' && Object.keys(call).every((k) => k === 'index' || k === 'function') && Object.keys(fn).length === 1) continue;
      }
      kept.push(call);
    }
    if (kept.length === 0) delete delta['tool_calls'];
    else delta['tool_calls'] = kept;
    return touched;
  }

  #toolOf(state: ChoiceState, index: number, call: Json, fn: Json | null): ToolState {
    let tool = state.tools.get(index);
    if (tool === undefined) {
      // The first delta of a tool call names it: its `parameters` are the schema from then on.
      const name = fn !== null && typeof fn['name'] === 'string' ? fn['name'] : null;
      const schema = name === null ? undefined : this.plan.toolSchemas.get(name);
      tool = { healer: createJsonHealer(schema === undefined ? {} : { schema }), id: typeof call['id'] === 'string' ? call['id'] : null, name };
      state.tools.set(index, tool);
    }
    return tool;
  }

  /**
   * Finishes a choice's healers and records their reports: a chunk with `delta` (the finishing
   * chunk's own healed deltas) followed by what the healers still held, or '' when that is nothing.
   */
  #finishChoice(index: number, state: ChoiceState, truncated: boolean, delta: Json): string {
    state.finished = true;
    if (state.content !== null) {
      const { delta: rest, result } = state.content.finish({ truncated });
      this.report.addContent(index, result.report);
      const before = typeof delta['content'] === 'string' ? delta['content'] : '';
      if (before + rest !== '') delta['content'] = before + rest;
    }
    const calls: Json[] = Array.isArray(delta['tool_calls']) ? delta['tool_calls'] as Json[] : [];
    for (const [k, tool] of state.tools) {
      const { delta: rest, result } = tool.healer.finish({ truncated });
      this.report.addToolCall(index, k, tool.id, tool.name, result.report);
      if (rest === '') continue;
      // Appended to this tool call's last entry in the carried delta, else a new entry of its own.
      const entry = calls.findLast((c) => isObject(c) && c['index'] === k && isObject(c['function']));
      if (entry === undefined) calls.push({ index: k, function: { arguments: rest } });
      else {
        const fn = entry['function'] as Json;
        fn['arguments'] = (typeof fn['arguments'] === 'string' ? fn['arguments'] : '') + rest;
      }
    }
    if (calls.length > 0) delta['tool_calls'] = calls;
    if (Object.keys(delta).length === 0) return '';
    return frameEvent('', JSON.stringify({ ...this.#envelope, choices: [{ index, delta, logprobs: null, finish_reason: null }] }));
  }
}

/** The members every chunk of the stream repeats. */
function envelopeOf(chunk: Json): Json {
  const envelope: Json = {};
  for (const key of ['id', 'object', 'created', 'model', 'system_fingerprint']) if (key in chunk) envelope[key] = chunk[key];
  return envelope;
}

/** A rewritten chunk whose every delta came out empty, with nothing else to say. */
function carriesNothing(chunk: Json): boolean {
  if (chunk['usage'] != null) return false;
  for (const choice of chunk['choices'] as unknown[]) {
    if (!isObject(choice)) return false;
    if (choice['finish_reason'] != null || choice['logprobs'] != null) return false;
    if (isObject(choice['delta']) && Object.keys(choice['delta']).length > 0) return false;
  }
  return true;
}
