// A scripted OpenAI-compatible upstream for the gateway's tests and bench: a node:http server on
// 127.0.0.1 that answers POST /v1/chat/completions in the OpenAI wire format — a chat.completion
// object, or `data: {chunk}\n\n` events ended by `data: [DONE]`, written in whatever TCP pieces the
// script chooses. The request's `model` picks the script, so one upstream serves a whole test file.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface UpstreamRequest {
  headers: IncomingMessage['headers'];
  /** The body exactly as it arrived. */
  raw: string;
  body: Record<string, any>;
  /** Resolves when the gateway closed the connection before the answer was complete (an abort). */
  aborted: Promise<void>;
}

export type Script = (request: UpstreamRequest, res: ServerResponse) => void | Promise<void>;

export class ScriptedUpstream {
  readonly requests: UpstreamRequest[] = [];
  readonly #scripts = new Map<string, Script>();

  private constructor(private readonly server: Server, readonly url: string) {}

  static async start(): Promise<ScriptedUpstream> {
    let upstream: ScriptedUpstream | null = null;
    const server = createServer((req, res) => void upstream!.handle(req, res));
    server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    upstream = new ScriptedUpstream(server, `http://127.0.0.1:${port}/v1`);
    return upstream;
  }

  /** Answers requests whose `model` is `model` with `script`. */
  script(model: string, script: Script): void {
    this.#scripts.set(model, script);
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const raw = Buffer.concat(parts).toString('utf8');
    let body: Record<string, any> = {};
    try {
      body = JSON.parse(raw);
    } catch { /* answered below as OpenAI does */ }
    const aborted = new Promise<void>((resolve) => res.on('close', () => {
      if (!res.writableFinished) resolve();
    }));
    const request: UpstreamRequest = { headers: req.headers, raw, body, aborted };
    this.requests.push(request);
    const script = this.#scripts.get(String(body['model']));
    if (req.url !== '/v1/chat/completions' || script === undefined) {
      writeJson(res, 404, { error: { message: `no script for model ${String(body['model'])}`, type: 'invalid_request_error', param: 'model', code: 'model_not_found' } });
      return;
    }
    await script(request, res);
  }
}

export function writeJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers });
  res.end(text);
}

export interface ToolCallSpec { id: string; name: string; arguments: string }
export interface ChoiceSpec {
  content?: string | null;
  tool_calls?: ToolCallSpec[];
  refusal?: string | null;
  finish_reason?: string;
}

/** A chat.completion as OpenAI sends it, one choice per spec. */
export function completion(choices: ChoiceSpec[], model = 'scripted'): Record<string, unknown> {
  return {
    id: 'chatcmpl-scripted1',
    object: 'chat.completion',
    created: 1_764_000_000,
    model,
    choices: choices.map((c, index) => ({
      index,
      message: {
        role: 'assistant',
        content: c.content ?? null,
        refusal: c.refusal ?? null,
        ...(c.tool_calls === undefined ? {} : {
          tool_calls: c.tool_calls.map((t) => ({ id: t.id, type: 'function', function: { name: t.name, arguments: t.arguments } })),
        }),
      },
      logprobs: null,
      finish_reason: c.finish_reason ?? (c.tool_calls === undefined ? 'stop' : 'tool_calls'),
    })),
    usage: { prompt_tokens: 11, completion_tokens: 7, total_tokens: 18 },
    system_fingerprint: 'fp_scripted',
  };
}

/**
 * The chunk data of a streamed answer: per choice a role chunk, the content in `pieces` (each
 * string one delta) or each tool call's name then its argument pieces, and a finish chunk; the
 * choices' chunks interleaved when there are several. `pieces(text)` decides how a text is cut.
 */
export function streamChunks(choices: ChoiceSpec[], pieces: (text: string) => string[], model = 'scripted'): string[] {
  const envelope = { id: 'chatcmpl-scripted1', object: 'chat.completion.chunk', created: 1_764_000_000, model, system_fingerprint: 'fp_scripted' };
  const chunk = (index: number, delta: unknown, finish: string | null = null): string =>
    JSON.stringify({ ...envelope, choices: [{ index, delta, logprobs: null, finish_reason: finish }] });
  const perChoice = choices.map((c, index) => {
    const out = [chunk(index, { role: 'assistant', content: c.tool_calls === undefined ? '' : null, refusal: null })];
    if (typeof c.content === 'string') for (const p of pieces(c.content)) out.push(chunk(index, { content: p }));
    for (const [k, t] of (c.tool_calls ?? []).entries()) {
      out.push(chunk(index, { tool_calls: [{ index: k, id: t.id, type: 'function', function: { name: t.name, arguments: '' } }] }));
      for (const p of pieces(t.arguments)) out.push(chunk(index, { tool_calls: [{ index: k, function: { arguments: p } }] }));
    }
    out.push(chunk(index, {}, c.finish_reason ?? (c.tool_calls === undefined ? 'stop' : 'tool_calls')));
    return out;
  });
  const all: string[] = [];
  for (let i = 0; perChoice.some((list) => i < list.length); i++) for (const list of perChoice) if (i < list.length) all.push(list[i]!);
  return all;
}

/** The SSE bytes of `chunks` plus `[DONE]`, as one string (cut it anywhere to test framing). */
export function sseText(chunks: string[], eol = '\n'): string {
  return chunks.map((c) => `data: ${c}${eol}${eol}`).join('') + `data: [DONE]${eol}${eol}`;
}

/** Starts an SSE answer and writes `pieces` one TCP write each, `gapMs` apart (0: back to back). */
export async function writeSse(res: ServerResponse, pieces: string[], gapMs = 0): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  res.flushHeaders();
  for (const piece of pieces) {
    if (res.destroyed) return;
    res.write(piece);
    if (gapMs > 0) await new Promise((resolve) => setTimeout(resolve, gapMs));
  }
  res.end();
}
