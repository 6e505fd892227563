/** Construction options of SecOpsClient, validated up front with short messages (practice 7). */
import type { Dispatcher } from "undici";
import { SecOpsConfigError, registerSecret } from "./errors";
import type { HttpSettings } from "./http";

/** Options of {@link SecOpsClient}. */
export interface SecOpsClientOptions {
  /** Team API key. Sent as `Authorization: Bearer <key>`; never logged, never in an error. */
  apiKey: string;
  /** Base URL of the API, e.g. `https://api.example.com`. Must be https unless the host is loopback. */
  baseUrl: string;
  /** Per-request timeout in milliseconds (headers and whole body). Default 30000. */
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

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);
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
  const { apiKey, baseUrl } = options;
  if (typeof apiKey !== "string" || apiKey.trim() === "") {
    throw new SecOpsConfigError("apiKey must be a non-empty string", "apiKey");
  }
  if (/\s/.test(apiKey)) throw new SecOpsConfigError("apiKey must not contain whitespace", "apiKey");
  registerSecret(apiKey);
  if (typeof baseUrl !== "string") throw new SecOpsConfigError("baseUrl must be a URL string", "baseUrl");
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    throw new SecOpsConfigError(`baseUrl is not a valid URL: ${baseUrl}`, "baseUrl");
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopback(url.hostname))) {
    throw new SecOpsConfigError(
      "baseUrl must be an https URL (plain http is allowed only for loopback hosts)",
      "baseUrl",
    );
  }
  if (url.username || url.password || url.search || url.hash) {
    throw new SecOpsConfigError("baseUrl must not contain credentials, a query or a fragment", "baseUrl");
  }
  return {
    origin: url.origin,
    basePath: url.pathname.replace(/\/+$/, ""),
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
  };
}
