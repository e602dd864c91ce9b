/**
 * The TypeScript client: `node --import tsx examples/client.ts` with the daemon running
 * (SERVICE_API_URL, default http://127.0.0.1:8080; SERVICE_ENVIRONMENT, default lean-4.28.0).
 */
import { readFileSync } from 'node:fs';
import { LeanToolClient, ServiceRequestError } from '../src/client/client.ts';

const client = new LeanToolClient(); // reads SERVICE_API_URL, SERVICE_API_KEY, SERVICE_TIMEOUT_SECONDS, SERVICE_MAX_CONCURRENCY
const environment = process.env.SERVICE_ENVIRONMENT ?? 'lean-4.28.0';
const content = readFileSync(new URL('./solution.lean', import.meta.url), 'utf8');

for (const e of await client.environments())
  console.log(`${e.name}: ${e.available ? 'available' : e.unavailable_reason}`);

// Structural: works without Lean when reparse is false.
const problem = await client.theorem2sorry({ content, environment, reparse: false });
console.log(problem.content);

// Lean-backed: needs an environment that can run Lean (see README, "Environments").
try {
  const r = await client.check({ content, environment });
  console.log(`check: okay=${r.okay}`, r.lean_messages.errors);
} catch (e) {
  if (!(e instanceof ServiceRequestError)) throw e;
  console.log(`check: ${e.status} ${e.code}: ${e.message}`);
}
