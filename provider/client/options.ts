/** SecOpsClient's options, validated at construction with short messages naming the option. */
import type { Dispatcher } from "undici";
import { SecOpsConfigError, registerSecret } from "./errors";
import type { HttpSettings } from "./http";
import { missingRoute } from "./routes";
import { HEADER_SAFE, checkApiKey, checkBaseUrl } from "./settings";

/** Options of {@link SecOpsClient}. */
export interface SecOpsClientOptions {
  /** Team API key. Sent as `Authorization: Bearer <key>`; never logged, never in an error. */
  apiKey: string;
  /**
   * Base URL of the API: its origin, e.g. `https://api.example.com` (no path: the client adds
   * `/v1/...` itself). Must be https unless the host is loopback (localhost, 127.0.0.1, ::1).
   */
  baseUrl: string;
  /**
   * Per-attempt timeout in milliseconds, counted from the wait for a connection slot: under 10 s exact,
   * for the headers and a JSON body; from 10 s, for the headers and then each body gap, up to 1 s late.
   * Default 30000.
   */
  timeoutMs?: number;
  /** Retries after the first attempt for retryable failures. Default 4. */
  maxRetries?: number;
  /** Requests in flight at once across every call of this client, and pool size. Default 8. */
  maxConcurrency?: number;
  /** An undici dispatcher to send through (a MockAgent, a proxy agent). The client never closes it. */
  dispatcher?: Dispatcher;
  /** Appended to the `User-Agent` header after `pulumi-secops/<version>`. */
  userAgent?: string;
  /** Largest JSON response accepted, in bytes. Default 64 MiB. */
  maxResponseBytes?: number;
  /** Longest Retry-After the client waits for; a longer one fails with the server's answer. Default 60 s. */
  maxRetryAfterMs?: number;
  /** Backoff base delay in milliseconds (full jitter). Default 200. */
  retryBaseDelayMs?: number;
  /** Backoff maximum delay in milliseconds. Default 10000. */
  retryMaxDelayMs?: number;
}

/** Every option name: others are refused. */
const KNOWN_OPTIONS = [
  "apiKey",
  "baseUrl",
  "timeoutMs",
  "maxRetries",
  "maxConcurrency",
  "dispatcher",
  "userAgent",
  "maxResponseBytes",
  "maxRetryAfterMs",
  "retryBaseDelayMs",
  "retryMaxDelayMs",
] as const;

function rejectUnknown(options: object): void {
  for (const key of Object.keys(options)) {
    if ((KNOWN_OPTIONS as readonly string[]).includes(key)) continue;
    throw new SecOpsConfigError(
      `${key} is not an option of SecOpsClient${didYouMean(key, KNOWN_OPTIONS)}`,
      key,
    );
  }
}

/** `; did you mean <the closest known name>?`, or "" when none is close. */
export function didYouMean(name: string, known: readonly string[]): string {
  const near = closest(name, known);
  return near ? `; did you mean ${near}?` : "";
}

/** The known name closest to `name` (edit distance at most 3 or a shared prefix), if any. */
export function closest(name: string, known: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const k of known) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    const score = k.toLowerCase().startsWith(name.toLowerCase()) ? Math.min(d, 1) : d;
    if (score < bestScore) [best, bestScore] = [k, score];
  }
  return bestScore <= Math.max(3, Math.floor(name.length / 3)) ? best : undefined;
}

function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length];
}

function int(value: number | undefined, fallback: number, name: string, min: number, max: number): number {
  const v = value ?? fallback;
  if (!Number.isInteger(v) || v < min || v > max) {
    throw new SecOpsConfigError(`${name} must be an integer from ${min} to ${max}`, name);
  }
  return v;
}

/** Validates the options and turns them into transport settings. */
export function toSettings(options: SecOpsClientOptions): HttpSettings {
  if (options === null || typeof options !== "object")
    throw new SecOpsConfigError("options must be an object");
  rejectUnknown(options);
  const { userAgent } = options;
  const apiKey = checkApiKey(options.apiKey);
  registerSecret(apiKey);
  if (userAgent !== undefined && (typeof userAgent !== "string" || !HEADER_SAFE.test(userAgent)))
    throw new SecOpsConfigError(
      "userAgent must be a string without control characters or line breaks",
      "userAgent",
    );
  const origin = checkBaseUrl(options.baseUrl);
  return {
    origin,
    apiKey,
    timeoutMs: int(options.timeoutMs, 30_000, "timeoutMs", 1, 3_600_000),
    maxRetries: int(options.maxRetries, 4, "maxRetries", 0, 20),
    maxConcurrency: int(options.maxConcurrency, 8, "maxConcurrency", 1, 1024),
    dispatcher: options.dispatcher,
    userAgent: options.userAgent,
    maxResponseBytes: int(options.maxResponseBytes, 64 * 1024 * 1024, "maxResponseBytes", 1024, 2 ** 31 - 1),
    maxRetryAfterMs: int(options.maxRetryAfterMs, 60_000, "maxRetryAfterMs", 0, 3_600_000),
    backoffBaseMs: int(options.retryBaseDelayMs, 200, "retryBaseDelayMs", 0, 60_000),
    backoffCapMs: int(options.retryMaxDelayMs, 10_000, "retryMaxDelayMs", 0, 600_000),
    missingRoute,
  };
}
