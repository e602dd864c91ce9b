/** Types of bench/cost-model.mjs (plain JavaScript so that the cost-model REPL runs on bare node). */
export declare const SCALE: number;
export declare const MODEL: Readonly<{
  importCpuMs: number;
  importMb: number;
  growMbPerCommand: number;
  baseMsPerCommand: number;
  medianMs: number;
  sigma: number;
  timeoutRate: number;
  slowHeartbeatShare: number;
  errorRate: number;
  heartbeatsPerSecond: number;
  defaultMaxHeartbeats: number;
}>;
export declare function normalize(text: string): string;
export declare function unwrap(text: string): { limit: number | undefined; text: string };
export declare function units(text: string): { line: number; text: string }[];
export declare function isDeclaration(text: string): boolean;
export declare function scopeLimit(text: string): number | undefined;
export declare function price(declText: string): { ms: number; error: boolean };
export declare function limitMs(limit: number, ms: number): number;
export declare function loadedModules(header: string): Set<string>;
export declare function probedModule(text: string): string | undefined;
