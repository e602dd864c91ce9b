/** theorem2sorry's text rule over every theorem of a source, without the tool around it. */
import { applyEdits } from '../../src/syntax/edits.ts';
import { parseSource } from '../../src/syntax/source.ts';
import { proofToSorry } from '../../src/tools/theorem2sorry.ts';

export function t2s(src: string): string {
  const f = parseSource(src);
  return applyEdits(
    src,
    f.decls
      .filter((d) => d.kind === 'theorem')
      .map((d) => proofToSorry(src, d))
      .filter((e) => e !== undefined),
  );
}
