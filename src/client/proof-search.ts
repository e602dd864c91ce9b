/**
 * Proof search through the daemon's `/v1/stream` channel (docs/proof-search.md): one
 * WebSocket per `ProofSearch`; its states live as long as the socket (or until deleted, or
 * their idle TTL). Configured like the other clients: SERVICE_API_URL, SERVICE_API_KEY.
 *
 *   await using search = await ProofSearch.connect({ environment: 'lean-4.28.0' });
 *   const { states } = await search.start('theorem t (p : Prop) (h : p) : p := by sorry');
 *   const { results } = await search.tactic(states[0].state, ['exact h', 'simp']);
 */
import WebSocket from 'ws';
import type {
  GoalDeleteResult,
  GoalStartResult,
  GoalStatResult,
  GoalTacticResult,
  SearchTool,
} from '../contract/search.ts';
import { serviceEndpoint } from './client.ts';

export interface ProofSearchOptions {
  /** The environment searches start in (a `start` may name another). */
  environment: string;
  /** http(s) or ws(s) URL of the daemon (default SERVICE_API_URL, else http://127.0.0.1:8080). */
  url?: string;
  apiKey?: string;
  env?: NodeJS.ProcessEnv;
}

/** An `error` event of the channel, or the socket closing under a pending message. */
export class ProofSearchError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly details?: { field: string; message: string }[],
  ) {
    super(message);
    this.name = 'ProofSearchError';
  }
}

interface Pending {
  resolve: (v: unknown) => void;
  reject: (e: Error) => void;
}

export class ProofSearch implements AsyncDisposable {
  #ws: WebSocket;
  #pending = new Map<string, Pending>();
  #next = 0;
  #closed: Promise<void>;

  private constructor(
    ws: WebSocket,
    readonly environment: string,
  ) {
    this.#ws = ws;
    ws.on('message', (data) => this.#onMessage(String(data)));
    this.#closed = new Promise((resolve) =>
      ws.once('close', (code, reason) => {
        const e = new ProofSearchError('closed', `the stream closed (${code} ${String(reason)})`);
        for (const p of this.#pending.values()) p.reject(e);
        this.#pending.clear();
        resolve();
      }),
    );
  }

  static async connect(opts: ProofSearchOptions): Promise<ProofSearch> {
    const { url, apiKey: key } = serviceEndpoint(opts);
    const base = url.replace(/^http/, 'ws');
    const ws = new WebSocket(`${base}/v1/stream`, key ? { headers: { authorization: `Bearer ${key}` } } : {});
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
      ws.once('unexpected-response', (_req, res) =>
        reject(new ProofSearchError('refused', `the daemon refused the stream (HTTP ${res.statusCode})`)),
      );
    });
    return new ProofSearch(ws, opts.environment);
  }

  /** Open states: every `sorry` of `content`, or the statement of `theorem`. */
  start(
    content: string,
    opts: { theorem?: string; environment?: string; ignoreImports?: boolean; timeoutSeconds?: number } = {},
  ): Promise<GoalStartResult> {
    return this.#send('goal.start', {
      environment: opts.environment ?? this.environment,
      content,
      ...(opts.theorem !== undefined ? { theorem: opts.theorem } : {}),
      ...(opts.ignoreImports !== undefined ? { ignore_imports: opts.ignoreImports } : {}),
      ...(opts.timeoutSeconds !== undefined ? { timeout_seconds: opts.timeoutSeconds } : {}),
    }) as Promise<GoalStartResult>;
  }

  /** Try each tactic on `state`, independently: one outcome per tactic, in order. */
  tactic(state: string, tactics: string | string[], opts: { timeoutSeconds?: number } = {}): Promise<GoalTacticResult> {
    return this.#send('goal.tactic', {
      state,
      tactics: typeof tactics === 'string' ? [tactics] : tactics,
      ...(opts.timeoutSeconds !== undefined ? { timeout_seconds: opts.timeoutSeconds } : {}),
    }) as Promise<GoalTacticResult>;
  }

  delete(states: string | string[]): Promise<GoalDeleteResult> {
    return this.#send('goal.delete', {
      states: typeof states === 'string' ? [states] : states,
    }) as Promise<GoalDeleteResult>;
  }

  stat(): Promise<GoalStatResult> {
    return this.#send('goal.stat', {}) as Promise<GoalStatResult>;
  }

  /** Close the socket: every state of this search dies. */
  async dispose(): Promise<void> {
    if (this.#ws.readyState === WebSocket.OPEN || this.#ws.readyState === WebSocket.CONNECTING) this.#ws.close(1000);
    await this.#closed;
  }

  [Symbol.asyncDispose](): Promise<void> {
    return this.dispose();
  }

  #send(tool: SearchTool, request: Record<string, unknown>): Promise<unknown> {
    const id = `ps${this.#next++}`;
    return new Promise((resolve, reject) => {
      if (this.#ws.readyState !== WebSocket.OPEN) return reject(new ProofSearchError('closed', 'the stream is closed'));
      this.#pending.set(id, { resolve, reject });
      this.#ws.send(JSON.stringify({ id, tool, request }));
    });
  }

  #onMessage(text: string): void {
    const e = JSON.parse(text) as {
      id: string | null;
      event: string;
      result?: unknown;
      error?: { code: string; message: string; details?: { field: string; message: string }[] };
    };
    const p = e.id === null ? undefined : this.#pending.get(e.id);
    if (!p) return;
    if (e.event === 'result') {
      this.#pending.delete(e.id!);
      p.resolve(e.result);
    } else if (e.event === 'error') {
      this.#pending.delete(e.id!);
      p.reject(new ProofSearchError(e.error!.code, e.error!.message, e.error!.details));
    }
  }
}
