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
import { noop } from '../util/arrays.ts';

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
  /** Made when the first job waits: a run nobody waits for (the common case) makes no promise. */
  #end: { promise: Promise<void>; resolve: () => void } | undefined;
  /**
   * The jobs waiting for this run (one entry per wait, even for one signal), whose sessions become ready with its,
   * each with the end of its "Lean runs it" mark once the run is ready (made with #end).
   */
  #waiting: Set<Waiting> | undefined;

  /** The run's session is ready (its header imported): so are those of the jobs waiting for it, and Lean runs their text. */
  ready(): void {
    this.#ready = true;
    if (this.#waiting) for (const w of this.#waiting) running(w);
  }

  /** The run settled (answered or failed): the jobs waiting for it go on. */
  end(): void {
    this.#ended = true;
    this.#end?.resolve();
  }

  /** Resolves when the run ends; rejects with the signal's reason when `signal` aborts first. */
  async wait(signal: AbortSignal): Promise<void> {
    signal.throwIfAborted();
    if (this.#ended) return;
    if (!this.#end) {
      let resolve: () => void = noop;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#end = { promise, resolve };
      this.#waiting = new Set();
    }
    const waiting = this.#waiting!;
    const w: Waiting = { signal, leanDone: undefined };
    waiting.add(w);
    // Lean runs this job's text from the moment the run's session is ready; before that, it waits as for a session.
    if (this.#ready) running(w);
    try {
      await abortable(this.#end.promise, signal);
    } finally {
      w.leanDone?.();
      waiting.delete(w);
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

/** `promise`, or its rejection with `signal`'s reason when the signal aborts first; the listener removed either way. */
function abortable(promise: Promise<void>, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    // Not removed on abort: an aborted signal fires no more.
    signal.addEventListener('abort', onAbort);
    promise.then(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, noop);
  });
}
