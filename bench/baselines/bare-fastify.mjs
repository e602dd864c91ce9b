// Baseline: a bare fastify route that parses the JSON body (fastify's default parser, as the
// daemon does) and answers the bytes in BENCH_RESPONSE_FILE, with the daemon's headers for a
// cache hit (the same response bytes but the date). Plain JS: no loader at start.
import { readFileSync } from 'node:fs';
import Fastify from 'fastify';

const bytes = process.env.BENCH_RESPONSE_FILE
  ? readFileSync(process.env.BENCH_RESPONSE_FILE)
  : Buffer.from('{"okay":true}');
const app = Fastify();
app.post('/api/v1/:tool', async (request, reply) => {
  // Touch the parsed body, as a handler would.
  if (typeof request.body !== 'object' || request.body === null) reply.code(400);
  return reply.header('x-cache', 'hit').type('application/json; charset=utf-8').send(bytes);
});
app.get('/v1/environments', async () => []);
await app.listen({ host: '127.0.0.1', port: Number(process.env.PORT ?? 0) });
process.stderr.write(`BENCH_READY ${app.server.address().port}\n`);
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
