/**
 * What the jail costs: time from spawn to the first answered request for the same REPL
 * stand-in (the fake REPL on Node), jailed (bwrap + prlimit) versus unjailed (prlimit only),
 * interleaved in one run.
 */
import { pino } from 'pino';
import { NO_LIMITS, type ProcessLimits } from '../../src/backend/process/launch.ts';
import { ReplProcess } from '../../src/backend/process/repl-process.ts';
import { bwrapStatus } from '../../src/backend/process/sandbox.ts';
import { round, stats, type ScenarioResult } from '../lib.ts';
import { fakeReplLaunch } from '../fake-repl.ts';

const log = pino({ level: 'silent' });
const limits: ProcessLimits = {
  ...NO_LIMITS,
  addressSpaceMb: 65536,
  cpuSeconds: 3600,
  maxProcesses: 512,
  maxOpenFiles: 4096,
  maxFileSizeMb: 1024,
  tmpMb: 256,
};

async function startOnce(sandbox: 'bwrap' | 'none'): Promise<number> {
  const t0 = performance.now();
  const p = new ReplProcess({
    launch: fakeReplLaunch({}, { limits, sandbox }),
    log,
  });
  await p.send({ cmd: 'hello' });
  const ms = performance.now() - t0;
  p.kill();
  await p.exited;
  return ms;
}

export async function sandboxScenario(runs = 20): Promise<ScenarioResult> {
  const s = bwrapStatus(process.env);
  if (!s.usable)
    return {
      name: 'sandbox',
      summary: `skipped: ${s.reason}`,
      figures: { skipped: s.reason },
      table: [['skipped', s.reason, '']],
    };
  const jailed: number[] = [];
  const plain: number[] = [];
  await startOnce('none');
  await startOnce('bwrap');
  for (let i = 0; i < runs; i++) {
    plain.push(await startOnce('none'));
    jailed.push(await startOnce('bwrap'));
  }
  const j = stats(jailed);
  const n = stats(plain);
  return {
    name: 'sandbox',
    summary: `starting a jailed REPL stand-in costs ${round(j.p50 - n.p50, 1)} ms more at p50 (${round(j.p50, 1)} vs ${round(n.p50, 1)} ms); a Mathlib header takes seconds, so the jail is noise at session start`,
    figures: { runs, jailedMs: j, unjailedMs: n, addedMsP50: round(j.p50 - n.p50, 2) },
    table: [
      [
        'unjailed (prlimit), spawn → first answer',
        `p50 ${round(n.p50, 1)} ms, p95 ${round(n.p95, 1)} ms`,
        `${runs} runs, Node fake REPL`,
      ],
      [
        'jailed (bwrap + prlimit)',
        `p50 ${round(j.p50, 1)} ms, p95 ${round(j.p95, 1)} ms`,
        'interleaved with the unjailed runs',
      ],
      ['added by the jail', `${round(j.p50 - n.p50, 1)} ms at p50`, `${round((j.p50 / n.p50 - 1) * 100, 1)}%`],
    ],
  };
}
