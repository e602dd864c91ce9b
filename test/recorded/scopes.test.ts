/**
 * The `open` commands the scope model replays (issue 27, defect 13), against what Lean itself says is in scope:
 * Batteries' `#where` prints the open declarations of the current scope, and its tests record that output
 * (`../shared/recorded/batteries/<tag>/where.lean`, `#guard_msgs`). Lean keeps each `open` in its own form
 * (`open Lean.Elab hiding TermElabM`, `open Array renaming map → listMap`), in order, with each namespace
 * resolved (`open Command` after `open Lean Elab` is `Lean.Elab.Command`; at v4.32.0 also `Lean.Meta.Command`):
 * so the probes must replay the commands as written, in their order, not one `open` of every namespace.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import t from 'tap';
import { openCommandTexts, parseSource } from '../../src/syntax/source.ts';
import { sharedPath, sharedSkip } from '../shared-data.ts';

const TAGS = ['v4.24.0', 'v4.28.0', 'v4.32.0'];

/** An `open` line split into its namespaces and its form (`hiding …`, `renaming …`, `(…)`, or nothing). */
function shape(line: string): { names: string[]; form: string } {
  const body = line
    .replace(/^open\s+/, '')
    .replace(/->/g, '→')
    .trim();
  const m = /^(scoped\s+)?([^(]*?)(\s+(?:hiding|renaming)\b.*|\s*\(.*)?$/.exec(body)!;
  const names = m[2]!.split(/\s+/).filter(Boolean);
  return { names, form: `${m[1] ? 'scoped ' : ''}${(m[3] ?? '').trim()}` };
}

/** A written namespace stands for a printed one when the printed one ends with it (`_root_.A` is `A`). */
const standsFor = (written: string, printed: string) => {
  const w = written.replace(/^_root_\./, '');
  return printed === w || printed.endsWith(`.${w}`);
};

for (const tag of TAGS) {
  const skip = sharedSkip('recorded');
  const file = skip ? undefined : path.join(sharedPath('recorded')!, 'batteries', tag, 'where.lean');
  t.test(
    `the open commands in scope match what #where printed (batteries ${tag})`,
    { skip: skip || (existsSync(file!) ? false : `no ${file}`) },
    async (t) => {
      const src = parseSource(readFileSync(file!, 'utf8'));
      let compared = 0;
      src.commands.forEach((cmd, i) => {
        const text = src.text.slice(cmd.start, cmd.end);
        if (!/#guard_msgs in #where/.test(text)) return;
        const printed = (/\/--\s*info:([\s\S]*?)-\//.exec(text)?.[1] ?? '')
          .split('\n')
          .map((l) => l.trim())
          .filter((l) => l.startsWith('open '));
        const ours = openCommandTexts(src.scopes[i]);
        const at = `${tag} where.lean:${src.lines.toLean(cmd.start).line}`;
        t.equal(ours.length, printed.length, `${at}: one open per recorded line (${printed.join(' | ') || 'none'})`);
        printed.forEach((p, k) => {
          const want = shape(p);
          const got = shape(ours[k] ?? '');
          t.equal(got.form, want.form, `${at}: ${JSON.stringify(ours[k])} keeps the form of ${JSON.stringify(p)}`);
          t.ok(
            got.names.every((w) => want.names.some((n) => standsFor(w, n))) &&
              want.names.every((n) => got.names.some((w) => standsFor(w, n))),
            `${at}: ${JSON.stringify(ours[k])} names the namespaces of ${JSON.stringify(p)}`,
          );
        });
        compared += printed.length;
      });
      t.ok(compared >= 4, `${compared} recorded open lines compared`);
    },
  );
}
