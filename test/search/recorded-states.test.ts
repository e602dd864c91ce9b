/**
 * The recorded REPL's proof states (test/recorded/repl-proof-states.ts), asked directly: tactics,
 * pickles and unpickles are answered from the transcripts of a tag with this process's own proof
 * state numbers (the REPL's counting rules), mapped to the recorded ones when the counts differ,
 * and anything unrecorded is refused. Recorded values are read from the transcripts, never typed.
 */
import t from 'tap';
import { IdTracker } from '../../src/backend/protocol/ids.ts';
import { parseResponse } from '../../src/backend/protocol/schema.ts';
import { probedHeader } from '../../src/backend/session/header-probe.ts';
import { RecordedAnswers } from '../recorded/repl-answers.ts';
import { recordedTagDir } from '../recorded/recorded-launch.ts';
import { recorded, recordingsSkip } from './helpers.ts';

const TAGS = ['v4.21.0', 'v4.28.0', 'v4.33.0-rc2'];
const skip = recordingsSkip(...TAGS);
type Json = Record<string, unknown>;

function answered(a: ReturnType<RecordedAnswers['answer']>): Json {
  if (a.kind !== 'answer') throw new Error(`refused: ${a.reason}`);
  return a.response;
}

/**
 * A recorded REPL of `tag` with an env for `header`: the service's probe of the empty header (Init), or a header
 * sent alone as the transcript recorded it (the service would send its probe after it: never recorded).
 */
function repl(tag: string, header = '') {
  const a = new RecordedAnswers(recordedTagDir(tag)!);
  const env = answered(a.answer({ cmd: header ? header : probedHeader('').cmd })).env as number;
  return { a, env };
}

const sorryIds = (r: Json) => (r.sorries as { proofState: number }[]).map((s) => s.proofState);

t.test('proof states are numbered by this process, and mapped onto the recorded ones', { skip }, async (t) => {
  for (const tag of TAGS) {
    const step = recorded(tag, 'proof_step');
    const other = recorded(tag, 'proof_branching')[0]!;
    const { a, env } = repl(tag);
    // Another command first: this process's count is one ahead of the recording's.
    t.same(sorryIds(answered(a.answer({ cmd: other.request.cmd, env }))), [0]);
    const root = answered(a.answer({ cmd: step[0]!.request.cmd, env }));
    t.same(sorryIds(root), [1], `${tag}: the sorry takes the next id (recorded: 0)`);
    const [, apply, have, exact] = step.map((x) => x.request.tactic as string);
    const b1 = answered(a.answer({ tactic: apply, proofState: 1 }));
    const b2 = answered(a.answer({ tactic: have, proofState: 1 }));
    t.same([b1.proofState, b2.proofState], [2, 3], 'each answer records one more state');
    t.same([b1.goals, b2.goals], [step[1]!.response.goals, step[2]!.response.goals], 'the recorded goals');
    const fin = answered(a.answer({ tactic: exact, proofState: 3 }));
    t.same(fin, { ...step[3]!.response, proofState: 4 }, `${tag}: the recorded answer, renumbered`);
    t.match(a.answer({ tactic: exact, proofState: 2 }), { kind: 'refusal' }, 'not recorded on the other branch');
  }
});

t.test('a step that records sorries numbers them before its own state (tactic_mode_sorry)', { skip }, async (t) => {
  for (const tag of TAGS) {
    const x = recorded(tag, 'tactic_mode_sorry');
    const { a, env } = repl(tag);
    answered(a.answer({ cmd: recorded(tag, 'proof_branching')[0]!.request.cmd, env }));
    const root = answered(a.answer({ cmd: x[0]!.request.cmd, env }));
    const ps = sorryIds(root)[0]!;
    const r = answered(a.answer({ tactic: x[1]!.request.tactic, proofState: ps }));
    t.same(sorryIds(r), [ps + 1], `${tag}: the sorry first`);
    t.equal(r.proofState, ps + 2, 'then the state');
    t.equal(r.proofStatus, x[1]!.response.proofStatus);
  }
});

t.test('an id never handed out gets the REPL recorded answer (unknown_proof_state)', { skip }, async (t) => {
  for (const tag of TAGS) {
    const x = recorded(tag, 'unknown_proof_state');
    const { a } = repl(tag);
    t.same(answered(a.answer({ tactic: 'exact 42', proofState: 7 })), x[1]!.response, `${tag}: as recorded`);
  }
});

t.test('pickle and unpickle a proof state (pickle_proof_state_1, _env)', { skip }, async (t) => {
  for (const tag of TAGS)
    for (const name of ['pickle_proof_state_1', 'pickle_proof_state_env']) {
      const x = recorded(tag, name);
      const { a, env } = repl(tag, String(x[0]!.request.cmd));
      const cmd = answered(a.answer({ cmd: x[1]!.request.cmd, env }));
      const ps = sorryIds(cmd)[0]!;
      const withEnv = (q: Json) => ('env' in q ? { env } : {}); // recorded on the header's env
      const p = answered(a.answer({ pickleTo: '/tmp/elsewhere.olean', proofState: ps }));
      t.same(p, { ...x[2]!.response, proofState: ps + 1 }, `${tag} ${name}: the recorded pickle answer`);
      t.match(
        a.answer({ unpickleProofStateFrom: '/tmp/never-written.olean' }),
        { kind: 'refusal' },
        'only a file this process pickled',
      );
      const u = answered(a.answer({ unpickleProofStateFrom: '/tmp/elsewhere.olean', ...withEnv(x[3]!.request) }));
      t.same(u, { ...x[3]!.response, proofState: ps + 2 }, 'the recorded unpickle answer');
      // The tactics the transcript sent to the unpickled copies answer on it, and on the original.
      const h = answered(a.answer({ tactic: x[4]!.request.tactic, proofState: ps + 2 }));
      t.same(h.goals, x[4]!.response.goals);
      const h0 = answered(a.answer({ tactic: x[4]!.request.tactic, proofState: ps }));
      t.same(h0.goals, x[4]!.response.goals, 'a copy is the same proof snapshot');
      const fin = answered(a.answer({ tactic: x[7]!.request.tactic, proofState: h0.proofState }));
      t.equal(fin.proofStatus, x[7]!.response.proofStatus);
    }
});

t.test("the ids handed out follow the REPL's rules as the backend predicts them (IdTracker)", { skip }, async (t) => {
  for (const tag of TAGS) {
    const x = recorded(tag, 'pickle_proof_state_env');
    const step = recorded(tag, 'proof_step');
    const sorry = recorded(tag, 'tactic_mode_sorry');
    const a = new RecordedAnswers(recordedTagDir(tag)!);
    const ids = new IdTracker();
    const problems: string[] = [];
    const ask = (q: Json): Json => {
      const r = answered(a.answer(q));
      problems.push(...ids.observe(q, parseResponse(r)));
      return r;
    };
    const init = ask({ cmd: probedHeader('').cmd }).env as number;
    const root = sorryIds(ask({ cmd: step[0]!.request.cmd, env: init }))[0]!;
    ask({ tactic: sorry[1]!.request.tactic, proofState: root });
    const have = ask({ tactic: step[2]!.request.tactic, proofState: root }).proofState as number;
    ask({ tactic: 'exact 42', proofState: 999 });
    ask({ tactic: step[3]!.request.tactic, proofState: have });
    const lean = ask({ cmd: String(x[0]!.request.cmd) }).env as number; // the header as recorded, alone
    const ps = sorryIds(ask({ cmd: x[1]!.request.cmd, env: lean }))[0]!;
    ask({ pickleTo: 'p.olean', proofState: ps });
    const u = ask({ unpickleProofStateFrom: 'p.olean', env: lean }).proofState as number;
    ask({ tactic: x[4]!.request.tactic, proofState: u });
    t.same(problems, [], `${tag}: every env and proof state id as the REPL would hand it out`);
  }
});
