#!/usr/bin/env node
// A cost-model stand-in for the Lean REPL, for benchmarks only (beside the test double
// test/fixtures/fake-repl.mjs, with the same framing: one JSON request per blank-line-terminated
// block, pretty JSON and a blank line back). It knows no Lean. What it charges (bench/cost-model.mjs):
// - a command without `env` is an import: busy CPU and resident memory once per process;
// - every declaration in a command: busy CPU priced by its text without comments, so the same
//   proof costs the same whichever server sends it and however it is split or wrapped;
//   a declaration that never finishes spins until the heartbeat limit in force stops it (with the
//   shape of Lean's heartbeat error, as the test double gives it) or, with no limit, until killed;
// - every command: a fixed CPU cost and memory kept for good (the REPL keeps each state);
// - a module probe (`#eval` of `getModuleIdx?`): a median declaration's CPU, answered from the modules
//   the process's header loaded as the model knows them (cost-model.mjs `loadedModules`).
// CPU is spent busy-looping on this process's own CPU time, so /proc shows it as REPL CPU.
import {
  isDeclaration,
  limitMs,
  loadedModules,
  MODEL,
  price,
  probedModule,
  SCALE,
  scopeLimit,
  units,
  unwrap,
} from './cost-model.mjs';

const hoard = [];
/** env id → the maxHeartbeats limit in force after it. */
const envs = new Map();
let nextEnv = 0;
let buf = '';
/** The modules this process's header loaded (a module probe's answer). */
let loaded = new Set();

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};
/** Busy-loop until this process has used `ms` more CPU milliseconds (forever for Infinity). */
function burn(ms, from = cpuMs()) {
  let x = 0;
  while (cpuMs() - from < ms) for (let i = 0; i < 2000; i++) x += Math.sqrt(x + 1);
  return x;
}
const hold = (mb) => hoard.push(Buffer.alloc(Math.round(mb * 2 ** 20), 1));
const reply = (obj) => process.stdout.write(`${JSON.stringify(obj, null, 1)}\n\n`);

// The stop message of Lean's heartbeat limit, as the test double gives it (lean4 v4.28.0
// src/Lean/CoreM.lean `throwMaxHeartbeat`; test/fixtures/fake-repl.mjs).
const heartbeatStop = (limit) =>
  `(deterministic) timeout at \`whnf\`, maximum number of heartbeats (${limit}) has been reached\n` +
  'Use `set_option maxHeartbeats <num>` to set the limit.\n' +
  'Additional diagnostic information may be available using the `set_option diagnostics true` command.';

/** One declaration: its CPU, and the message when it is stopped or rejected. */
function runDeclaration(unit, limit) {
  const { limit: wrapped, text } = unwrap(unit.text);
  const line = unit.line + (wrapped === undefined ? 0 : 1);
  const inForce = wrapped ?? limit;
  const cost = price(text);
  const want = cost.ms * SCALE;
  const cap = limitMs(inForce, cost.ms);
  const end = { line: line, column: 1 };
  if (want > cap) {
    burn(cap);
    return { severity: 'error', pos: { line, column: 0 }, endPos: end, data: heartbeatStop(inForce) };
  }
  burn(want);
  if (cost.error)
    return { severity: 'error', pos: { line, column: 0 }, endPos: end, data: 'cost-model: declaration rejected' };
  return undefined;
}

function handle(req) {
  if (typeof req.cmd !== 'string') return reply({ message: 'Could not parse as a valid JSON command' });
  if (req.env !== undefined && !envs.has(req.env)) return reply({ message: 'Unknown environment.' });
  const start = cpuMs();
  let limit = req.env === undefined ? MODEL.defaultMaxHeartbeats : envs.get(req.env);
  if (req.env === undefined) {
    hold(MODEL.importMb * SCALE);
    burn(MODEL.importCpuMs * SCALE, start);
    loaded = loadedModules(req.cmd);
  }
  const messages = [];
  for (const unit of req.env === undefined ? [] : units(req.cmd)) {
    limit = scopeLimit(unit.text) ?? limit;
    const probed = probedModule(unwrap(unit.text).text);
    if (probed !== undefined) {
      // Lean's answer to the module probe: one info at the `#eval`, `true` or `false` (module-probe.ts).
      burn(MODEL.probeMs * SCALE);
      messages.push({ severity: 'info', pos: { line: unit.line, column: 0 }, data: String(loaded.has(probed)) });
      continue;
    }
    if (!isDeclaration(unwrap(unit.text).text)) continue;
    const m = runDeclaration(unit, limit);
    if (m) messages.push(m);
  }
  burn(MODEL.baseMsPerCommand * SCALE);
  // `gc: true` (Kimina sends it) drops the state (leanprover-community/repl REPL/JSON.lean at 0336da11, `Command.gc`).
  if (req.gc !== true) hold(MODEL.growMbPerCommand * SCALE);
  const env = nextEnv++;
  envs.set(env, limit);
  reply(messages.length ? { messages, env } : { env });
}

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  buf += chunk;
  let i;
  while ((i = buf.indexOf('\n\n')) >= 0) {
    const block = buf.slice(0, i).trim();
    buf = buf.slice(i + 2);
    if (block) handle(JSON.parse(block));
  }
});
process.stdin.on('end', () => process.exit(0));
