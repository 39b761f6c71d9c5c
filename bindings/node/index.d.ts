export declare const EXPECTED_VERSION: readonly [number, number, number];
export declare const MODES: readonly Mode[];
export declare const CLASSES: readonly SandboxClass[];

export type Mode = 'sandbox' | 'no-network' | 'confine-fs' | 'read-only';
export type SandboxClass = 'project' | 'research' | 'build' | 'offline' | 'media' | 'tool-server';

/** The launcher's policy flags (sandbox-exec-launcher --help). */
export interface Policy {
  mode?: Mode;
  project?: string;
  workdir?: string;
  addDirs?: string[];
  addReads?: string[];
  class?: SandboxClass;
  output?: string;
  scratch?: string;
  writableCaches?: boolean;
  protectSecrets?: boolean;
  protect?: string[];
  netEperm?: boolean;
  noUserNamespaces?: boolean;
}

/** One refusal, as in docs/api.md "The outcome, schema 1". */
export interface SandboxRecord {
  kind: 'socket' | 'io_uring' | 'protected_name' | 'closed_endpoint' | 'hedged' | string;
  certain: boolean;
  syscall: string | null;
  abi: string | null;
  family: number | null;
  family_name: string | null;
  type: number | null;
  type_name: string | null;
  path: string | null;
  pid: number | null;
  comm: string | null;
  action: string | null;
  count: number;
  text: string | null;
}

export interface Outcome {
  /** false: the launcher refused before the command started (126, 127); stderr says why. */
  ran: boolean;
  /** The launcher's exit status (128+N for signal N). */
  status: number;
  exitCode: number | null;
  signal: number | null;
  signalName: string | null;
  stdout: Buffer;
  stderr: Buffer;
  records: SandboxRecord[];
  certain: SandboxRecord[];
  hedged: SandboxRecord[];
  sandbox: string | null;
  timedOut: boolean;
  /** The resource limit that ended the run ("memory", "pids", "cpu", "file-size",
   *  "timeout"), or null; limitCertain: the kernel's counters say so. */
  limit: 'memory' | 'pids' | 'cpu' | 'file-size' | 'timeout' | null;
  limitCertain: boolean;
  /** The host's backstop (timeout + 15 s) ended the run. */
  cancelled: boolean;
  summary: string | null;
  warning: string | null;
  leftoverProcesses: number;
  /** The sandbox's own supervisor failed after the command started and ended
   *  the run (its exit 126 is the sandbox's, not the command's), or, when it
   *  says "after the command had exited", while ending what the command left
   *  (the status is the command's): why; else null. */
  sandboxFailure: string | null;
  /** 'run': that failure made the status the sandbox's (126); 'after_exit':
   *  the status is the command's own; null: no failure. */
  sandboxFailed: 'run' | 'after_exit' | null;
  raw: Record<string, unknown> | null;
}

export interface RunOptions {
  policy?: Policy;
  /** Seconds; the launcher ends the whole tree (status 124, timedOut). */
  timeout?: number;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  stdin?: string | Buffer;
  /** Aborting ends the run; the promise rejects with an AbortError once the tree is gone. */
  signal?: AbortSignal;
  launcher?: string;
}

export declare class PolicyError extends Error {}
export declare class LauncherError extends Error {}

export declare function policyFlags(policy?: Policy): string[];
export declare function findLauncher(explicit?: string): string;
export declare function run(argv: string[], options?: RunOptions): Promise<Outcome>;
export declare function selfTest(options?: { launcher?: string }): any;
export declare function explain(policy?: Policy, options?: { launcher?: string; argv?: string[] }): any;
