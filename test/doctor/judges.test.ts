/**
 * The doctor's judges (src/doctor/judges.ts) on Lean's own recorded output (../shared/recorded, through
 * the recorded index of test/recorded/): every recorded text of a class the tools read must be accepted
 * by its judge, and texts of other classes refused. Skips with the reason when ../shared is absent.
 */
import t from 'tap';
import {
  judgeAxiomsAnswer,
  judgeBudgetStop,
  judgeNoGoals,
  judgeNoStop,
  judgeNoWrapLint,
  judgeUnknownName,
  judgeUnknownOption,
  judgeUnsolvedGoals,
  type DoctorMessage,
} from '../../src/doctor/judges.ts';
import { judgeCommentVariant, judgeReplSource, type PositionedMessage } from '../../src/doctor/judges.ts';
import { commentFree } from '../../src/syntax/comment-free.ts';
import { readExchanges, transcriptFiles } from '../recorded/repl-source.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';
import { recordedIndex, RECORDED_SKIP, type RecordedItem } from '../recorded/index.ts';

const items = recordedIndex();
const ofClass = (cls: string): { it: RecordedItem; m: DoctorMessage }[] =>
  (items ?? []).flatMap((it) =>
    it.messages.filter((m) => m.cls === cls).map((m) => ({ it, m: { severity: m.severity, data: m.text } })),
  );

t.test('judges accept every recorded text of their class and refuse others', (t) => {
  if (!items) {
    t.comment(`skipped: ${RECORDED_SKIP}`);
    t.end();
    return;
  }
  const cases: [string, (ms: DoctorMessage[]) => { ok: boolean }][] = [
    ['unknown_identifier', judgeUnknownName],
    ['no_goals', judgeNoGoals],
    ['unsolved_goals', (ms) => judgeUnsolvedGoals(ms)],
    ['unknown_option', judgeUnknownOption],
  ];
  for (const [cls, judge] of cases) {
    const recorded = ofClass(cls).filter(({ m }) => m.severity === 'error');
    t.comment(`${cls}: ${recorded.length} recorded errors`);
    for (const { it, m } of recorded) t.ok(judge([m]).ok, `${cls} ${it.file}:${it.line} ${m.data.slice(0, 60)}`);
  }
  // Refusals: a type mismatch is none of these.
  for (const { m } of ofClass('type_mismatch').slice(0, 5)) {
    t.notOk(judgeUnknownName([m]).ok);
    t.notOk(judgeNoGoals([m]).ok);
    t.notOk(judgeUnsolvedGoals([m]).ok);
  }
  for (const { it, m } of ofClass('heartbeat_timeout')) {
    const budget = Number(/heartbeats \((\d+)\)/.exec(m.data)![1]);
    t.ok(judgeBudgetStop([m], budget).ok, `${it.file}:${it.line}`);
    t.notOk(judgeBudgetStop([m], budget + 1).ok, 'another budget is not this stop');
    t.notOk(judgeNoStop([m]).ok);
  }
  for (const { it, m } of ofClass('kernel_timeout')) t.ok(judgeBudgetStop([m], 1).ok, `${it.file}:${it.line}`);
  for (const { it, m } of ofClass('print_axioms')) {
    const name = /^'([^']+)'/.exec(m.data)![1]!;
    t.ok(judgeAxiomsAnswer([m], name, []).ok, `${it.file}:${it.line}`);
    t.notOk(judgeAxiomsAnswer([m], `${name}_other`, []).ok, 'an answer about another name');
  }
  t.end();
});

t.test('judges without recordings: texts quoted from the source', async (t) => {
  // Mathlib's maxHeartbeats linter text [mathlib4 Mathlib/Tactic/Linter/Style.lean, `getDeprecatedSyntax`].
  const lint = {
    severity: 'warning',
    data: 'Please, add a comment explaining the need for modifying the maxHeartbeat limit, as in\nset_option maxHeartbeats 100000 in\n-- reason for change\n...\n',
  };
  t.notOk(judgeNoWrapLint([lint]).ok);
  t.ok(judgeNoWrapLint([{ severity: 'info', data: "'doctor_hb' does not depend on any axioms" }]).ok);
});

t.test(
  "the REPL source check: another tag's source passes only when built by, and running, the toolchain",
  async (t) => {
    const good = {
      toolchain: 'v4.32.2',
      source: 'v4.32.0',
      cloneToolchain: 'leanprover/lean4:v4.32.2',
      trivial: '2',
      version: '4.32.2',
    };
    t.match(judgeReplSource(good), {
      ok: true,
      detail: /REPL v4\.32\.0 source built for v4\.32\.2: runs Lean 4\.32\.2/,
    });
    t.match(judgeReplSource({ ...good, cloneToolchain: 'leanprover/lean4:v4.32.0' }), {
      ok: false,
      detail: /lean-toolchain is leanprover\/lean4:v4\.32\.0/,
    });
    t.match(judgeReplSource({ ...good, version: '4.32.0' }), { ok: false, detail: /reports Lean 4\.32\.0/ });
    t.match(judgeReplSource({ ...good, trivial: undefined }), { ok: false, detail: /answered \(nothing\)/ });
    t.match(judgeReplSource({ ...good, source: undefined, cloneToolchain: undefined }), {
      ok: true,
      detail: /^REPL v4\.32\.2: /,
    });
  },
);

t.test(
  'the comment-variant judge: Lean’s recorded messages, moved by the form, pass; anything else does not',
  { skip: sharedSkip('recorded/repl') },
  async (t) => {
    const found = transcriptFiles(sharedPath('recorded/repl')!)
      .flatMap((f) => readExchanges(f))
      .find(({ request, response }) => {
        const cmd = request.cmd;
        const ms = response.messages as PositionedMessage[] | undefined;
        return (
          typeof cmd === 'string' &&
          cmd.includes('\n') &&
          !!commentFree(cmd) &&
          (ms?.length ?? 0) > 0 &&
          ms!.every((m) => m.pos.line >= 2)
        );
      });
    if (!found) return t.fail('no recorded multi-line answer with messages past its first line');
    const plain = found.request.cmd as string;
    const plainMs = found.response.messages as PositionedMessage[];
    const cut = plain.indexOf('\n') + 1;
    const noisy = `${plain.slice(0, cut)}  -- a step\n\n${plain.slice(cut)}`;
    const down = (m: PositionedMessage, by = 2): PositionedMessage => ({
      ...m,
      pos: { line: m.pos.line + by, column: m.pos.column },
      endPos: m.endPos && { line: m.endPos.line + by, column: m.endPos.column },
    });
    t.ok(
      judgeCommentVariant(
        plainMs,
        plainMs.map((m) => down(m)),
        plain,
        noisy,
      ).ok,
      'moved by the two lines added',
    );
    t.notOk(judgeCommentVariant(plainMs, plainMs, plain, noisy).ok, 'not moved');
    t.notOk(
      judgeCommentVariant(
        plainMs,
        plainMs.map((m) => down(m, 1)),
        plain,
        noisy,
      ).ok,
      'moved by one line',
    );
    t.notOk(
      judgeCommentVariant(
        plainMs,
        plainMs.map((m) => ({ ...down(m), data: `${m.data}!` })),
        plain,
        noisy,
      ).ok,
      'another text',
    );
    t.notOk(judgeCommentVariant(plainMs, plainMs.map((m) => down(m)).slice(1), plain, noisy).ok, 'a message missing');
    t.notOk(judgeCommentVariant([], [], plain, noisy).ok, 'no message at all is no evidence');
    t.notOk(judgeCommentVariant(plainMs, plainMs, plain, `${plain} x`).ok, 'texts without one form');
  },
);
