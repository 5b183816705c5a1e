// A missing required member is injected only when the schema says what it must be: its `const`
// (or a one-member `enum`), else its `default`. Anything else is left for validation to report as
// MISSING_REQUIRED_FIELD: inventing a value would hide a real omission.
import { childPointer } from './json-pointer.js';
import type { Effective } from './effective.js';
import { requiredFailure } from './explain-error.js';
import type { SchemaModel } from './model.js';
import { injected, type RepairSink } from './repair-detail.js';
import { cloneJson, setMember } from './value-utils.js';

export function injectRequired(
  model: SchemaModel, e: Effective, target: Record<string, unknown>, pointer: string, sink: RepairSink, certain: boolean,
): void {
  const required = e.required!;
  for (let i = 0; i < required.length; i++) {
    const name = required[i]!;
    if (Object.hasOwn(target, name)) continue;
    const injection = model.injectionFor(e, name);
    if (injection === null) {
      if (certain) sink.failures.push(requiredFailure(childPointer(pointer, name)));
      continue;
    }
    // Copies: the schema's value stays private to the cache, and the detail does not alias the output.
    setMember(target, name, cloneJson(injection.value));
    injected(sink, childPointer(pointer, name), cloneJson(injection.value));
  }
}
