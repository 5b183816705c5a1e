// Before a scenario is timed, one request is sent by hand and its answer checked against the value a
// correct repair gives: a fast wrong answer is not a result. The streaming endpoints may be missing
// (another part of the project adds them); a 404 there makes the row "unavailable", not a failure.
import { firstDifference } from '../../support/json-equal.js';
import type { RequestSpec } from '../lib/load.js';
import type { Scenario } from './scenarios.js';
import { probeStream } from './stream-session.js';

export type Verdict = { kind: 'ok' } | { kind: 'unavailable'; reason: string } | { kind: 'wrong'; reason: string };

function differs(actual: unknown, expected: unknown): string | null {
  const at = firstDifference(actual, expected);
  return at === null ? null : `repaired value differs at "${at}"`;
}

async function send(url: string, request: RequestSpec): Promise<{ status: number; text: string }> {
  const response = await fetch(url + request.path, {
    method: request.method,
    headers: { 'content-type': 'application/json', ...request.headers },
    body: request.body,
  });
  return { status: response.status, text: await response.text() };
}

function parse(text: string): Record<string, unknown> | null {
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return null;
  }
}

export async function verifyScenario(url: string, key: string, scenario: Scenario): Promise<Verdict> {
  if (scenario.check === 'stream') {
    const probe = await probeStream(url, key, scenario.input);
    if (probe.kind === 'unavailable') return { kind: 'unavailable', reason: `POST /v1/repair/stream/start answered HTTP ${probe.status}` };
    const problem = probe.problem ?? differs(probe.value, scenario.input.expected);
    return problem === null ? { kind: 'ok' } : { kind: 'wrong', reason: problem };
  }
  const request = scenario.requests(key)[0]!;
  const { status, text } = await send(url, request);
  if (scenario.check === 'echo') return status === 200 && text === request.body ? { kind: 'ok' } : { kind: 'wrong', reason: `echo answered HTTP ${status}` };
  const answer = parse(text);
  if (answer === null) return { kind: 'wrong', reason: `HTTP ${status}, not JSON: ${text.slice(0, 120)}` };
  if (scenario.check === 'compact') {
    if (answer.valid !== true || typeof answer.repaired !== 'string') return { kind: 'wrong', reason: text.slice(0, 200) };
    const problem = differs(JSON.parse(answer.repaired), scenario.input.expected);
    return problem === null ? { kind: 'ok' } : { kind: 'wrong', reason: problem };
  }
  if (answer.success !== true) return { kind: 'wrong', reason: text.slice(0, 200) };
  if (scenario.check === 'demo-envelope' && answer.demo !== true) return { kind: 'wrong', reason: 'the demo answer lacks "demo": true' };
  const problem = differs(answer.repaired, scenario.input.expected);
  return problem === null ? { kind: 'ok' } : { kind: 'wrong', reason: problem };
}
