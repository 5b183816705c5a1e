// `jsonmend repair [FILE]`: the engine in this process (no server), the repaired JSON on stdout.
// Exit codes are for scripts: 0 repaired, 1 nothing could be repaired (or the schema not met),
// 2 repaired below --min-confidence (the JSON is still printed), 64 bad usage or unreadable input,
// 65 a --schema file that is JSON but not a valid JSON Schema, 74 the output could not be written
// (the sysexits.h codes EX_USAGE, EX_DATAERR and EX_IOERR).
import { createReadStream, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { createStream, repair } from '../engine/index.js';
import type { Confidence, Mode, RepairResponse } from '../engine/index.js';
import { compiledSchema } from '../engine/schema/index.js';

export const EXIT_UNREPAIRABLE = 1;
export const EXIT_LOW_CONFIDENCE = 2;
export const EXIT_USAGE = 64;
export const EXIT_BAD_SCHEMA = 65;
export const EXIT_OUTPUT = 74;

const RANK: Record<string, number> = { low: 1, medium: 2, high: 3 };

class UsageError extends Error {}
/** The schema file is JSON but not a schema: the file needs fixing, not the command line. */
class SchemaError extends Error {}

function readText(file: string | undefined): string {
  try {
    // fd 0 reads stdin whether it is a pipe, a file or a terminal.
    return readFileSync(file ?? 0, 'utf8');
  } catch (error) {
    throw new UsageError(`cannot read ${file ?? 'stdin'}: ${(error as Error).message}`);
  }
}

function readSchema(file: string): unknown {
  const text = readText(file);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--schema ${file} is not JSON: ${(error as Error).message}`);
  }
}

/** Compiled once here (the engine caches it by object, so the repair reuses it). */
function checkSchema(file: string, schema: unknown): unknown {
  const compiled = compiledSchema(schema);
  if (!compiled.ok) throw new SchemaError(`--schema ${file} is not a valid JSON Schema: ${compiled.error.message.replace(/^Invalid schema: /, '')}`);
  return schema;
}

interface Invocation {
  file: string | undefined;
  schema: unknown;
  mode: Mode | undefined;
  pretty: boolean;
  report: boolean;
  minConfidence: Confidence | undefined;
  stream: boolean;
}

function readArgs(argv: string[]): Invocation {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      schema: { type: 'string' },
      mode: { type: 'string' },
      pretty: { type: 'boolean' },
      report: { type: 'boolean' },
      'min-confidence': { type: 'string' },
      stream: { type: 'boolean' },
    },
  });
  if (positionals.length > 1) throw new UsageError('repair takes at most one FILE (none: stdin)');
  const mode = values.mode;
  if (mode !== undefined && mode !== 'strict' && mode !== 'lenient') throw new UsageError(`--mode must be strict or lenient, not "${mode}"`);
  const min = values['min-confidence'];
  if (min !== undefined && RANK[min] === undefined) throw new UsageError(`--min-confidence must be high, medium or low, not "${min}"`);
  if (values.stream === true && values.pretty === true) throw new UsageError('--stream writes one JSON line per preview: it takes no --pretty');
  return {
    file: positionals[0] === '-' ? undefined : positionals[0],
    schema: values.schema === undefined ? undefined : checkSchema(values.schema, readSchema(values.schema)),
    mode,
    pretty: values.pretty === true,
    report: values.report === true,
    minConfidence: min as Confidence | undefined,
    stream: values.stream === true,
  };
}

/** The envelope as the service sends it: `compact_code` is the compact contract's, never shown here. */
function envelopeText(response: RepairResponse, indent: number): string {
  return JSON.stringify(response, (key, value) => (key === 'compact_code' ? undefined : value), indent);
}

/** Runs `jsonmend repair …`; resolves with the exit code. */
export async function main(argv: string[]): Promise<number> {
  let invocation: Invocation;
  let text: string;
  try {
    invocation = readArgs(argv);
    text = invocation.stream ? '' : readText(invocation.file);
  } catch (error) {
    const usage = error instanceof UsageError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS');
    process.stderr.write(`jsonmend repair: ${(error as Error).message}\n${usage ? 'see jsonmend --help\n' : ''}`);
    return error instanceof SchemaError ? EXIT_BAD_SCHEMA : EXIT_USAGE;
  }
  let response: RepairResponse;
  /** --stream: the last preview line written, so the final value is not written twice. */
  let lastLine: string | null = null;
  if (invocation.stream) {
    const streamed = await streamPreviews(invocation);
    if (typeof streamed === 'number') return streamed;
    ({ response, lastLine } = streamed);
  } else response = repair(text, { schema: invocation.schema, mode: invocation.mode });
  const indent = invocation.pretty ? 2 : 0;
  let output: string;
  try {
    output = invocation.report ? envelopeText(response, indent) : JSON.stringify(response.repaired, null, indent);
  } catch (error) {
    // A value nested thousands of levels deep overflows JSON.stringify (the service answers the same).
    if (!(error instanceof RangeError)) throw error;
    process.stderr.write('jsonmend repair: UNRECOVERABLE_SYNTAX_ERROR: the JSON nests too deeply to be written out.\n');
    return EXIT_UNREPAIRABLE;
  }
  if (!response.success) {
    if (invocation.report) await write(output); // the errors follow on stderr whatever happens to stdout
    for (const e of response.metadata.errors) {
      process.stderr.write(`jsonmend repair: ${e.code}: ${e.message}${e.field === undefined ? '' : ` (at ${e.field})`}${e.suggestion === undefined ? '' : ` ${e.suggestion}`}\n`);
    }
    return EXIT_UNREPAIRABLE;
  }
  const failed = output === lastLine ? null : await write(output);
  if (failed !== null) {
    process.stderr.write(`jsonmend repair: cannot write the output: ${failed.message}\n`);
    return EXIT_OUTPUT;
  }
  const confidence = response.metadata.confidence;
  const min = invocation.minConfidence;
  if (min !== undefined && (RANK[confidence] ?? 0) < RANK[min]!) {
    process.stderr.write(`jsonmend repair: confidence ${confidence} is below --min-confidence ${min}\n`);
    return EXIT_LOW_CONFIDENCE;
  }
  return 0;
}

/**
 * `--stream`: the input is read as it arrives and pushed to a progressive stream; each push that
 * changes the preview writes it as one line (NDJSON), so `llm … | jsonmend repair --stream` shows the
 * answer while the model writes it. Resolves with finalize's answer (whose value main() writes as the
 * last line, the last preview), or an exit code when the input or the output failed.
 */
async function streamPreviews(invocation: Invocation): Promise<{ response: RepairResponse; lastLine: string | null } | number> {
  const stream = createStream({ schema: invocation.schema, mode: invocation.mode, preview: 'progressive', echoBuffer: false });
  const input = invocation.file === undefined ? process.stdin : createReadStream(invocation.file);
  input.setEncoding('utf8');
  let lastLine: string | null = null;
  try {
    for await (const chunk of input) {
      const state = stream.push(chunk as string);
      if (state.partial === null) continue;
      // A chunk that only added to text the preview does not show yet changes nothing: no line.
      const line = JSON.stringify(state.partial);
      if (line === lastLine) continue;
      lastLine = line;
      const failed = await write(line);
      if (failed !== null) {
        process.stderr.write(`jsonmend repair: cannot write the output: ${failed.message}\n`);
        return EXIT_OUTPUT;
      }
    }
  } catch (error) {
    process.stderr.write(`jsonmend repair: cannot read ${invocation.file ?? 'stdin'}: ${(error as Error).message}\n`);
    return EXIT_USAGE;
  }
  return { response: stream.finalize(), lastLine };
}

/**
 * Writes to stdout and waits for it to drain, so a large output is not cut when the process exits.
 * A reader that stops early (`| head`) closes the pipe: that is its choice, not a failure. Any other
 * write error (a full disk) is returned.
 */
function write(text: string): Promise<Error | null> {
  // Both report a failed write: the callback, then the stream's 'error' (unhandled, it would crash).
  // One listener for the whole run, not one per write: --stream writes once per preview, and a
  // listener per write would pass Node's limit of ten (MaxListenersExceededWarning).
  if (!stdoutGuarded) {
    process.stdout.on('error', () => {}); // the write's callback has the error; this only keeps it from crashing
    stdoutGuarded = true;
  }
  return new Promise((resolve) => {
    process.stdout.write(text + '\n', (error: NodeJS.ErrnoException | null | undefined) => {
      resolve(error == null || error.code === 'EPIPE' ? null : error);
    });
  });
}

let stdoutGuarded = false;
