/**
 * Content keys for prefix reuse: a root (the header a session elaborated first) and a
 * chain over the commands sent after it, so key_i names "this root, then exactly these
 * i commands" and two requests sharing a preamble share its keys.
 */
import { hash } from 'node:crypto';

const sha = (s: string) => hash('sha256', s);

/** A header in canonical form: its lines trimmed, blank lines and line comments dropped. */
export function canonicalHeader(header: string): string {
  return header.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('--')).join('\n');
}

export const rootKey = (header: string) => sha(`root\u0000${canonicalHeader(header)}`);

export function chainKeys(root: string, texts: readonly string[]): string[] {
  const out: string[] = [];
  let prev = root;
  for (const t of texts) {
    prev = sha(`${prev}\u0000${t}`);
    out.push(prev);
  }
  return out;
}
