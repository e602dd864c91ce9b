/**
 * One connection's proof search: its states (in the daemon's registry, owned by this session)
 * and one process host per (environment, header) it searches in. Everything a message does on
 * a host runs in that host's queue, so the REPL sees one request at a time and a rebuild is
 * never interleaved with a step.
 */
import { ReplError } from '../backend/process/repl-process.ts';
import type {
  GoalDeleteResult,
  GoalStartResult,
  GoalStatResult,
  GoalTacticResult,
  SearchRequest,
  StateLoss,
  TacticOutcome,
} from '../contract/search.ts';
import { serviceError } from '../errors.ts';
import { ProcessHost } from './host.ts';
import { runRoot, runStep, TacticDeadline } from './lean-steps.ts';
import { stateBytes, type StateOwner } from './registry.ts';
import { Lost, materialize, rebuildAll, type ReplayDeps } from './replay.ts';
import type { SearchCaller, SearchService } from './service.ts';
import { pickSorries } from './start.ts';
import { newChild, newRoot, rootGroup, stepKey, type SearchState } from './state.ts';
import { outcomeOf, startView, toCachedStep } from './views.ts';

interface Recovered {
  rebuilt: string[];
  lost: StateLoss[];
}

export class SearchSession implements StateOwner {
  #hosts = new Map<string, ProcessHost>();

  constructor(
    readonly svc: SearchService,
    readonly caller: SearchCaller,
  ) {}

  #hostFor(environment: string, header: string): ProcessHost {
    const key = `${environment}\0${header}`;
    let h = this.#hosts.get(key);
    if (!h) {
      h = this.svc.newHost(environment, header);
      this.#hosts.set(key, h);
    }
    return h;
  }

  /** Lean's deadlines: `ms` for each tactic, `rootMs` for a root command (default: a replay's, the configured tactic deadline). */
  #deps(ms: number, rootMs = this.svc.config.tacticTimeoutSeconds * 1000): ReplayDeps {
    const perSecond = this.svc.heartbeatsPerSecond;
    return {
      root: (lease, group, signal) => runRoot(lease, group, rootMs, perSecond, signal),
      step: (lease, tactic, ps, signal) => runStep(lease, tactic, ps, ms, signal),
    };
  }

  #timeoutMs(seconds: number | undefined): number {
    const c = this.svc.config;
    return Math.min(seconds ?? c.tacticTimeoutSeconds, c.maxTimeoutSeconds) * 1000;
  }

  /** One message on `host`, in its turn, holding one of the caller's admission slots while it runs. */
  #message<T>(host: ProcessHost, signal: AbortSignal, f: () => Promise<T>): Promise<T> {
    return host.exclusive(async () => {
      const release = await this.caller.admit(signal);
      try {
        return await f();
      } finally {
        release();
      }
    });
  }

  /** A dead process found at the start of a message: rebuild its live states first. */
  async #recover(host: ProcessHost, deps: ReplayDeps, signal: AbortSignal, into: Recovered): Promise<void> {
    // With live states, the process first: whether the last one is gone shows when it is not given back.
    if (host.live.size > 0) await host.ensure(signal);
    if (!host.needsRebuild()) return;
    const report = await rebuildAll(host, deps, signal);
    for (const s of report.rebuilt) into.rebuilt.push(s.id);
    for (const l of report.lost) into.lost.push({ state: l.state.id, reason: l.reason });
    if (report.lost.length > 0)
      this.svc.registry.delete(
        this,
        report.lost.map((l) => l.state.id),
      );
  }

  async start(req: SearchRequest<'goal.start'>, signal: AbortSignal): Promise<GoalStartResult> {
    const env = this.svc.environment(req.environment);
    this.#refuseOver(1, 2 * req.content.length);
    const ms = this.#timeoutMs(req.timeout_seconds);
    const plan = await this.svc.plans.plan(req.content, env, req.ignore_imports, req.theorem, signal, ms);
    const host = this.#hostFor(env.name, plan.header);
    const deps = this.#deps(ms, ms);
    return this.#message(host, signal, async () => {
      const rec: Recovered = { rebuilt: [], lost: [] };
      await this.#recover(host, deps, signal, rec);
      const lease = await host.ensure(signal);
      const group = rootGroup(env.name, plan.header, plan.text, []);
      const answer = await deps.root(lease, group, signal);
      if (!answer.cached) host.made(answer.sorries.filter((s) => typeof s.proofState === 'number').length);
      group.placed = {
        gen: host.gen,
        proofStates: answer.sorries.map((s) => s.proofState ?? undefined),
        goals: answer.sorries.map((s) => s.goal),
      };
      const picked = pickSorries(plan, answer.sorries);
      group.sorryIndexes = picked;
      if (picked.length === 0) throw noGoal(req.theorem, answer.messages);
      const roots = picked.map((i) =>
        newRoot(this.svc.ids, group, i, [answer.sorries[i]!.goal], {
          gen: host.gen,
          proofState: answer.sorries[i]!.proofState!,
        }),
      );
      this.#refuseOver(
        roots.length,
        roots.reduce((n, s) => n + stateBytes(s), 0),
      );
      for (const s of roots) this.#adopt(host, s);
      return { ...startView(roots, answer, plan.origin), ...rec };
    });
  }

  async tactic(req: SearchRequest<'goal.tactic'>, signal: AbortSignal): Promise<GoalTacticResult> {
    refuseLongTactics(req.tactics, this.svc.config.maxTacticChars);
    const parent = this.#state(req.state);
    const host = this.#hostFor(parent.group.environment, parent.group.header);
    const deps = this.#deps(this.#timeoutMs(req.timeout_seconds));
    return this.#message(host, signal, async () => {
      const rec: Recovered = { rebuilt: [], lost: [] };
      await this.#recover(host, deps, signal, rec);
      const results: TacticOutcome[] = [];
      for (const tactic of req.tactics) {
        if (results.length > 0) host.yieldIfWanted();
        results.push(await this.#try(host, parent, tactic, deps, signal, rec));
      }
      return { results, ...rec };
    });
  }

  async #try(
    host: ProcessHost,
    parent: SearchState,
    tactic: string,
    deps: ReplayDeps,
    signal: AbortSignal,
    rec: Recovered,
  ): Promise<TacticOutcome> {
    const refused = this.#refusal(parent, tactic);
    if (refused) return refused;
    const key = stepKey(parent.pathKey, tactic);
    const hit = this.svc.cache.get(key);
    if (hit) return this.#answer(host, parent, tactic, outcomeOf(hit), undefined, true);
    try {
      const ps = await materialize(host, parent, deps, signal);
      const r = await deps.step(host.lease!, tactic, ps, signal);
      if (r.type === 'proofStep') host.made(1 + r.value.sorries.length);
      const step = toCachedStep(r);
      this.svc.cache.set(key, step);
      const placement = r.type === 'proofStep' ? { gen: host.gen, proofState: r.value.proofState } : undefined;
      return this.#answer(host, parent, tactic, outcomeOf(step), placement, false);
    } catch (e) {
      if (e instanceof Lost) {
        // The state (or the ancestor whose replay failed) cannot be placed: it is gone.
        const gone = [...new Set([e.state, parent])].filter((s) => s.live);
        this.svc.registry.delete(
          this,
          gone.map((s) => s.id),
        );
        for (const s of gone) rec.lost.push({ state: s.id, reason: e.message });
        return { tactic, ok: false, kind: 'lost', error: e.message, cached: false };
      }
      if (signal.aborted || !(e instanceof TacticDeadline || e instanceof ReplError)) throw e;
      host.drop(e instanceof TacticDeadline ? 'tactic deadline' : `process fault (${e.message})`);
      await this.#recover(host, deps, signal, rec);
      return {
        tactic,
        ok: false,
        kind: e instanceof TacticDeadline ? 'timeout' : 'crash',
        error: e.message,
        cached: false,
      };
    }
  }

  /** Why `tactic` is not tried on `parent`: it is gone, too deep, or a cap is reached. */
  #refusal(parent: SearchState, tactic: string): TacticOutcome | undefined {
    const no = (kind: 'lost' | 'limit', error: string): TacticOutcome => ({
      tactic,
      ok: false,
      kind,
      error,
      cached: false,
    });
    if (!parent.live) return no('lost', 'the state is gone');
    if (parent.depth >= this.svc.config.maxDepth)
      return no('limit', `the state is ${parent.depth} tactics deep (search.maxDepth)`);
    // The child's goals are not known yet: its tactic and its parent's goals stand for its size.
    const over = this.svc.registry.refusal(this, 1, stateBytes(parent) + 2 * tactic.length);
    return over ? no('limit', `${over.scope} holds ${over.count} (${over.setting})`) : undefined;
  }

  #answer(
    host: ProcessHost,
    parent: SearchState,
    tactic: string,
    o: ReturnType<typeof outcomeOf>,
    placement: SearchState['placement'],
    cached: boolean,
  ): TacticOutcome {
    if (!o.ok) return { tactic, ...o, cached };
    const child = newChild(this.svc.ids, parent, tactic, o.goals, placement);
    this.#adopt(host, child);
    return { tactic, ok: true, state: child.id, ...o.view, cached };
  }

  #adopt(host: ProcessHost, s: SearchState): void {
    this.svc.registry.add(this, s);
    host.live.add(s);
  }

  delete(req: SearchRequest<'goal.delete'>): GoalDeleteResult {
    const unknown = this.svc.registry.delete(this, req.states);
    return { deleted: req.states.length - unknown.length, unknown };
  }

  stat(): GoalStatResult {
    const processes: GoalStatResult['processes'] = [];
    for (const h of this.#hosts.values()) {
      const l = h.process;
      if (!l?.alive) continue;
      const placed = [...h.live].filter((s) => s.placement?.gen === h.gen).length;
      processes.push({
        pid: l.pid,
        environment: h.opts.environment,
        liveStates: h.live.size,
        deadStates: Math.max(0, h.replStates - placed),
        rssMb: Math.round(l.usage().rssBytes / 2 ** 20),
      });
    }
    return { ...this.svc.stats(this), processes };
  }

  /** The registry reports deaths: each host learns which of its states are gone. */
  onDeath(states: readonly SearchState[]): void {
    for (const s of states) this.#hosts.get(`${s.group.environment}\0${s.group.header}`)?.forget([s]);
  }

  /** The connection closed: every state dies, every process goes back. */
  close(): void {
    this.svc.registry.closeOwner(this);
  }

  #state(id: string): SearchState {
    const s = this.svc.registry.get(this, id);
    if (!s)
      throw serviceError(
        'invalid_request',
        'unknown_state',
        { state: JSON.stringify(id.slice(0, 100)) },
        { details: [{ field: 'request.state', message: 'no live state with this id on this connection' }] },
      );
    return s;
  }

  #refuseOver(n: number, bytes: number): void {
    const over = this.svc.registry.refusal(this, n, bytes);
    if (over) throw serviceError('invalid_request', 'state_limit', { ...over });
  }
}

/** A tactic past the cap is refused before anything runs (the daemon keeps every tactic of a live path). */
function refuseLongTactics(tactics: readonly string[], max: number): void {
  const i = tactics.findIndex((x) => x.length > max);
  if (i < 0) return;
  throw serviceError(
    'invalid_request',
    'tactic_too_long',
    { index: i, chars: tactics[i]!.length, max },
    { details: [{ field: `request.tactics.${i}`, message: `longer than ${max} characters (search.maxTacticChars)` }] },
  );
}

function noGoal(theorem: string | undefined, messages: readonly { severity: string; data: string }[]) {
  const errors = messages.filter((m) => m.severity === 'error').map((m) => m.data);
  const why =
    theorem === undefined
      ? 'Lean reported no sorry with a proof state in the content'
      : `Lean reported no proof state at the sorry put in place of ${theorem}'s proof`;
  return serviceError('invalid_request', 'no_goal', {
    reason: errors.length > 0 ? `${why}; its errors: ${errors.join('; ').slice(0, 500)}` : why,
  });
}
