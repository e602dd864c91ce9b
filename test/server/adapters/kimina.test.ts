/**
 * Kimina Lean Server's routes with Kimina's request and response shapes
 * [project-numina/kimina-lean-server fb2393d: client/kimina_client/models.py, server/routers/
 * check.py, backward.py, health.py; tests/test_api.py posts `CheckRequest(snippets=[…]).model_dump()`].
 * The Lean side is the community REPL's own recorded answers (../shared/recorded/repl/v4.28.0,
 * by path): a runner double answers exactly the recorded commands and refuses any other, and
 * Kimina's `response` must be the REPL's answer as recorded (its `env` and `proofState` ids
 * aside, which name state inside one REPL process).
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import t from 'tap';
import { LeanFailure, type LeanRunner } from '../../../src/backend/index.ts';
import { toReplResponse, type ReplResponse } from '../../../src/server/adapters/kimina.ts';
import type { ToolResponse } from '../../../src/contract/tools.ts';
import { toLeanMessage } from '../../../src/backend/protocol/messages.ts';
import type { ReplMessage, ReplSorry } from '../../../src/backend/protocol/schema.ts';
import { makeApp, testConfig, testEnvironments, TEST_ENV, UNAVAILABLE_ENV } from '../../helpers.ts';
import { kiminaHeader } from '../../../src/server/adapters/kimina-header.ts';
import { sharedPath, sharedSkip } from '../../shared-data.ts';
import { scriptedRunner } from '../../tools/runner.ts';
import { recordedLean, recordedSkip } from '../../recorded/recorded-launch.ts';
import { fakeLaunch } from '../../backend/fake.ts';

const TAG = 'v4.28.0';
const skip = sharedSkip(`recorded/repl/${TAG}`);

interface Answer {
  messages?: ReplMessage[];
  sorries?: (ReplSorry & { proofState?: number })[];
  env?: number;
}

/** A transcript's commands and answers: JSON objects separated by blank lines (a JSON string holds no raw newline). */
function transcript(name: string): { cmd: string; answer: Answer }[] {
  const dir = path.join(sharedPath(`recorded/repl/${TAG}`)!, name);
  const objects = (f: string) =>
    readFileSync(f, 'utf8')
      .split(/\n\s*\n/)
      .filter((x) => x.trim())
      .map((x) => JSON.parse(x) as Record<string, unknown>);
  const ins = objects(`${dir}.in`);
  const outs = objects(`${dir}.expected.out`);
  return ins.flatMap((i, k) =>
    typeof i.cmd === 'string' && i.env === undefined ? [{ cmd: i.cmd, answer: outs[k] as Answer }] : [],
  );
}

/** The backend double: a recorded command (with no imports, as the REPL's tests run) gets its recorded answer. */
function recordedRunner(recorded: { cmd: string; answer: Answer }[]): LeanRunner & { sent: string[] } {
  const sent: string[] = [];
  const runner = scriptedRunner((c, job) => {
    const header = runner.jobs[job]!.header;
    if (header.trim() !== '') throw new Error(`no recording with a header: ${header}`);
    sent.push(c.text);
    const hit = recorded.find((r) => r.cmd === c.text);
    if (!hit) throw new Error(`not recorded: ${JSON.stringify(c.text)}`);
    return {
      messages: (hit.answer.messages ?? []).map((m) => toLeanMessage(m, c.origin)),
      sorries: (hit.answer.sorries ?? []).map((s) => ({ ...s, origin: c.origin })),
    };
  });
  return Object.assign(runner, { sent });
}

/** What Kimina passes on for a recorded answer: the REPL's fields without its process-local ids. */
const kiminaView = (a: Answer) => ({
  ...(a.messages?.length ? { messages: a.messages } : {}),
  ...(a.sorries?.length ? { sorries: a.sorries.map(({ proofState: _p, ...s }) => s) } : {}),
});

t.test('POST /api/check: each snippet’s response is the REPL’s recorded answer', { skip }, async (t) => {
  // Errors only; a sorry with its warning; a sorry with an error.
  const recorded = [
    ...transcript('no_goal_sorry'),
    ...transcript('app_type_mismatch').slice(1),
    ...transcript('no_goal_sorry_2'),
  ];
  t.equal(recorded.length, 3);
  const lean = recordedRunner(recorded);
  const app = await makeApp({ lean, config: testConfig({ server: { kimina: { environment: TEST_ENV } } }) });
  t.teardown(() => app.close());
  const snippets = recorded.map((r, i) => ({ id: `s${i}`, code: r.cmd }));
  const res = await app.inject({ method: 'POST', url: '/api/check', payload: { snippets, timeout: 20 } });
  t.equal(res.statusCode, 200, res.body);
  const body = res.json() as { results: { id: string; time: number; response: unknown }[] };
  t.same(
    body.results.map((r) => r.id),
    ['s0', 's1', 's2'],
    'one result per snippet, in order',
  );
  for (const [i, r] of body.results.entries()) {
    t.same(r.response, kiminaView(recorded[i]!.answer), `snippet ${i}: the REPL's messages and sorries`);
    t.type(r.time, 'number');
    t.same(Object.keys(r).sort(), ['id', 'response', 'time'], 'no None fields (response_model_exclude_none)');
  }
  t.same(
    lean.sent,
    recorded.map((r) => r.cmd),
    'each snippet elaborated as written, nothing else sent',
  );
  // The same pipeline and cache: again, and nothing reaches Lean.
  const again = await app.inject({ method: 'POST', url: '/api/check/', payload: { snippets } });
  t.equal(again.statusCode, 200);
  t.equal(lean.sent.length, 3, 'answered from the result cache');
});

t.test('POST /verify: codes with proof or code, custom_id as a string, time inside response', { skip }, async (t) => {
  const recorded = transcript('app_type_mismatch').slice(1);
  const app = await makeApp({ lean: recordedRunner(recorded) });
  t.teardown(() => app.close());
  const payload = {
    codes: [
      { custom_id: 7, proof: recorded[0]!.cmd },
      { custom_id: 'b', code: recorded[0]!.cmd },
    ],
  };
  for (const url of ['/verify', '/one_pass_verify_batch']) {
    const res = await app.inject({ method: 'POST', url, payload });
    t.equal(res.statusCode, 200, res.body);
    const results = (res.json() as { results: { custom_id: string; response: { time: number } }[] }).results;
    t.same(
      results.map((r) => r.custom_id),
      ['7', 'b'],
    );
    for (const r of results) {
      const { time, ...rest } = r.response;
      t.type(time, 'number');
      t.same(rest, kiminaView(recorded[0]!.answer));
    }
  }
  const bad = await app.inject({ method: 'POST', url: '/verify', payload: { codes: [{ custom_id: 1 }] } });
  t.equal(bad.statusCode, 400);
  t.match(bad.json(), {
    error: { code: 'invalid_request', details: [{ field: 'codes.0', message: /no proof\/code/ }] },
  });
});

t.test('a snippet past its timeout is Kimina’s per-snippet timeout error; the others answer', async (t) => {
  const lean: LeanRunner = {
    elaborate: (_env, _job, { signal }) =>
      new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(signal.reason))),
  };
  const app = await makeApp({ lean, config: testConfig({ admission: { anonymousConcurrency: 4 } }) });
  t.teardown(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/api/check',
    payload: { snippets: [{ id: 'slow', code: 'example : True := trivial' }], timeout: 1 },
  });
  t.equal(res.statusCode, 200);
  t.same(res.json(), { results: [{ id: 'slow', time: 1, error: 'Lean REPL command timed out in 1 seconds' }] });
});

t.test('a Lean failure is Kimina’s `error`, decided by the typed flag, never by a message text', async (t) => {
  const lean: LeanRunner = {
    elaborate: () => Promise.reject(new LeanFailure('crash', 'the REPL exited with code 137', '')),
  };
  const app = await makeApp({ lean, config: testConfig({ admission: { anonymousConcurrency: 4 } }) });
  t.teardown(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/api/check',
    payload: { snippets: [{ id: 'a', code: 'example : True := trivial' }], timeout: 10 },
  });
  t.equal(res.statusCode, 200);
  const [r] = (res.json() as { results: ReplResponse[] }).results;
  t.match(r, { id: 'a', error: /crash.*exited with code 137/ });
  t.notOk(r!.response, 'no response beside the error');

  // A result whose tool error merely reads like a failure, with no failure reported, is an answer.
  const lookalike = {
    okay: false,
    content: '',
    lean_messages: { errors: [], warnings: [], infos: [] },
    tool_messages: {
      errors: ['Lean failed while elaborating (crash): no, only a text', 'and a second'],
      warnings: [],
      infos: [],
    },
    failed_declarations: [],
    timings: {},
  } as unknown as ToolResponse<'check'>;
  t.same(toReplResponse('b', 0, lookalike, false), { id: 'b', time: 0, response: {} });
  t.same(toReplResponse('b', 0, lookalike, true), {
    id: 'b',
    time: 0,
    error: 'Lean failed while elaborating (crash): no, only a text\nand a second',
  });
});

t.test('Kimina’s `time` is the snippet’s own run in seconds; a timeout of 0 answers at once, unrun', async (t) => {
  let runs = 0;
  const lean: LeanRunner = {
    elaborate: async (_env, job) => {
      runs++;
      await new Promise((r) => setTimeout(r, 30));
      return {
        headerMessages: [],
        session: 1,
        reused: 0,
        sent: job.commands.length,
        commands: job.commands.map(() => ({ messages: [], sorries: [], cached: false, ms: 0 })),
      };
    },
  };
  const app = await makeApp({ lean, config: testConfig({ admission: { anonymousConcurrency: 4 } }) });
  t.teardown(() => app.close());
  const post = (timeout: number) =>
    app.inject({
      method: 'POST',
      url: '/api/check',
      payload: { snippets: [{ id: 's', code: 'example : True := trivial' }], timeout },
    });
  const [r] = ((await post(10)).json() as { results: ReplResponse[] }).results;
  t.ok(r!.time >= 0.02 && r!.time < 1000, `in seconds (never ms), at least the run's 30 ms: ${r!.time}`);
  t.same(r!.response, {});
  const before = runs;
  t.same((await post(0)).json(), {
    results: [{ id: 's', time: 0, error: 'Lean REPL command timed out in 0 seconds' }],
  });
  t.equal(runs, before, 'nothing ran');
});

t.test('request-level refusals keep their status; /health needs no key', async (t) => {
  const app = await makeApp({
    config: testConfig({ keys: [{ key: 'kimina-key-1' }], server: { kimina: { environment: UNAVAILABLE_ENV } } }),
  });
  t.teardown(() => app.close());
  const health = await app.inject({ method: 'GET', url: '/health' });
  t.equal(health.statusCode, 200);
  t.same(health.json(), { status: 'ok' });
  const wrongKey = await app.inject({
    method: 'POST',
    url: '/api/check',
    headers: { authorization: 'Bearer not-a-key-99' },
    payload: { snippets: [{ id: 'a', code: '#check Nat' }] },
  });
  t.equal(wrongKey.statusCode, 401);
  const unavailable = await app.inject({
    method: 'POST',
    url: '/api/check',
    headers: { authorization: 'Bearer kimina-key-1' },
    payload: { snippets: [{ id: 'a', code: '#check Nat' }] },
  });
  t.equal(unavailable.statusCode, 409, 'an environment that cannot run Lean is the request’s 409');
  const dup = await app.inject({
    method: 'POST',
    url: '/api/check',
    payload: {
      snippets: [
        { id: 'a', code: 'x' },
        { id: 'a', code: 'y' },
      ],
    },
  });
  t.equal(dup.statusCode, 400);
  t.match(dup.json(), { error: { message: /unique ids/ } });
  const wrongMethod = await app.inject({ method: 'GET', url: '/verify' });
  t.equal(wrongMethod.statusCode, 405);
});

t.test('through the product backend on the recorded REPL process', { skip: recordedSkip(TAG) }, async (t) => {
  const rec = recordedLean(t, TAG)!;
  const recorded = [...transcript('no_goal_sorry'), ...transcript('no_goal_sorry_2')];
  const app = await makeApp({ lean: rec.backend });
  t.teardown(() => app.close());
  const snippets = recorded.map((r, i) => ({ id: `r${i}`, code: r.cmd }));
  const res = await app.inject({ method: 'POST', url: '/api/check', payload: { snippets } });
  t.equal(res.statusCode, 200, res.body);
  const results = (res.json() as { results: { response: unknown; error?: string }[] }).results;
  for (const [i, r] of results.entries()) t.same(r.response, kiminaView(recorded[i]!.answer), `snippet ${i}`);
  t.same(rec.refusals(), [], 'every answer came from a recording');
});

t.test('kiminaHeader: `import Mathlib.*` is one `import Mathlib`, as Kimina’s split_snippet reads it', async (t) => {
  const code =
    'import Mathlib.Tactic\nimport Aesop\n  import Mathlib.Data.Real.Basic\nimport Aesop\n\ntheorem x : True := trivial\n';
  const out = kiminaHeader(code);
  t.equal(out, 'import Mathlib\nimport Aesop\n\n\n\ntheorem x : True := trivial\n', 'others kept once, in order');
  t.equal(out.split('\n').length, code.split('\n').length, 'the body stays on its lines: positions unchanged');
  t.equal(kiminaHeader('import Aesop\ntheorem x : True := trivial'), 'import Aesop\ntheorem x : True := trivial');
  t.equal(
    kiminaHeader('theorem x : True := trivial\nimport Mathlib.Tactic'),
    'theorem x : True := trivial\nimport Mathlib.Tactic',
  );
});

t.test('a snippet importing part of Mathlib runs on `import Mathlib`; no environment: the default one', async (t) => {
  const envs: string[] = [];
  const inner = scriptedRunner(() => ({}));
  const lean: LeanRunner = {
    elaborate: (env, job, ctx) => {
      envs.push(env.name);
      return inner.elaborate(env, job, ctx);
    },
  };
  // The unavailable environment is listed first: the first listed is not the default.
  const config = testConfig({ environments: [...testEnvironments].reverse() });
  const app = await makeApp({ lean, config });
  t.teardown(() => app.close());
  const proof = 'import Mathlib.Tactic\nimport Mathlib.Data.Nat.Basic\n\ntheorem t1 : 1 = 1 := rfl\n';
  const res = await app.inject({ method: 'POST', url: '/verify', payload: { codes: [{ custom_id: 1, proof }] } });
  t.equal(res.statusCode, 200, res.body);
  t.same(envs, [TEST_ENV], 'the default (newest available) environment, not the first listed');
  t.equal(inner.jobs[0]!.header.trim(), 'import Mathlib', 'the header Kimina would run');
});

t.test(
  "Lean's own timeout (the fake REPL hangs, AXLE's LeanTimeout on /api/v1) is Kimina's per-snippet timeout too",
  async (t) => {
    const app = await makeApp({ config: testConfig({ admission: { anonymousConcurrency: 4 } }) });
    t.teardown(() => app.close());
    const warm = { snippets: [{ id: 'w', code: 'def warm := 1' }], timeout: 20 };
    t.equal((await app.inject({ method: 'POST', url: '/api/check', payload: warm })).statusCode, 200);
    const res = await app.inject({
      method: 'POST',
      url: '/api/check',
      payload: { snippets: [{ id: 'slow', code: 'HANG' }], timeout: 1 },
    });
    t.equal(res.statusCode, 200);
    t.same(res.json(), { results: [{ id: 'slow', time: 1, error: 'Lean REPL command timed out in 1 seconds' }] });
  },
);

t.test('a REPL over its memory cap is that snippet’s `error`, not a failed request', async (t) => {
  const app = await makeApp({
    config: testConfig({ lean: { maxRssMb: 150, rssPollMs: 50 }, admission: { anonymousConcurrency: 4 } }),
  });
  t.teardown(() => app.close());
  const res = await app.inject({
    method: 'POST',
    url: '/api/check',
    payload: { snippets: [{ id: 'big', code: 'GROW 400' }], timeout: 60 },
  });
  t.equal(res.statusCode, 200, res.body);
  const [r] = (res.json() as { results: ReplResponse[] }).results;
  t.match(r, { id: 'big', error: /memory limit/ });
});

t.test(
  "a REPL's cold start is not the snippet's time (Kimina's rule); /api/v1's timeout counts it: by order of events",
  async (t) => {
    // The fake REPL's header import waits for a gate the test opens after /api/v1's deadline has fired.
    const gate = path.join(mkdtempSync(path.join(os.tmpdir(), 'kimina-gate-')), 'open');
    const app = await makeApp({
      launch: () => fakeLaunch({ FAKE_REPL_IMPORT_GATE: gate }),
      config: testConfig({ admission: { anonymousConcurrency: 4 } }),
    });
    t.teardown(() => app.close());
    const events: string[] = [];
    const code = 'import Mathlib\ntheorem t : True := trivial';
    const kimina = app
      .inject({ method: 'POST', url: '/api/check', payload: { snippets: [{ id: 'cold', code }], timeout: 1 } })
      .then((r) => (events.push('kimina answered'), r));
    const axle = await app.inject({
      method: 'POST',
      url: '/api/v1/check',
      payload: { content: 'theorem t : True := trivial', environment: TEST_ENV, timeout_seconds: 1 },
    });
    events.push('/api/v1 timed out');
    t.equal(axle.statusCode, 504, 'the same timeout on /api/v1 counts the cold start: the service deadline');
    t.match(axle.json(), { error: { code: 'timeout' } });
    writeFileSync(gate, '');
    events.push('header imported');
    const res = await kimina;
    t.same(events, ['/api/v1 timed out', 'header imported', 'kimina answered']);
    t.equal(res.statusCode, 200, res.body);
    const [r] = (res.json() as { results: ReplResponse[] }).results;
    t.equal(r!.error, undefined, 'the snippet ran: its timeout started when its session was ready');
    t.ok(r!.response, "the REPL's answer");
  },
);

t.test('a batch holding the same proof more than once sends it to Lean once; each gets its answer', async (t) => {
  const app = await makeApp({ config: testConfig({ admission: { anonymousConcurrency: 4 } }) });
  t.teardown(() => app.close());
  const proof = 'SLEEP 200';
  const codes = [
    { custom_id: 'a', proof },
    { custom_id: 'b', proof },
    { custom_id: 'c', proof: `-- sample 2\n${proof}` },
  ];
  const res = await app.inject({ method: 'POST', url: '/verify', payload: { codes, timeout: 30 } });
  t.equal(res.statusCode, 200, res.body);
  const results = (res.json() as { results: { custom_id: string; error?: string }[] }).results;
  t.same(
    results.map((r) => [r.custom_id, r.error]),
    [
      ['a', undefined],
      ['b', undefined],
      ['c', undefined],
    ],
  );
  const status = (await app.inject({ method: 'GET', url: '/v1/status' })).json() as {
    comment_memo: { entries: number; hits: number; waited: number };
  };
  // Sent to Lean once: the other two took its answer (by waiting for it, unless one came after it had finished).
  t.match(status.comment_memo, { entries: 1, hits: 2 }, 'two answered with the first’s answer');
  t.ok(status.comment_memo.waited <= 2);
});
