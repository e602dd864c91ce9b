/**
 * Proof search shares Lean processes with ordinary requests: a search holds a process only
 * while one of its messages runs, and its messages take the caller's admission slot like HTTP
 * requests. So states held by one caller never keep another caller's request waiting beyond
 * its fair share, and anonymous searches are bounded like anonymous requests. Driven by the
 * stand-in REPL (test/fixtures/standin-repl.mjs: commands open a state per `sorry`, tactics
 * answer a new state), which also answers ordinary commands. Order of events, not time: each
 * check carries a deadline, and a starved check fails with `timeout` instead of passing.
 */
import t from 'tap';
import { TEST_ENV } from '../helpers.ts';
import { rawStream, searchDaemonWith } from './helpers.ts';

const START = { environment: TEST_ENV, content: 'theorem t : P := by sorry' };

async function check(base: string, key: string, n: number): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${base}/api/v1/check`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${key}` },
    body: JSON.stringify({ environment: TEST_ENV, content: `theorem c${n} : True := trivial`, timeout_seconds: 20 }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, unknown> };
}

t.test("one anonymous search holding a state does not starve key B's check (one process)", async (t) => {
  const { app, url } = await searchDaemonWith('standin-repl.mjs', {}, { lean: { maxSessions: 1 } });
  t.teardown(() => app.close());
  const http = url.replace('ws:', 'http:');
  const anon = await rawStream(url);
  t.teardown(() => anon.close());
  const started = await anon.call('goal.start', START);
  const state = started.result?.states?.[0]?.state as string;
  t.ok(state, 'the anonymous search holds a state');
  const c = await check(http, 'key-b', 1);
  t.equal(c.status, 200, `key B's check answered while the state is held (${JSON.stringify(c.body).slice(0, 200)})`);
  const step = await anon.call('goal.tactic', { state, tactics: ['step'] });
  t.equal(step.result?.results?.[0]?.ok, true, 'and the search goes on from its state');
});

t.test("two anonymous searches do not make key B's goal.start fail, nor its check wait", async (t) => {
  const { app, url } = await searchDaemonWith('standin-repl.mjs', {}, {});
  t.teardown(() => app.close());
  const http = url.replace('ws:', 'http:');
  for (let i = 0; i < 2; i++) {
    const anon = await rawStream(url);
    t.teardown(() => anon.close());
    t.ok((await anon.call('goal.start', START)).result?.states?.length, `anonymous search ${i} holds a state`);
  }
  const b = await rawStream(url, { authorization: 'Bearer key-b' });
  t.teardown(() => b.close());
  const mine = await b.call('goal.start', START);
  t.equal(mine.event, 'result', `key B's start is served (${JSON.stringify(mine.error ?? {})})`);
  t.equal((await check(http, 'key-b', 2)).status, 200, "and key B's check too");
});

t.test('anonymous search messages take the anonymous admission slot, as HTTP requests do', async (t) => {
  // Each tactic of the stand-in lasts STANDIN_WAIT_MS (a timer, not its CPU): A's 64 tactics hold its slot while B arrives.
  const { app, url } = await searchDaemonWith(
    'standin-repl.mjs',
    { STANDIN_WAIT_MS: '50' },
    { admission: { anonymousConcurrency: 1, anonymousQueueLimit: 0 } },
  );
  t.teardown(() => app.close());
  const a = await rawStream(url);
  const b = await rawStream(url);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const state = (await a.call('goal.start', START)).result.states[0].state as string;
  const running = a.call('goal.tactic', { state, tactics: Array.from({ length: 64 }, (_, i) => `t${i}`) });
  const active = async () =>
    (await app.inject({ method: 'GET', url: '/v1/status' })).json().admission.callers.anonymous?.active ?? 0;
  for (let i = 0; i < 300 && (await active()) === 0; i++) await new Promise((r) => setTimeout(r, 10));
  const refused = await b.call('goal.start', START);
  t.equal(
    refused.error?.code,
    'queue_full',
    'another anonymous search waits for the anonymous slot (queue 0: refused)',
  );
  t.match(refused.error?.message, /anonymous callers/);
  t.equal((await running).result.results.length, 64, 'the running message finished');
  t.equal((await b.call('goal.start', START)).event, 'result', 'and the slot is free again');
});

t.test("a message of many tactics gives its process back between them to key B's waiting check", async (t) => {
  // One process; each tactic of the stand-in lasts STANDIN_WAIT_MS (a timer): A's 64 tactics run long after B arrives.
  const { app, url } = await searchDaemonWith(
    'standin-repl.mjs',
    { STANDIN_WAIT_MS: '50' },
    { lean: { maxSessions: 1 } },
  );
  t.teardown(() => app.close());
  const http = url.replace('ws:', 'http:');
  const a = await rawStream(url);
  t.teardown(() => a.close());
  const state = (await a.call('goal.start', START)).result.states[0].state as string;
  const order: string[] = [];
  const running = a.call('goal.tactic', { state, tactics: Array.from({ length: 64 }, (_, i) => `t${i}`) }).then((r) => {
    order.push('A');
    return r;
  });
  const b = await check(http, 'key-b', 3).then((r) => {
    order.push('B');
    return r;
  });
  const done = await running;
  t.equal(b.status, 200);
  t.same(order, ['B', 'A'], "B's check was served during A's message, not after it");
  t.equal(
    done.result.results.filter((r: { ok: boolean }) => r.ok).length,
    64,
    'and every tactic of A answered (its state replayed where needed)',
  );
});
