/**
 * Self time per function of a `.cpuprofile`, per request answered, with start-up (module
 * loading, building the app) left out: where a request's CPU goes (bench/profile-hit.ts).
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

/** Frames under which a sample belongs to start-up rather than to requests. */
const STARTUP = new Set(['evaluate', 'Module._load', 'compileSourceTextModule', 'buildApp', 'loadAndTranslate']);

/** The `top` functions by self time, as lines `µs/request  share  name file`. */
export function selfTimePerRequest(file: string, requests: number, top = 25): string[] {
  const p = JSON.parse(readFileSync(file, 'utf8')) as { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const startup = (id: number): boolean => {
    for (let cur: number | undefined = id; cur !== undefined; cur = parent.get(cur))
      if (STARTUP.has(byId.get(cur)!.callFrame.functionName)) return true;
    return false;
  };
  const self = new Map<string, number>();
  let busy = 0;
  p.samples.forEach((id, i) => {
    const f = byId.get(id)!.callFrame;
    if (f.functionName === '(idle)' || startup(id)) return;
    const key = `${f.functionName || '(anonymous)'} ${f.url.replace(/.*node_modules\//, '').replace(/^file:\/\/.*?\/(src|bench)\//, '$1/')}`;
    const dt = p.timeDeltas[i] ?? 0;
    self.set(key, (self.get(key) ?? 0) + dt);
    busy += dt;
  });
  const rows = [...self].sort((a, b) => b[1] - a[1]).slice(0, top);
  return [
    `busy ${(busy / requests).toFixed(1)} µs per request (wall-clock samples, start-up left out)`,
    ...rows.map(
      ([k, t]) => `${(t / requests).toFixed(2).padStart(7)} µs ${((100 * t) / busy).toFixed(1).padStart(5)}%  ${k}`,
    ),
  ];
}
