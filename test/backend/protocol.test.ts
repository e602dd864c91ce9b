/** REPL exchanges replayed through the protocol layer: this project's fixtures always, the recorded transcripts when present. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import t, { type Test } from 'tap';
import { encodeRequest, FramingError, ResponseDecoder, splitRequests } from '../../src/backend/protocol/framing.ts';
import { IdTracker } from '../../src/backend/protocol/ids.ts';
import { shiftPos, toLeanMessage } from '../../src/backend/protocol/messages.ts';
import { formatMessage, toMessageSet } from '../../src/tools/messages.ts';
import { commandResponse, parseResponse, plainCommandResponse } from '../../src/backend/protocol/schema.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';

const FIXTURES = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/repl');
// The recorded transcripts are external data (test/shared-data.ts): replayed when present.
const DIR = sharedPath('repl-transcripts');
const TRANSCRIPTS_SKIP = sharedSkip('repl-transcripts');
const exchanges = (dir: string | undefined, ins: string, outs: string) =>
  (dir ? readdirSync(dir).map((f) => path.join(dir, f)) : []).filter(
    (f) => f.endsWith(ins) && existsSync(f.slice(0, -ins.length) + outs),
  );
const transcripts = DIR
  ? [...exchanges(DIR, '.in', '.expected.out'), ...exchanges(path.join(DIR, 'Mathlib/test'), '.in', '.expected.out')]
  : [];

/** The REPL reads lines until a blank one and joins them with trailing whitespace trimmed. */
const asRepl = (block: string) =>
  block
    .split('\n')
    .map((l) => l.trimEnd())
    .join('');

/** Feed a recorded (or fixture) output through the decoder and check ids and message formatting. */
function replay(t: Test, inFile: string, outFile: string): void {
  const requests = splitRequests(readFileSync(inFile, 'utf8'))
    .filter((r) => !r.startsWith('#') && !r.startsWith('--'))
    .map((r) => JSON.parse(asRepl(r)) as Record<string, unknown>);
  const out = readFileSync(outFile, 'utf8');
  // Feed the output in awkward chunks to exercise the framing.
  const decoder = new ResponseDecoder();
  const decoded: unknown[] = [];
  for (let i = 0; i < out.length; i += 7) for (const v of decoder.push(out.slice(i, i + 7))) decoded.push(v);
  t.equal(decoder.pending, 0, 'nothing left over');
  t.equal(decoded.length, requests.length, 'one response per request');
  const tracker = new IdTracker();
  decoded.forEach((json, i) => {
    const r = parseResponse(json);
    t.same(tracker.observe(requests[i]!, r), [], `response ${i} (${r.type}) has the ids the REPL assigns`);
    const messages = r.type === 'error' ? [] : r.value.messages;
    for (const m of messages) {
      const lm = toLeanMessage(m, { line: 1, column: 0 });
      const s = formatMessage(lm);
      if (lm.severity === 'info') t.equal(s, m.data.endsWith('\n') ? m.data : `${m.data}\n`, 'an info is its text');
      else
        t.ok(
          s.startsWith(
            `-:${m.pos.line === 0 ? 1 : m.pos.line}:${m.pos.column}${!m.endPos ? '' : m.endPos.line === 0 ? '-1:0' : `-${m.endPos.line}:${m.endPos.column}`}: ${m.severity}: `,
          ),
          s.split('\n')[0]!,
        );
      t.ok(s.endsWith(m.data.endsWith('\n') ? m.data : `${m.data}\n`), 'the text, then one newline');
    }
  });
}

t.test("fixture exchanges (this project's own, shaped as REPL/JSON.lean defines)", async (t) => {
  const fixtures = exchanges(FIXTURES, '.in', '.out');
  t.ok(fixtures.length >= 1, `${fixtures.length} fixture exchanges`);
  for (const f of fixtures) t.test(path.basename(f), async (t) => replay(t, f, f.replace(/\.in$/, '.out')));
  const [session] = fixtures.filter((f) => f.endsWith('session.in'));
  const decoded = new ResponseDecoder()
    .push(readFileSync(session!.replace(/\.in$/, '.out'), 'utf8'))
    .map((j) => parseResponse(j));
  t.same(
    decoded.map((r) => r.type),
    ['command', 'proofStep', 'command', 'command', 'error', 'command'],
  );
  t.same(decoded[3]!.type === 'command' && decoded[3]!.value.messages[0]!.endPos, null, 'endPos may be null');
  t.same(decoded[4]!.value, { message: 'Unknown environment.' });
});

t.test('there are transcripts', { skip: TRANSCRIPTS_SKIP }, async (t) => {
  t.ok(transcripts.length >= 60, `${transcripts.length} transcripts with recorded output`);
});

for (const file of transcripts) {
  t.test(path.relative(DIR!, file).replace(/\.in$/, ''), async (t) =>
    replay(t, file, file.replace(/\.in$/, '.expected.out')),
  );
}

/** Every command response in a recorded (or fixture) output. */
const commandResponsesIn = (outFile: string) =>
  new ResponseDecoder()
    .push(readFileSync(outFile, 'utf8'))
    .filter((j): j is object => !!j && typeof j === 'object' && 'env' in j);

t.test('the hand-read command response is exactly what zod parses', async (t) => {
  const outs = [...exchanges(FIXTURES, '.in', '.out'), ...transcripts].map((f) =>
    f.replace(/\.in$/, existsSync(f.replace(/\.in$/, '.expected.out')) ? '.expected.out' : '.out'),
  );
  let read = 0;
  for (const out of outs)
    for (const json of commandResponsesIn(out)) {
      const plain = plainCommandResponse(json);
      if (plain === undefined) continue;
      read++;
      t.strictSame(plain, commandResponse.parse(json), `${path.basename(out)}: same output as zod`);
    }
  t.ok(read > 0, `${read} responses read by hand${DIR ? '' : ' (fixtures only: the recorded transcripts are absent)'}`);
  // Edge shapes: kept as zod keeps them (null endPos, absent lists, unknown keys dropped).
  const edge = {
    env: 3,
    messages: [{ severity: 'warning', pos: { line: 1, column: 0 }, endPos: null, data: 'w', extra: 1 }],
    sorries: [{ goal: '⊢ True', proofState: null, pos: { line: 2, column: 4, x: 0 } }],
    unknown: true,
  };
  t.strictSame(plainCommandResponse(edge), commandResponse.parse(edge));
  t.strictSame(plainCommandResponse({ env: 0 }), commandResponse.parse({ env: 0 }));
  // Malformed or unusual: left to zod, which throws or parses.
  for (const bad of [
    { env: -1 },
    { env: 1.5 },
    { env: 0, messages: [{ severity: 'fatal', pos: { line: 1, column: 0 }, data: '' }] },
    { env: 0, messages: [{ severity: 'error', pos: { line: -1, column: 0 }, data: '' }] },
    { env: 0, messages: {} },
    { env: 0, sorries: [{ goal: 1 }] },
    { env: 0, sorries: [{ goal: '', proofState: 0.5 }] },
    { env: 0, tactics: [{ tactic: 'rfl' }] },
  ])
    t.equal(plainCommandResponse(bad), undefined, JSON.stringify(bad));
});

t.test('fastPaths.replAnswerByHand off (zod alone) gives the same bytes for every recorded response', async (t) => {
  const outs = [...exchanges(FIXTURES, '.in', '.out'), ...transcripts].map((f) =>
    f.replace(/\.in$/, existsSync(f.replace(/\.in$/, '.expected.out')) ? '.expected.out' : '.out'),
  );
  let byHand = 0;
  const differ: string[] = [];
  for (const out of outs)
    for (const json of new ResponseDecoder().push(readFileSync(out, 'utf8'))) {
      if (json && typeof json === 'object' && plainCommandResponse(json)) byHand++;
      // JSON.stringify: the members' order too, which t.same does not compare.
      if (JSON.stringify(parseResponse(json, true)) !== JSON.stringify(parseResponse(json, false)))
        differ.push(path.basename(out));
    }
  t.same(differ, [], 'no response differs');
  t.ok(byHand > 0, `${byHand} responses took the hand-read path`);
});

t.test('errors are their own shape', async (t) => {
  t.same(parseResponse({ message: 'Unknown environment.' }), {
    type: 'error',
    value: { message: 'Unknown environment.' },
  });
  t.throws(() => parseResponse({ nonsense: true }));
  t.throws(() => parseResponse({ env: -1 }));
});

t.test('framing: requests are one line plus a blank line; garbage is refused', async (t) => {
  t.equal(
    encodeRequest({ cmd: 'theorem x : True := by\n  trivial', env: 0 }),
    '{"cmd":"theorem x : True := by\\n  trivial","env":0}\n\n',
  );
  const d = new ResponseDecoder();
  t.same(d.push('{"env":'), []);
  t.same(d.push(' 0}\n\n{"env": 1}\n'), [{ env: 0 }]);
  t.same(d.push('\n'), [{ env: 1 }]);
  t.throws(() => new ResponseDecoder().push('Processing incremental state\n\n'), FramingError);
  t.throws(() => new ResponseDecoder().push('uncaught exception'), FramingError);
});

t.test('positions move from the command to the content', async (t) => {
  const origin = { line: 10, column: 2 };
  t.same(
    shiftPos({ line: 1, column: 5 }, origin),
    { line: 10, column: 7 },
    'first line: columns shift by the origin column',
  );
  t.same(shiftPos({ line: 3, column: 4 }, origin), { line: 12, column: 4 }, 'later lines: only the line shifts');
  t.same(shiftPos({ line: 0, column: 0 }, origin), { line: 10, column: 2 }, 'no position: the command start');
  const set = toMessageSet([
    toLeanMessage({ severity: 'warning', pos: { line: 2, column: 0 }, data: 'w' }, origin),
    toLeanMessage({ severity: 'error', pos: { line: 1, column: 0 }, data: 'unsolved goals\n⊢ False' }, origin),
    toLeanMessage({ severity: 'info', pos: { line: 1, column: 1 }, data: 'i' }, origin),
  ]);
  t.same(set, {
    errors: ['-:10:2: error: unsolved goals\n⊢ False\n'],
    warnings: ['-:11:0: warning: w\n'],
    infos: ['i\n'],
  });
});
