/** Retry policy: which failures are retried, and when (full-jitter backoff, never before Retry-After). */
import { NotSent } from "./cancellation";

/**
 * True when an idempotent request answered `status` is worth another attempt: rate limiting and
 * transient gateway/availability failures, and a DELETE answered 500 (deleting twice is harmless, and
 * a delete given up on leaves a rule behind).
 */
export function retryableStatus(method: string, status: number): boolean {
  return [429, 502, 503, 504].includes(status) || (method === "DELETE" && status === 500);
}

/** Network error codes that prove the request never left this process (safe to resend anything). */
const NOT_SENT_CODES: ReadonlySet<string> = new Set([
  "ECONNREFUSED",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "UND_ERR_CONNECT_TIMEOUT",
]);

/** The first `code` found on an error or its chain of causes. */
export function errorCodeOf(err: unknown): string | undefined {
  let e: unknown = err;
  for (let depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === "string") return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** True when the failure happened before any byte of the request could reach the server. */
export function failedBeforeSend(err: unknown): boolean {
  return NOT_SENT_CODES.has(errorCodeOf(err) ?? "");
}

/** A Retry-After header (delta-seconds or HTTP-date) in ms from `now`, never negative; else undefined. */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v.trim() === "") return undefined;
  if (/^\s*\d+(\.\d+)?\s*$/.test(v)) return Math.ceil(Number(v) * 1000);
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Full-jitter backoff: a random delay in [0, min(cap, base * 2^(attempt-1))]. */
export function backoffMs(attempt: number, baseMs: number, capMs: number): number {
  return Math.floor(Math.random() * Math.min(capMs, baseMs * 2 ** (attempt - 1)));
}

/** Resolves after `ms` ms, on the global `setTimeout`: the Retry-After tests run it on jest's fake timers. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Resolves once the wall clock has reached `deadline` (epoch ms). A timer alone can fire a few ms early:
 * Node measures it from the event loop's cached time, which lags the real clock.
 */
export async function sleepUntil(deadline: number): Promise<void> {
  for (let left = deadline - Date.now(); left > 0; left = deadline - Date.now()) await sleep(left);
}

/** A counting semaphore: the concurrency budget shared by every call of one client. */
export class Budget {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(readonly limit: number) {}

  /** A slot at once if one is free (no promise, no microtask), else undefined. */
  tryAcquire(): (() => void) | undefined {
    if (this.active >= this.limit) return undefined;
    this.active++;
    return this.releaser();
  }

  /** When {@link tryAcquire} found none: a slot within `timeoutMs`, else (or on `signal`) {@link NotSent}. */
  acquire(timeoutMs: number, signal?: AbortSignal): Promise<() => void> {
    return new Promise((resolve, reject) => {
      const wake = () => end();
      const cancelled = () => end(new NotSent());
      const timer = setTimeout(() => end(new NotSent(timeoutMs)), timeoutMs);
      const end = (err?: NotSent) => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", cancelled);
        if (!err) return resolve(this.releaser());
        const at = this.waiting.indexOf(wake);
        if (at >= 0) this.waiting.splice(at, 1);
        reject(err);
      };
      this.waiting.push(wake);
      signal?.addEventListener("abort", cancelled, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    };
  }
}
