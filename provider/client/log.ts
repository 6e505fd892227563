/**
 * Debug logging, off unless `SECOPS_LOG=debug` (read when a client is made): method, path, outcome,
 * attempt and duration, never headers, bodies or query values that could hold a secret.
 */
import { redact } from "./errors";

/** Writes one debug line. */
export type Log = (method: string, path: string, outcome: string, attempt: number, ms: number) => void;

/** The debug logger when SECOPS_LOG=debug, else undefined (so the hot path skips it entirely). */
export function logger(): Log | undefined {
  if (process.env.SECOPS_LOG !== "debug") return undefined;
  return (method, path, outcome, attempt, ms) =>
    process.stderr.write(redact(`[secops] ${method} ${path} -> ${outcome} attempt=${attempt} ${ms}ms\n`));
}
