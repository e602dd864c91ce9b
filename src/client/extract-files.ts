/**
 * `lean-tool extract-decls FILE -d DIR [-f]`: one file per extracted document. File names
 * come from declaration names, made safe for every common file system; nothing is
 * overwritten without `-f` (then nothing at all is written, and the CLI exits with 2).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** Characters no file name may hold on Linux, macOS or Windows, plus controls and Lean's «» escapes. */
// eslint-disable-next-line no-control-regex -- control characters are exactly what a file name must not hold
const UNSAFE = /[/\\:*?"<>|\u0000-\u001f\u007f«»\s#@']/g;
const RESERVED = /^(con|prn|aux|nul|com\d|lpt\d)$/i;
const MAX_BYTES = 200;

/** A file name (without extension) for a document key: `Nat.«foo bar»` → `Nat.foo_bar`. */
export function safeFileName(key: string): string {
  let s = key.replace(UNSAFE, '_').replace(/^\.+/, '_');
  if (s === '' || RESERVED.test(s)) s = `_${s}`;
  if (Buffer.byteLength(s) <= MAX_BYTES) return s;
  // Cut on a code point boundary so the name stays valid UTF-8.
  let out = '';
  let bytes = 0;
  for (const ch of s) {
    bytes += Buffer.byteLength(ch);
    if (bytes > MAX_BYTES) break;
    out += ch;
  }
  return out;
}

export interface DocumentFile {
  key: string;
  file: string;
  text: string;
}

/** The files for a `documents` map: the standalone content (or, when selection left it empty, the declaration). */
export function documentFiles(
  documents: Record<string, { content: string; declaration: string }>,
  dir: string,
  json = false,
): DocumentFile[] {
  const out: DocumentFile[] = [];
  const used = new Set<string>();
  for (const [key, doc] of Object.entries(documents)) {
    const base = safeFileName(key);
    let name = base;
    // Different keys can map to one safe name (`a'` and `a_`): number the later ones. Case-insensitive file systems too.
    for (let n = 2; used.has(name.toLowerCase()); n++) name = `${base}-${n}`;
    used.add(name.toLowerCase());
    out.push({ key, file: path.join(dir, `${name}.lean`), text: doc.content || `${doc.declaration}\n` });
    if (json) out.push({ key, file: path.join(dir, `${name}.json`), text: `${JSON.stringify(doc, null, 2)}\n` });
  }
  return out;
}

/** Write them all, or, when some exist and `force` is false, none: returns the files that already exist. */
export function writeDocumentFiles(
  files: readonly DocumentFile[],
  dir: string,
  force: boolean,
): { written: number; existing: string[] } {
  const existing = force ? [] : files.filter((f) => existsSync(f.file)).map((f) => f.file);
  if (existing.length > 0) return { written: 0, existing };
  mkdirSync(dir, { recursive: true });
  for (const f of files) writeFileSync(f.file, f.text);
  return { written: files.length, existing: [] };
}
