// A batch repair from Node with the TypeScript client (npm install jsonmend-client).
//   JSONMEND_KEY=sk_live_... node repair.mjs        (JSONMEND_URL defaults to http://localhost:8080)
import { Jsonmend, JsonmendError } from 'jsonmend-client';

const jm = new Jsonmend({ apiKey: process.env.JSONMEND_KEY, baseUrl: process.env.JSONMEND_URL ?? 'http://localhost:8080' });

// What a model often answers: prose, a markdown fence, single quotes, a trailing comma, Python's True.
const reply = "Here you go:\n```json\n{'name': 'Ada Lovelace', 'born': 1815, 'fields': ['mathematics', 'computing',], 'notable': True}\n```";

try {
  const result = await jm.repair(reply);
  if (result.success) {
    console.log(JSON.stringify(result.repaired));
    console.log(`confidence: ${result.metadata.confidence}`);
    for (const r of result.metadata.repairs_applied) console.log(`- ${r.type} (${r.confidence}) at ${r.position}`);
  } else {
    console.log(`not repairable: ${result.metadata.errors[0].code}`);
  }
} catch (error) {
  if (!(error instanceof JsonmendError)) throw error;
  console.error(`jsonmend ${error.code} (request ${error.requestId ?? 'none'}): ${error.message}`);
  process.exitCode = 1;
}
