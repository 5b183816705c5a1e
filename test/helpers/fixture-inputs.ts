// Every `input` string in a JSON fixture file, wherever it sits (the corpora the engine's, the
// healer's and the gateway's property tests replay).
import { readFileSync } from 'node:fs';

export function inputsOf(path: string | URL): string[] {
  const out: string[] = [];
  const walk = (x: unknown): void => {
    if (Array.isArray(x)) for (const v of x) walk(v);
    else if (x !== null && typeof x === 'object') {
      const input = (x as { input?: unknown }).input;
      if (typeof input === 'string') out.push(input);
      else for (const v of Object.values(x)) walk(v);
    }
  };
  walk(JSON.parse(readFileSync(path, 'utf8')));
  return out;
}
