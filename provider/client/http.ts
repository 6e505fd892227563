/**
 * The undici transport: keep-alive connections in a bounded pool, a per-request timeout, a
 * concurrency budget shared by every call of one client, retries with backoff that honour
 * Retry-After, and redaction. Nothing here knows the API's operations (see client.ts).
 */
import { randomUUID } from "node:crypto";
import type { Readable } from "node:stream";
import { Agent, type Dispatcher, type FormData } from "undici";
import { VERSION } from "../version";
import {
  ErrorCodes,
  SecOpsAmbiguousError,
  SecOpsError,
  SecOpsNetworkError,
  SecOpsResponseError,
  SecOpsTimeoutError,
  apiError,
  redact,
} from "./errors";
import { errorMessage } from "./schemas/errorBody";
import {
  Budget,
  GATEWAY_STATUSES,
  RETRYABLE_STATUSES,
  backoffMs,
  errorCodeOf,
  failedBeforeSend,
  parseRetryAfter,
  sleep,
  sleepUntil,
} from "./retry";
import { unknownRoute } from "./routes";
import { log } from "./log";

/** HTTP methods the API uses. */
export type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Transport settings (validated by SecOpsClient). */
export interface HttpSettings {
  origin: string;
  basePath: string;
  apiKey: string;
  timeoutMs: number;
  maxRetries: number;
  maxConcurrency: number;
  dispatcher?: Dispatcher;
  userAgent?: string;
  /** Largest JSON body accepted, in bytes. */
  maxResponseBytes: number;
  /** Longest Retry-After honoured; a longer one ends the retries with the server's answer. */
  maxRetryAfterMs: number;
  /** Backoff base and cap for full jitter. */
  backoffBaseMs: number;
  backoffCapMs: number;
}

/** One request. `idempotent` says whether it may be re-sent after it possibly reached the server. */
export interface RequestSpec {
  method: Method;
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  /** Multipart body; a factory because a FormData body is consumed by each attempt. */
  form?: () => FormData;
  idempotent: boolean;
  /** The answer's body is not used (e.g. DELETE): it is read and discarded, never parsed. */
  ignoreBody?: boolean;
}

interface Attempt {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
  release: () => void;
  clearTimer: () => void;
}

/** The transport. One per client; `close()` releases the pool it owns. */
export class HttpTransport {
  // The key lives in a #private field: util.inspect, console.log and JSON.stringify never show it.
  readonly #apiKey: string;
  private readonly settings: Omit<HttpSettings, "apiKey">;
  private readonly dispatcher: Dispatcher;
  private readonly ownsDispatcher: boolean;
  private readonly budget: Budget;
  private readonly userAgent: string;

  constructor(settings: HttpSettings) {
    const { apiKey, ...rest } = settings;
    this.#apiKey = apiKey;
    this.settings = rest;
    this.ownsDispatcher = settings.dispatcher === undefined;
    // Keep-alive with at most maxConcurrency sockets per origin: 1,000 concurrent creates reuse them.
    this.dispatcher =
      settings.dispatcher ??
      new Agent({ connections: settings.maxConcurrency, keepAliveTimeout: 10_000, pipelining: 1 });
    this.budget = new Budget(settings.maxConcurrency);
    this.userAgent = `pulumi-secops/${VERSION}${settings.userAgent ? ` ${settings.userAgent}` : ""}`;
  }

  /** Sends a request and returns its parsed JSON body (undefined for an empty 2xx body). */
  async json(spec: RequestSpec): Promise<{ status: number; body: unknown }> {
    const res = await this.send(spec);
    try {
      const text = await readCapped(res.body, this.settings.maxResponseBytes, spec).catch((err: unknown) => {
        throw this.transportError(spec, err);
      });
      if (spec.ignoreBody || text.trim() === "") return { status: res.status, body: undefined };
      try {
        return { status: res.status, body: JSON.parse(text) };
      } catch (cause) {
        const kind = String(res.headers["content-type"] ?? "no content type");
        throw new SecOpsResponseError(
          ErrorCodes.RESPONSE_INVALID,
          `${spec.method} ${spec.path}: response is not JSON (${kind})`,
          { method: spec.method, path: spec.path, status: res.status, cause },
        );
      }
    } finally {
      res.clearTimer();
      res.release();
    }
  }

  /**
   * Sends a request and returns the response body as a stream, never buffered. The concurrency slot is
   * held until the stream ends or is destroyed; an idle stream fails after `timeoutMs` without data.
   */
  async stream(spec: RequestSpec): Promise<Readable> {
    const res = await this.send(spec);
    res.clearTimer();
    const body = res.body as unknown as Readable;
    body.once("close", res.release);
    return body;
  }

  /** Closes the connection pool if this transport created it. */
  async close(): Promise<void> {
    if (this.ownsDispatcher) await this.dispatcher.close();
  }

  /** Runs attempts until one answers 2xx, a failure is final, or the retries are spent. */
  private async send(spec: RequestSpec): Promise<Attempt> {
    const attempts = this.settings.maxRetries + 1;
    // One id for every attempt of this call, so the server (and support) can tie retries together.
    const requestId = randomUUID();
    for (let attempt = 1; ; attempt++) {
      const started = Date.now();
      let res: Attempt;
      try {
        res = await this.attempt(spec, requestId);
      } catch (err) {
        const mayRetry = attempt < attempts && (spec.idempotent || failedBeforeSend(err));
        log(spec.method, spec.path, errName(err), attempt, Date.now() - started);
        if (!mayRetry) throw this.transportError(spec, err);
        await sleep(backoffMs(attempt, this.settings.backoffBaseMs, this.settings.backoffCapMs));
        continue;
      }
      const answeredAt = Date.now();
      log(spec.method, spec.path, String(res.status), attempt, answeredAt - started);
      if (res.status >= 200 && res.status < 300) return res;
      const failure = await this.failure(spec, res);
      // A gateway's 502/504 may come after the upstream applied a non-idempotent write.
      if (!spec.idempotent && GATEWAY_STATUSES.has(res.status))
        throw this.ambiguous(spec, failure.message, failure);
      const retryAfter = parseRetryAfter(res.headers["retry-after"]);
      const retryable = RETRYABLE_STATUSES.has(res.status) && attempt < attempts;
      if (!retryable || (retryAfter !== undefined && retryAfter > this.settings.maxRetryAfterMs))
        throw failure;
      const jitter = backoffMs(attempt, this.settings.backoffBaseMs, this.settings.backoffCapMs);
      // Never earlier than Retry-After, counted from when the answer arrived, by the wall clock.
      await sleepUntil(answeredAt + Math.max(retryAfter ?? 0, jitter));
    }
  }

  /** One attempt: takes a budget slot, sends, and waits for the status line and headers. */
  private async attempt(spec: RequestSpec, requestId: string): Promise<Attempt> {
    const release = await this.budget.acquire();
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(new TimeoutSignal()), this.settings.timeoutMs);
    const clearTimer = () => clearTimeout(timer);
    try {
      const headers: Record<string, string> = {
        authorization: `Bearer ${this.#apiKey}`,
        "user-agent": this.userAgent,
        accept: "application/json",
        "x-request-id": requestId,
      };
      let body: string | FormData | undefined;
      if (spec.json !== undefined) {
        headers["content-type"] = "application/json";
        body = JSON.stringify(spec.json);
      } else if (spec.form) {
        body = spec.form();
      }
      const res = await this.dispatcher.request({
        origin: this.settings.origin,
        path: this.settings.basePath + spec.path + queryString(spec.query),
        method: spec.method,
        headers,
        body,
        signal: abort.signal,
        headersTimeout: this.settings.timeoutMs,
        bodyTimeout: this.settings.timeoutMs,
      });
      return { status: res.statusCode, headers: res.headers, body: res.body, release, clearTimer };
    } catch (err) {
      clearTimer();
      release();
      throw err;
    }
  }

  /** Reads a failed response's body (small, lenient) into the error the caller sees. */
  private async failure(spec: RequestSpec, res: Attempt): Promise<SecOpsError> {
    let apiMessage: string | undefined;
    try {
      const text = await readCapped(res.body, 64 * 1024, spec).catch(() => "");
      try {
        apiMessage = errorMessage(JSON.parse(text));
      } catch {
        apiMessage = undefined;
      }
    } finally {
      res.clearTimer();
      res.release();
    }
    const retryAfter = parseRetryAfter(res.headers["retry-after"]);
    const seconds = retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000);
    if ((res.status === 404 || res.status === 405) && unknownRoute(apiMessage)) {
      return new SecOpsError(
        ErrorCodes.UNSUPPORTED,
        `${spec.method} ${spec.path} failed (${res.status}): the API has no such route (an assumed route; see the README's assumptions table): ${apiMessage}`,
        { status: res.status, method: spec.method, path: spec.path, apiMessage },
      );
    }
    return apiError(spec.method, spec.path, res.status, apiMessage, seconds);
  }

  /** A write that may or may not have been applied: the caller must reconcile, never blindly re-send. */
  private ambiguous(spec: RequestSpec, what: string, cause: unknown): SecOpsAmbiguousError {
    return new SecOpsAmbiguousError(
      ErrorCodes.AMBIGUOUS,
      `${what}; the request may have been applied (not re-sent)`,
      {
        method: spec.method,
        path: spec.path,
        cause,
      },
    );
  }

  /** Maps a thrown transport failure to the error the caller sees. */
  private transportError(spec: RequestSpec, err: unknown): SecOpsError {
    if (err instanceof SecOpsError) return err;
    const timedOut = isTimeout(err);
    const what = timedOut ? `timed out after ${this.settings.timeoutMs} ms` : redact(describe(err));
    const details = { method: spec.method, path: spec.path, cause: err };
    if (!spec.idempotent && !failedBeforeSend(err))
      return this.ambiguous(spec, `${spec.method} ${spec.path}: ${what}`, err);
    if (timedOut)
      return new SecOpsTimeoutError(ErrorCodes.TIMEOUT, `${spec.method} ${spec.path}: ${what}`, details);
    return new SecOpsNetworkError(ErrorCodes.NETWORK, `${spec.method} ${spec.path} failed: ${what}`, details);
  }
}

/** The abort reason used for our own timeout, so it can be told apart from other aborts. */
class TimeoutSignal extends Error {
  constructor() {
    super("request timed out");
    this.name = "TimeoutSignal";
  }
}

function isTimeout(err: unknown): boolean {
  if (err instanceof TimeoutSignal) return true;
  const code = (err as { code?: string })?.code;
  return (
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT"
  );
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const msg = e?.message ?? String(err);
  return code && !msg.includes(code) ? `${msg} (${code})` : msg;
}

function errName(err: unknown): string {
  return isTimeout(err) ? "timeout" : (errorCodeOf(err) ?? "network error");
}

function queryString(query: RequestSpec["query"]): string {
  if (!query) return "";
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : "";
}

/** Reads a body as UTF-8 text, refusing more than `cap` bytes (by Content-Length or as it streams). */
async function readCapped(
  body: Dispatcher.ResponseData["body"],
  cap: number,
  spec: RequestSpec,
): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > cap) {
      body.destroy();
      throw new SecOpsResponseError(
        ErrorCodes.RESPONSE_INVALID,
        `${spec.method} ${spec.path}: response body exceeds the ${cap}-byte limit`,
        { method: spec.method, path: spec.path },
      );
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks, size).toString("utf8");
}
