#!/usr/bin/env node
// The `jsonmend` command (package.json "bin"). Each subcommand's module is loaded only when asked
// for, so `jsonmend repair` never loads the server and `--help` loads nothing: start-up stays at
// Node's own (tens of milliseconds). It runs the compiled dist/ that `npm install` (prepare) and
// `npm run build` produce; it never builds.
const HELP = `jsonmend — repairs the broken JSON that language models produce

usage:
  jsonmend repair [FILE] [options]   repair FILE (or stdin) in this process; the JSON on stdout
      --schema FILE                  a JSON Schema the result must match (draft-07 or 2020-12)
      --mode strict|lenient          strict (default) drops members the schema does not declare
      --pretty                       indent the output
      --report                       print the full envelope (success, repaired, metadata)
      --min-confidence high|medium|low
                                     exit 2 when the repair's confidence is below this
      --stream                       read the input as it arrives and write the answer so far as
                                     one JSON line each time it grows (NDJSON); the last line is
                                     the repaired JSON
    exit: 0 repaired; 1 nothing could be repaired (the error on stderr); 2 below --min-confidence;
          64 bad usage or an unreadable file; 65 the --schema file is not a valid
          JSON Schema; 74 the output could not be written
  jsonmend serve                     start the HTTP service (what \`npm start\` runs); configured by
                                     environment variables: PORT, HOST, DATA_DIR, WORKERS, …
                                     (docs/operations.md)
  jsonmend key create --tier <free|pro|team|scale|unlimited> [--name <name>]
  jsonmend key list
  jsonmend key revoke <prefix-or-id>
                                     manage API keys in DATA_DIR (default ./data); \`npm run key --\`
                                     is the same command
  jsonmend --help | --version

examples:
  llm-call | jsonmend repair --schema person.schema.json --min-confidence medium > person.json
  llm-call | jsonmend repair --stream | while read -r line; do render "$line"; done
  jsonmend repair reply.txt --report --pretty
`;

const [command, ...rest] = process.argv.slice(2);
switch (command) {
  case 'repair':
    process.exitCode = await (await import('./repair.js')).main(rest);
    break;
  case 'serve':
    if (rest.includes('--help') || rest.includes('-h')) {
      process.stdout.write(HELP);
    } else if (rest.length > 0) {
      process.stderr.write(`jsonmend serve takes no arguments (configure it with environment variables; see --help)\n`);
      process.exitCode = 64;
    } else {
      await import('../server/main.js');
    }
    break;
  case 'key':
    process.exitCode = await (await import('./key.js')).main(rest);
    break;
  case '--version':
  case '-v': {
    const { createRequire } = await import('node:module');
    process.stdout.write(`${(createRequire(import.meta.url)('../../package.json') as { version: string }).version}\n`);
    break;
  }
  case undefined:
  case 'help':
  case '--help':
  case '-h':
    process.stdout.write(HELP);
    break;
  default:
    process.stderr.write(`jsonmend: unknown command "${command}"\n\n${HELP}`);
    process.exitCode = 64;
}
