/**
 * Requests made on someone's behalf end with that someone: the plugin runs each gRPC call in the
 * scope of its call's signal, and when the engine cancels the call (its deadline passed, or it went
 * away), the requests of that call still waiting for a connection slot are never sent. A request
 * already sent is left to finish, so its outcome is known (an unknown create outcome is never made
 * here). A load that other callers share runs {@link shared}, outside any one caller's scope.
 */
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<AbortSignal>();

/** Runs `fn` with `signal` as the cancellation of the requests it makes. */
export const withCancellation = <T>(signal: AbortSignal, fn: () => T): T => scope.run(signal, fn);

/** Runs `fn` outside any caller's cancellation: for a load that several callers wait on. */
export const shared = <T>(fn: () => T): T => scope.exit(fn);

/** The cancellation of the current caller, if any. */
export const cancellation = (): AbortSignal | undefined => scope.getStore();

/** The caller was cancelled before the request was sent: nothing reached the server. */
export class CancelledBeforeSend extends Error {
  constructor() {
    super("cancelled by the caller before it was sent");
    this.name = "CancelledBeforeSend";
  }
}
