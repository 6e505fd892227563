/**
 * Debug logging, off unless `SECOPS_LOG=debug`. Lines carry method, path, outcome, attempt and
 * duration: never headers, bodies or query values that could hold a secret.
 */
import { redact } from "./errors";

/** Writes one debug line to stderr when SECOPS_LOG=debug. */
export function log(method: string, path: string, outcome: string, attempt: number, ms: number): void {
  if (process.env.SECOPS_LOG !== "debug") return;
  process.stderr.write(redact(`[secops] ${method} ${path} -> ${outcome} attempt=${attempt} ${ms}ms\n`));
}
