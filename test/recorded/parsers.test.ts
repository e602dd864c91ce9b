/**
 * Every recorded response and goal through the project's parsers (issue 27 §2), and each message
 * class a tool matches against the reader the tool uses: the recording is ground truth, so a reader
 * that misses a recorded text is a defect of the reader.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { parseResponse } from '../../src/backend/protocol/schema.ts';
import { toLeanMessage } from '../../src/backend/protocol/messages.ts';
import { stoppedAt } from '../../src/backend/heartbeats/max-heartbeats.ts';
import { checkedType, declVerdict, isSorryWarning, squash, STANDARD_AXIOMS } from '../../src/tools/decl-verdict.ts';
import { lemmaFromGoal, parseGoals } from '../../src/tools/goals.ts';
import { parseAxioms, unusedVariableName, userConstName } from '../../src/tools/lean-texts.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { sharedPath } from '../shared-data.ts';
import { formatMessage } from '../../src/tools/messages.ts';
import { RECORDED_SKIP, recordedIndex, type RecordedItem, type RecordedMessage } from './index.ts';

const items = (): RecordedItem[] => recordedIndex() ?? [];
const messagesOf = (cls: string) =>
  items().flatMap((i) => i.messages.filter((m) => m.cls === cls).map((m) => ({ item: i, m })));
const where = (i: RecordedItem) => `${i.file}:${i.line} (${i.version})`;

t.test('every recorded REPL response parses', { skip: RECORDED_SKIP }, async (t) => {
  const repl = items().filter((i) => i.source === 'repl');
  let failed = 0;
  const types = new Map<string, number>();
  for (const i of repl) {
    try {
      const r = parseResponse(i.response);
      types.set(r.type, (types.get(r.type) ?? 0) + 1);
    } catch (e) {
      failed++;
      t.fail(`${where(i)}: ${(e as Error).message.slice(0, 200)}`);
    }
  }
  t.comment(`${repl.length} responses: ${[...types].map(([k, v]) => `${k} ${v}`).join(', ')}`);
  t.equal(failed, 0, `all ${repl.length} recorded responses parse`);
  t.ok(types.get('command')! > 500 && types.get('proofStep')! > 50 && types.get('error')! > 10, 'every shape occurs');
});

t.test('every recorded goal parses into goals with a target', { skip: RECORDED_SKIP }, async (t) => {
  let n = 0;
  let withCase = 0;
  let inaccessible = 0;
  for (const i of items()) {
    for (const g of i.goals) {
      n++;
      const goals = parseGoals(g);
      const turnstiles = g.split('\n').filter((l) => l.startsWith('⊢')).length;
      if (goals.length !== turnstiles || goals.some((x) => x.target === '')) {
        t.fail(`${where(i)}: ${goals.length} goals for ${turnstiles} ⊢ in ${JSON.stringify(g.slice(0, 200))}`);
      }
      if (goals.some((x) => x.tag)) withCase++;
      if (goals.some((x) => x.hyps.some((h) => h.names.some((nm) => nm.includes('✝'))))) inaccessible++;
    }
  }
  t.comment(`${n} goals; ${withCase} with a case tag, ${inaccessible} with inaccessible names (x✝, inst✝)`);
  t.ok(n > 500, `${n} recorded goals`);
  t.ok(withCase > 0 && inaccessible > 0, 'case tags and inaccessible names are among them');
});

/** A recorded message as the backend hands it over. */
const asLean = (m: RecordedMessage) =>
  toLeanMessage(
    {
      severity: m.severity,
      pos: m.pos ?? { line: 1, column: 0 },
      endPos: m.endPos ?? null,
      data: m.text,
    },
    { line: 1, column: 0 },
  );

const toolchainOf = (i: RecordedItem) => (i.version.startsWith('v') ? `leanprover/lean4:${i.version}` : 'unknown');

t.test('the readers the tools use know every recorded wording', { skip: RECORDED_SKIP }, async (t) => {
  const sorry = messagesOf('uses_sorry');
  t.ok(sorry.length > 100, `${sorry.length} sorry warnings`);
  t.same(
    sorry.filter(({ m }) => !isSorryWarning(asLean(m))).map(({ item, m }) => `${where(item)}: ${m.text}`),
    [],
    'isSorryWarning: both quote styles',
  );
  const unused = messagesOf('unused_variable');
  t.ok(unused.length > 20, `${unused.length} unused-variable warnings`);
  t.same(
    unused
      .filter(({ item, m }) => unusedVariableName(m.text, toolchainOf(item)) === undefined)
      .map(({ item, m }) => `${where(item)}: ${m.text.split('\n')[0]}`),
    [],
    'unusedVariableName: the wording of each version',
  );
  const axioms = messagesOf('print_axioms');
  t.ok(axioms.length > 0, `${axioms.length} #print axioms answers`);
  t.same(
    axioms.filter(({ m }) => parseAxioms(m.text) === undefined).map(({ item }) => where(item)),
    [],
    'parseAxioms',
  );
  const stops = messagesOf('heartbeat_timeout');
  t.ok(stops.length > 0, `${stops.length} heartbeat stops`);
  t.same(
    stops.filter(({ m }) => stoppedAt(m.text) === undefined).map(({ item }) => where(item)),
    [],
    'stoppedAt reads the budget of a heartbeat stop',
  );
});

t.test('messages print as Lean prints them on the command line', { skip: RECORDED_SKIP }, async (t) => {
  // Lean's CLI prints Message.toString with end positions (tests/elab*: `file:l:c-l:c: severity: text`), as AXLE
  // does with the file `-`. Messages with an error name (`error(lean.unknownIdentifier):`) are left out: the REPL
  // does not report the name (src/tools/messages.ts).
  const cli = items().filter((i) => {
    const m = i.messages[0]!;
    return (
      i.source === 'cli' &&
      m.endPos &&
      m.severity !== 'info' &&
      m.severity !== 'trace' &&
      !/^\S+: \w+\(/.test(m.printed ?? '')
    );
  });
  const wrong: string[] = [];
  for (const i of cli) {
    const m = i.messages[0]!;
    const s = formatMessage(
      { severity: m.severity as 'error' | 'warning', pos: m.pos!, endPos: m.endPos, text: m.text },
      i.input,
    );
    if (s !== `${m.printed!}\n`)
      wrong.push(`${where(i)}: ${JSON.stringify(s.slice(0, 120))} ≠ ${JSON.stringify(m.printed!.slice(0, 120))}`);
  }
  t.ok(cli.length > 50, `${cli.length} recorded command-line messages with end positions`);
  t.same(wrong, [], 'formatMessage prints each exactly as Lean did');
});

t.test('every recorded goal becomes a lemma statement', { skip: RECORDED_SKIP }, async (t) => {
  let n = 0;
  const wrong: string[] = [];
  for (const i of items()) {
    for (const text of i.goals) {
      for (const g of parseGoals(text)) {
        n++;
        const l = lemmaFromGoal('recorded_goal', g, true);
        // Inaccessible names are renamed in the statement (x✝ → x_1), so none may remain; a let-bound
        // hypothesis keeps its value (`let x : T := v` in the type, introduced before the sorry).
        const lets = g.hyps.filter((h) => h.value !== undefined).length;
        const proof = lets ? /:= by\n {2}intro [^\n]+\n {2}sorry$/ : /:= by\n {2}sorry$/;
        if (
          !l.text.startsWith('theorem recorded_goal') ||
          l.text.includes('✝') ||
          !proof.test(l.text) ||
          (l.text.match(/\n {4}let /g)?.length ?? 0) < lets
        )
          wrong.push(`${where(i)}: ${JSON.stringify(l.text.slice(0, 160))}`);
      }
    }
  }
  t.ok(n > 500, `${n} recorded goals`);
  t.same(wrong, [], 'each is `theorem … : target := by sorry` with no inaccessible name left, let values kept');
});

t.test('`#check @name` outputs: the type the tools compare', { skip: RECORDED_SKIP }, async (t) => {
  // merge and verify_proof send `#check @<name>` and compare what checkedType reads after the name.
  const checks = items().flatMap((i) => {
    const m = /^#check\s+@([\w.'«»]+)\s*$/.exec(i.input.trim());
    const info = i.messages.find((x) => x.severity === 'info');
    return m && info ? [{ item: i, name: m[1]!, text: info.text }] : [];
  });
  t.comment(
    `${checks.length} recorded \`#check @name\` outputs (${checks.filter((c) => c.text.startsWith('@')).length} printed as \`@name : …\`)`,
  );
  const plain = checks.filter((c) => c.text.startsWith(`${c.name} : `));
  t.ok(plain.length > 0, 'some print `name : type` (no implicit arguments)');
  for (const c of plain)
    t.equal(
      checkedType([asLean({ severity: 'info', text: c.text, cls: 'check_output' })], c.name),
      squash(c.text.slice(c.name.length + 3)),
      where(c.item),
    );
  const at = checks.filter((c) => c.text.startsWith(`@${c.name} : `));
  t.ok(at.length > 0, 'constants with implicit arguments print `@name : type`');
  const misread = at.filter(
    (c) =>
      checkedType([asLean({ severity: 'info', text: c.text, cls: 'check_output' })], c.name) !==
      squash(c.text.slice(c.name.length + 4)),
  );
  t.equal(misread.length, 0, 'checkedType reads the type after `@name : `', {
    todo:
      misread.length > 0
        ? `issue 27 §3 defect 11 (the engineer "defects" fixes checkedType): ${misread.length} recorded outputs are read with their \`@name :\` prefix, e.g. ${where(misread[0]!.item)}`
        : false,
  });
});

t.test(
  'recorded `#print axioms` answers through the readers check, verify_proof, disprove and merge use',
  { skip: RECORDED_SKIP },
  async (t) => {
    // Each answer is matched to the declaration it is about in the recorded source file (lean4 tests/lean/run), as
    // elaborate.ts reads an answer under the declaration's full name, then judged by declVerdict, which the tools use.
    const answers = messagesOf('print_axioms').flatMap(({ item, m }) => {
      const target = /^#print\s+axioms\s+([\w.'«»]+)\s*$/.exec(item.input.trim())?.[1];
      return target ? [{ item, m, target }] : [];
    });
    t.ok(answers.length >= 3, `${answers.length} recorded answers to \`#print axioms <name>\``);
    const shared = sharedPath('.')!;
    for (const { item, m, target } of answers) {
      const file = parseSource(readFileSync(path.join(shared, item.file), 'utf8'));
      const d = file.decls.find((x) => x.fullName === target || x.fullName?.endsWith(`.${target}`));
      if (!d) {
        t.fail(`${where(item)}: no declaration ${target} in the recorded source`);
        continue;
      }
      const parsed = parseAxioms(m.text)!;
      t.equal(parsed.name, userConstName(d.fullName!), `${where(item)}: the answer is read as ${d.fullName}'s`);
      const v = declVerdict({ file, messages: [], axioms: new Map([[d.fullName!, parsed.axioms]]) }, d);
      t.same(
        [v.usesSorry, v.foreignAxioms],
        [parsed.axioms.includes('sorryAx'), parsed.axioms.filter((a) => !STANDARD_AXIOMS.has(a) && a !== 'sorryAx')],
        `${where(item)}: ${m.text}`,
      );
      t.ok(v.foreignAxioms.length > 0, `${where(item)}: the recorded axioms are not standard ones, and are flagged`);
    }
  },
);
