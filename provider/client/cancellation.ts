/**
 * The plugin runs each gRPC call in a scope of its own: when the engine cancels the call, its requests
 * not yet sent are never sent. Once it has sent a write nothing is cancelled any more, so what follows
 * a write (reconciling an ambiguous PUT, finishing a create) runs to its end and its outcome is known.
 */
import { AsyncLocalStorage } from "node:async_hooks";

/** One caller's scope: its cancellation, and whether it has sent a write. */
interface Scope {
  signal: AbortSignal;
  wrote: boolean;
}

const scope = new AsyncLocalStorage<Scope>();

/** Runs `fn` with `signal` as the cancellation of the requests it makes (until it sends a write). */
export const withCancellation = <T>(signal: AbortSignal, fn: () => T): T =>
  scope.run({ signal, wrote: false }, fn);

/** Runs `fn` outside any caller's scope: for a load that several callers wait on. */
export const shared = <T>(fn: () => T): T => scope.exit(fn);

/** The current caller's cancellation, while it has sent no write. */
export function cancellation(): AbortSignal | undefined {
  const current = scope.getStore();
  return current && !current.wrote ? current.signal : undefined;
}

/** Notes that the current caller is sending a write: from now on none of its requests is cancelled. */
export function sendingWrite(): void {
  const current = scope.getStore();
  if (current) current.wrote = true;
}

/**
 * A request given up before it was sent, so nothing reached the server: its caller was cancelled, or
 * no connection slot became free within `waitedMs` (a timeout).
 */
export class NotSent extends Error {
  constructor(readonly waitedMs?: number) {
    super(
      waitedMs === undefined
        ? "cancelled by the caller before it was sent"
        : `no connection slot became free within ${waitedMs} ms`,
    );
  }
}
