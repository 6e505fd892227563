/** The options of the offline runner. */
import type { ProgramSource } from "./program";

/** Options of `LifecycleRunner`. */
export interface RunnerOptions {
  /** The program: a module path or a function declaring resources. */
  program: ProgramSource;
  /** The program's directory: the host runs there and resolves the provider's requires from it. */
  programDir: string;
  /** The JSON state file (created when missing). */
  statePath: string;
  /** Stack config, full keys (`secops:apiKey`, `secops:baseUrl`). */
  config?: Record<string, string>;
  /** Config keys sent to the host as secrets. Default: `secops:apiKey`. */
  secretKeys?: string[];
  project?: string;
  stack?: string;
  /** Resources worked on at once in up, refresh and destroy (they are independent). Default 10, like `pulumi up --parallel`. */
  parallel?: number;
  /**
   * Where each step says it started, that it is still running (every 2 s) and when it ended. Default:
   * standard error when it is a terminal, else nowhere; `false` for nowhere.
   */
  progress?: ((line: string) => void) | false;
}
