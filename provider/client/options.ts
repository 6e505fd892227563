/** SecOpsClient's options, validated at construction with short messages naming the option. */
import type { Dispatcher } from "undici";
import { SecOpsConfigError, registerSecret } from "./errors";
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

/** Every option, in order (others are refused), with [default, min, max] for the integer ones. */
const OPTIONS = {
  apiKey: undefined,
  baseUrl: undefined,
  timeoutMs: [30_000, 1, 3_600_000],
  maxRetries: [4, 0, 20],
  maxConcurrency: [8, 1, 1024],
  dispatcher: undefined,
  userAgent: undefined,
  maxResponseBytes: [64 * 1024 * 1024, 1024, 2 ** 31 - 1],
  maxRetryAfterMs: [60_000, 0, 3_600_000],
  retryBaseDelayMs: [200, 0, 60_000],
  retryMaxDelayMs: [10_000, 0, 600_000],
} as const satisfies Record<keyof SecOpsClientOptions, readonly [number, number, number] | undefined>;

/** The options once validated: every integer one set, and `baseUrl` reduced to its origin. */
export type ClientSettings = Required<Omit<SecOpsClientOptions, "dispatcher" | "userAgent">> &
  Pick<SecOpsClientOptions, "dispatcher" | "userAgent">;

/** `; did you mean <the closest known name>?` (edit distance at most 3 or a shared prefix), or "". */
export function didYouMean(name: string, known: readonly string[]): string {
  let best: string | undefined;
  let bestScore = Infinity;
  for (const k of known) {
    const d = distance(name.toLowerCase(), k.toLowerCase());
    const score = k.toLowerCase().startsWith(name.toLowerCase()) ? Math.min(d, 1) : d;
    if (score < bestScore) [best, bestScore] = [k, score];
  }
  return bestScore <= Math.max(3, Math.floor(name.length / 3)) ? `; did you mean ${best}?` : "";
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

/** Validates the options and sets the defaults. */
export function toSettings(options: SecOpsClientOptions): ClientSettings {
  if (options === null || typeof options !== "object")
    throw new SecOpsConfigError("options must be an object");
  for (const key of Object.keys(options))
    if (!Object.hasOwn(OPTIONS, key))
      throw new SecOpsConfigError(
        `${key} is not an option of SecOpsClient${didYouMean(key, Object.keys(OPTIONS))}`,
        key,
      );
  const { userAgent, dispatcher } = options;
  const apiKey = checkApiKey(options.apiKey);
  registerSecret(apiKey);
  if (userAgent !== undefined && (typeof userAgent !== "string" || !HEADER_SAFE.test(userAgent)))
    throw new SecOpsConfigError(
      "userAgent must be a string without control characters or line breaks",
      "userAgent",
    );
  const baseUrl = checkBaseUrl(options.baseUrl);
  const settings: Record<string, unknown> = { apiKey, baseUrl, dispatcher, userAgent };
  for (const [name, limits] of Object.entries(OPTIONS)) {
    if (!limits) continue;
    const [fallback, min, max] = limits;
    const v = (options[name as keyof typeof OPTIONS] ?? fallback) as number;
    if (!Number.isInteger(v) || v < min || v > max)
      throw new SecOpsConfigError(`${name} must be an integer from ${min} to ${max}`, name);
    settings[name] = v;
  }
  return settings as ClientSettings;
}
