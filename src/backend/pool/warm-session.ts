/**
 * A warm Lean session as the pool sees it: one REPL process that imported exactly one
 * header (the key of its pool), with the counters the retirement policy reads.
 */
import type { LeanSession } from '../session/session.ts';
import type { Poolable, Usage } from './pool.ts';

export class WarmSession implements Poolable {
  /** REPL command states held (the header's included): the REPL keeps every one for the process's life [repl v4.28.0: REPL/Main.lean, `cmdStates`]. */
  states = 1;

  constructor(
    readonly session: LeanSession,
    readonly header: string,
  ) {}

  get id(): number {
    return this.session.id;
  }

  get healthy(): boolean {
    return this.session.healthy;
  }

  get uses(): number {
    return this.session.uses;
  }

  get pid(): number {
    return this.session.pid;
  }

  /** The process tree's usage as read (its process count too): no copy per request. */
  usage(rssBound?: number): Usage {
    return this.session.usage(rssBound);
  }

  /** The REPL has no quit command that frees anything sooner than exit: an idle session is simply ended. */
  async close(reason: string): Promise<void> {
    this.session.kill(reason);
    await this.session.exited;
  }

  async destroy(reason: string): Promise<void> {
    this.session.kill(reason);
    await this.session.exited;
  }
}
