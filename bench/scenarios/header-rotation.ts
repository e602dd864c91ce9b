/**
 * Header rotation at the process cap: an environment whose own header is kept warm to its cap
 * (lean.minWarm = lean.maxSessions = 2), after its sessions served other work, gets requests for
 * headers that are not its own, one header after another (each round PER_HEADER concurrent
 * requests for the round's header, nothing else running). A request for a new header must evict an
 * idle session and start its own, never wait for the own header's warm refill: the target is the
 * worst latency well below the requests' deadline (before the pool put waiters first, every other
 * round ended at the deadline with 504s). The fake REPL's header import takes IMPORT_MS, so every
 * start costs something, as Lean's import of a header does.
 */
import { buildApp } from '../../src/app.ts';
import { configSchema } from '../../src/config.ts';
import { round, stats, type ScenarioResult } from '../lib.ts';
import { fakeReplLaunch } from '../fake-repl.ts';
import { benchEnvironment } from '../servers.ts';
import { poster } from './http-client.ts';

const HEADERS = 4;
const ROUNDS = 8;
const PER_HEADER = 2;
const IMPORT_MS = 500;
/** The requests' deadline: a request the pool forgets ends here. */
const DEADLINE_S = 20;
/** The target: the worst latency, well below the deadline. */
const BOUND_MS = 5000;

interface Timed {
  status: number;
  ms: number;
}

async function daemon() {
  const config = configSchema.parse({
    keys: [{ key: 'bench-key-0038', concurrency: 8 }],
    lean: { minWarm: 2, maxSessions: 2, prefixEntries: 10 },
    environments: [benchEnvironment],
  });
  const app = await buildApp({
    config,
    logger: false,
    probe: () => ({ available: true }),
    launch: (e) => {
      const spec = fakeReplLaunch(e);
      return { ...spec, env: { ...spec.env, FAKE_REPL_IMPORT_MS: String(IMPORT_MS) } };
    },
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  const { post, close } = poster(
    `http://127.0.0.1:${(app.server.address() as { port: number }).port}`,
    'bench-key-0038',
  );
  const timed = async (body: unknown): Promise<Timed> => {
    const t0 = performance.now();
    const { status } = await post('/api/v1/check', body);
    return { status, ms: performance.now() - t0 };
  };
  return { timed, stop: async () => (close(), await app.close()) };
}

const own = (tag: string) => ({
  content: `theorem own_${tag} : True := trivial\n`,
  environment: 'bench',
  timeout_seconds: DEADLINE_S,
});
const foreign = (header: number, tag: string) => ({
  content: `import Mathlib\nimport Extra${header}\n\ntheorem t_${tag} : True := trivial\n`,
  environment: 'bench',
  ignore_imports: false,
  timeout_seconds: DEADLINE_S,
});

export async function headerRotationScenario(): Promise<ScenarioResult> {
  const { timed, stop } = await daemon();
  // The own header's two sessions serve other work first (and warm up).
  await Promise.all([0, 1, 2, 3].map((i) => timed(own(`warm${i}`))));
  const rounds: { header: number; times: Timed[] }[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const header = r % HEADERS;
    const times = await Promise.all(Array.from({ length: PER_HEADER }, (_, i) => timed(foreign(header, `r${r}_${i}`))));
    rounds.push({ header, times });
  }
  await stop();
  const all = rounds.flatMap((x) => x.times);
  const lat = stats(all.map((x) => x.ms));
  const failed = all.filter((x) => x.status !== 200).length;
  const pass = failed === 0 && lat.max < BOUND_MS;
  const figure = `worst ${round(lat.max, 0)} ms, ${failed}/${all.length} not 200`;
  return {
    name: 'header-rotation',
    summary:
      `${ROUNDS} rounds over ${HEADERS} headers at minWarm = maxSessions = 2: ${figure}; ` +
      `p50 ${round(lat.p50, 0)} ms (deadline ${DEADLINE_S} s, bound ${BOUND_MS} ms)`,
    figures: { rounds: ROUNDS, headers: HEADERS, perHeader: PER_HEADER, importMs: IMPORT_MS, latencyMs: lat, failed },
    table: [
      [
        'load',
        `${ROUNDS} rounds, each ${PER_HEADER} concurrent requests for header r mod ${HEADERS}`,
        `after 4 requests on the own header; minWarm = maxSessions = 2; a header import takes ${IMPORT_MS} ms (fake REPL)`,
      ],
      ['worst latency', `${round(lat.max, 0)} ms`, `target < ${BOUND_MS} ms; deadline ${DEADLINE_S} s`],
      ['latency p50 / p95', `${round(lat.p50, 0)} / ${round(lat.p95, 0)} ms`, ''],
      ['not 200', `${failed}/${all.length}`, 'a request the pool forgot ends at its deadline (504)'],
    ],
    targets: [
      {
        target: `a new header at a full environment: worst latency < ${BOUND_MS / 1000} s (deadline ${DEADLINE_S} s)`,
        figure,
        pass,
        noisy: false,
      },
    ],
    roundsHeader: ['round', 'header', 'latencies (ms)', 'statuses'],
    rounds: rounds.map((x, i) => [
      String(i),
      `Extra${x.header}`,
      x.times.map((y) => round(y.ms, 0)).join(', '),
      x.times.map((y) => y.status).join(' '),
    ]),
  };
}
