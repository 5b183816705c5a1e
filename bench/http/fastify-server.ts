// The reference service of bench/http: what a team would write in an afternoon with well-kept
// libraries, fastify 5 and jsonrepair. POST /v1/repair parses the JSON body (fastify's own parser),
// repairs raw_output with jsonrepair, JSON.parse's the result and answers it; no auth, no logging,
// no repair report. Our server must beat it by a wide margin for the hand-written path to be worth it.
import Fastify from 'fastify';
import { jsonrepair } from 'jsonrepair';

const app = Fastify({ logger: false, bodyLimit: 6 * 1024 * 1024 });

app.post('/v1/repair', async (request, reply) => {
  const body = request.body as { raw_output?: unknown } | null;
  if (body === null || typeof body !== 'object' || typeof body.raw_output !== 'string') {
    return reply.code(400).send({ success: false, error: 'raw_output must be a string' });
  }
  try {
    return { success: true, repaired: JSON.parse(jsonrepair(body.raw_output)) as unknown };
  } catch (error) {
    return reply.code(422).send({ success: false, error: (error as Error).message });
  }
});

const address = await app.listen({ host: process.env.HOST ?? '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stdout.write(`listening on ${address}\n`);
