/**
 * REPL transcripts → items: each request of a `.in` file with the response at the same index of
 * its `.expected.out` [repl v4.28.0: test/ and test.sh: the REPL is run on `X.in` and its output
 * compared with `X.expected.out`]. Requests are read as the REPL reads them: lines up to a blank
 * one, joined [repl v4.28.0: REPL/Main.lean, `getLines`].
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ResponseDecoder, splitRequests } from '../../src/backend/protocol/framing.ts';
import { classify, goalsOfUnsolved } from './classes.ts';
import type { RecordedItem, RecordedMessage, Severity } from './types.ts';

/** One request/response pair of a transcript. */
export interface Exchange {
  request: Record<string, unknown>;
  response: Record<string, unknown>;
  /** 1-based line of the request in the `.in` file. */
  line: number;
}

/** The REPL joins a request's lines (each trimmed at the end) before parsing it [repl: REPL/Main.lean, `getLines`]. */
const asRepl = (block: string) =>
  block
    .split('\n')
    .map((l) => l.trimEnd())
    .join('');

/** Every `.in` below `dir` that has a recorded `.expected.out`. */
export function transcriptFiles(dir: string): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length) {
    const p = stack.pop()!;
    if (statSync(p).isDirectory()) for (const n of readdirSync(p).sort().reverse()) stack.push(path.join(p, n));
    else if (p.endsWith('.in') && existsSync(p.replace(/\.in$/, '.expected.out'))) out.push(p);
  }
  return out;
}

/** The exchanges of one transcript; [] when its request and response counts differ (it cannot be paired). */
export function readExchanges(inFile: string): Exchange[] {
  const text = readFileSync(inFile, 'utf8');
  const blocks = splitRequests(text).filter((r) => !r.startsWith('#') && !r.startsWith('--'));
  const lines = blocks.map((b) => text.slice(0, text.indexOf(b)).split('\n').length);
  const responses = new ResponseDecoder().push(readFileSync(inFile.replace(/\.in$/, '.expected.out'), 'utf8') + '\n\n');
  if (responses.length !== blocks.length) return [];
  return blocks.map((b, i) => ({
    request: JSON.parse(asRepl(b)) as Record<string, unknown>,
    response: responses[i] as Record<string, unknown>,
    line: lines[i]!,
  }));
}

interface RawMessage {
  severity: Severity;
  pos: { line: number; column: number };
  endPos?: { line: number; column: number } | null;
  data: string;
}

export function exchangeItem(x: Exchange, file: string, version: string): RecordedItem {
  const input =
    typeof x.request.cmd === 'string' ? x.request.cmd : typeof x.request.tactic === 'string' ? x.request.tactic : '';
  const r = x.response;
  const raw = (Array.isArray(r.messages) ? r.messages : []) as RawMessage[];
  const messages: RecordedMessage[] = raw.map((m) => ({
    severity: m.severity,
    text: m.data,
    pos: m.pos,
    endPos: m.endPos ?? undefined,
    ...classify(m.severity, m.data, input),
  }));
  if (typeof r.message === 'string' && !('env' in r))
    messages.push({ severity: 'error', text: r.message, cls: 'repl_error' });
  const goals: string[] = [];
  for (const s of (Array.isArray(r.sorries) ? r.sorries : []) as { goal: string }[]) goals.push(s.goal);
  for (const g of (Array.isArray(r.goals) ? r.goals : []) as string[]) goals.push(g);
  for (const m of messages) goals.push(...goalsOfUnsolved(m.text));
  return { source: 'repl', version, file, line: x.line, input, messages, goals, request: x.request, response: r };
}
