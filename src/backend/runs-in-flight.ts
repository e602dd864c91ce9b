/**
 * Jobs Lean is running now, by their comment memo key (comment-memo.ts): a job asked while an equal one runs waits
 * for that run instead of sending the same text to Lean again, then asks the memo, which answers it with the run's
 * result on its own positions under the memo's own rules. When the memo has no answer (the run failed, met its
 * deadline, or gave an answer the memo does not keep), the waiting job runs itself. A prover's batch of sampled
 * proofs often holds the same proof more than once, sent together: the result cache and the memo answer only a
 * repeat that comes after its first has finished.
 *
 * A waiting job's deadline counts as if its own session were ready when the run's is (a deadline that counts from
 * the session, Kimina's routes: src/sync/signal-marks.ts sessionReady), and from then on Lean runs its text: a
 * deadline that fires meanwhile is Lean's timeout (markLeanRunning), as it would be on its own session. So a job
 * never waits longer for an answer than it would have on a session of its own, and when it runs itself after a
 * failed run, the time Lean spent on its text already counts.
 */
import { markLeanRunning, sessionReady } from '../sync/signal-marks.ts';
import { WaiterQueue } from '../sync/waiter-queue.ts';

/** A job waiting for a run: its signal, and the end of its "Lean runs it" mark once the run is ready. */
interface Waiting {
  signal: AbortSignal;
  leanDone: (() => void) | undefined;
}

/** A waiting job's session is ready, and Lean runs its text: a deadline now is Lean's timeout. */
function running(w: Waiting): void {
  sessionReady(w.signal);
  w.leanDone = markLeanRunning(w.signal);
}

/** One job Lean runs, as those waiting for it see it. */
export class RunInFlight {
  #ready = false;
  #ended = false;
  /**
   * The jobs waiting for this run (one entry per wait, even for one signal; a job whose signal aborts leaves it),
   * made when the first waits: a run nobody waits for (the common case) makes none.
   */
  #waiting: WaiterQueue<void, Waiting> | undefined;

  /** The run's session is ready (its header imported): so are those of the jobs waiting for it, and Lean runs their text. */
  ready(): void {
    this.#ready = true;
    if (this.#waiting) for (const w of this.#waiting.waiting()) running(w);
  }

  /** The run settled (answered or failed): the jobs waiting for it go on. */
  end(): void {
    this.#ended = true;
    while (this.#waiting?.grant()) continue;
  }

  /** Resolves when the run ends; rejects with the signal's reason when `signal` aborts first. */
  async wait(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.#ended) return;
    const w: Waiting = { signal, leanDone: undefined };
    // Lean runs this job's text from the moment the run's session is ready; before that, it waits as for a session.
    if (this.#ready) running(w);
    try {
      await (this.#waiting ??= new WaiterQueue<void, Waiting>()).wait(w, signal);
    } finally {
      w.leanDone?.();
    }
  }
}

/** The runs in flight by key. */
export class RunsInFlight {
  readonly #runs = new Map<string, RunInFlight>();
  /** Jobs that waited for an equal run instead of sending their text. */
  waited = 0;

  /** The run of an equal job, if one is in flight. */
  find(key: string): RunInFlight | undefined {
    return this.#runs.get(key);
  }

  /** A run for `key` starts: equal jobs asked until it ends wait for it. */
  start(key: string): RunInFlight {
    const run = new RunInFlight();
    this.#runs.set(key, run);
    return run;
  }

  /** The run ended: the key is free, and those waiting go on. */
  end(key: string, run: RunInFlight): void {
    if (this.#runs.get(key) === run) this.#runs.delete(key);
    run.end();
  }

  get size(): number {
    return this.#runs.size;
  }
}
