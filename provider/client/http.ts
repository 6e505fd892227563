/**
 * The undici transport: a bounded keep-alive pool (or the caller's own `Dispatcher`), a per-attempt
 * timeout that covers waiting for a slot, one concurrency budget per client, one retry loop honouring
 * Retry-After, and redaction; and what the caller sees of an answer: the body's size cap and JSON, a
 * non-2xx answer as the API-error class, a transport failure as the network or timeout class, a write
 * that may have landed as the ambiguous class.
 */
import { NotSent, cancellation, sendingWrite } from "./cancellation";
import { PassThrough, type Readable } from "node:stream";
import type { Dispatcher, FormData } from "undici";
import { VERSION } from "../version";
import {
  ErrorCodes,
  SecOpsAmbiguousError,
  SecOpsApiError,
  SecOpsError,
  SecOpsNetworkError,
  SecOpsResponseError,
  SecOpsTimeoutError,
  codeForStatus,
  redact,
} from "./errors";
import { randomUUID } from "node:crypto";
import { undici } from "./lazy";
import type { ClientSettings } from "./options";
import { missingRoute } from "./routes";
import {
  Budget,
  retryableStatus,
  backoffMs,
  errorCodeOf,
  failedBeforeSend,
  parseRetryAfter,
  sleep,
  sleepUntil,
} from "./retry";

/**
 * Timeouts under this are exact (an `AbortSignal.timeout` per attempt); longer ones use undici's own
 * timers, up to a second late (under 10%) but free, where a signal per attempt costs ~0.7x undici's
 * own CPU per request (`npm run bench`).
 */
export const EXACT_BELOW_MS = 10_000;

/** One request. `idempotent` says whether it may be re-sent after it possibly reached the server. */
export interface RequestSpec {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  query?: Record<string, string | number | undefined>;
  json?: unknown;
  /** Multipart body; a factory because a FormData body is consumed by each attempt. */
  form?: () => FormData;
  idempotent: boolean;
  /** The answer's body is not used (e.g. DELETE): it is read and discarded, never parsed. */
  ignoreBody?: boolean;
}

/** The transport. One per client; `close()` releases the pool it owns. */
export class HttpTransport {
  // Whatever could reach the key (the key, the pool and its queued headers) is #private: util.inspect,
  // console.log and JSON.stringify never show it.
  readonly #apiKey: string;
  readonly #settings: Omit<ClientSettings, "apiKey" | "dispatcher">;
  readonly #dispatcher: Dispatcher;
  readonly #ownsDispatcher: boolean;
  readonly #budget: Budget;
  readonly #userAgent: string;
  /** The debug log (SECOPS_LOG=debug): method, path, outcome, attempt and duration, never a header. */
  readonly #log:
    ((method: string, path: string, outcome: string, attempt: number, ms: number) => void) | undefined;
  #closed = false;

  constructor(settings: ClientSettings) {
    const { apiKey, dispatcher, ...rest } = settings;
    this.#apiKey = apiKey;
    this.#settings = rest;
    this.#ownsDispatcher = dispatcher === undefined;
    this.#dispatcher =
      dispatcher ??
      new (undici().Agent)({ connections: settings.maxConcurrency, keepAliveTimeout: 10_000, pipelining: 1 });
    this.#budget = new Budget(settings.maxConcurrency);
    this.#userAgent = `pulumi-secops/${VERSION}${settings.userAgent ? ` ${settings.userAgent}` : ""}`;
    if (process.env.SECOPS_LOG === "debug")
      this.#log = (method, path, outcome, attempt, ms) =>
        process.stderr.write(redact(`[secops] ${method} ${path} -> ${outcome} attempt=${attempt} ${ms}ms\n`));
  }

  /**
   * Sends a request and returns its body (undefined when empty) as `parse` turns it into the caller's
   * value (throwing when it does not fit); never more than maxRetries + 1 requests.
   */
  json<T>(spec: RequestSpec, parse: (body: unknown) => T): Promise<T> {
    return this.call(spec, false, async (res) => {
      try {
        const text = await readCapped(res.body, this.#settings.maxResponseBytes, spec, res.headers);
        if (spec.ignoreBody || text.trim() === "") return parse(undefined);
        const body = jsonOf(text);
        if (body !== undefined) return parse(body);
        // Named by its content type only, without a cause: the parser's message quotes the body, which
        // may echo a secret.
        const kind = String(res.headers["content-type"] ?? "no content type");
        const what = `${spec.method} ${spec.path}: response is not JSON (${kind})`;
        const where = { method: spec.method, path: spec.path, status: res.status };
        throw new SecOpsResponseError(ErrorCodes.RESPONSE_INVALID, what, where);
      } finally {
        res.done();
      }
    });
  }

  /**
   * Sends a request and returns the body as a stream, holding the slot until it ends, fails (with a
   * SecOpsError) or is destroyed. `timeoutMs` bounds each idle gap; `deadlineMs` the whole download.
   */
  stream(spec: RequestSpec, deadlineMs?: number): Promise<Readable> {
    const started = Date.now();
    return this.call(spec, true, async (res) => {
      const body = res.body as unknown as Readable;
      const out = new PassThrough();
      const what = `${spec.method} ${spec.path}: the download did not finish within ${deadlineMs} ms`;
      const expire = () =>
        out.destroy(new SecOpsTimeoutError(what, { method: spec.method, path: spec.path }));
      const left = deadlineMs === undefined ? undefined : Math.max(0, deadlineMs - (Date.now() - started));
      const deadline = left === undefined ? undefined : setTimeout(expire, left);
      body.on("error", (err) => out.destroy(transportError(spec, err, this.#settings.timeoutMs)));
      out.once("close", () => {
        clearTimeout(deadline);
        body.destroy();
        res.done();
      });
      body.pipe(out);
      return out;
    });
  }

  /** Closes the connection pool if this transport created it. A second call resolves too. */
  async close(): Promise<void> {
    if (!this.#ownsDispatcher || this.#closed) return;
    this.#closed = true;
    await this.#dispatcher.close();
  }

  /**
   * Ends in-flight requests now (a provider's Cancel): each fails with its transport error and none
   * is tried again. An injected dispatcher belongs to its owner and is left alone.
   */
  async destroy(): Promise<void> {
    const owned = this.#ownsDispatcher && !this.#closed;
    this.#closed = true;
    if (owned) await this.#dispatcher.destroy();
  }

  /**
   * The one retry loop: attempts until `onSuccess` returns, a failure is final, or the budget is spent.
   * Not undici's RetryAgent: it re-sends inside one dispatch, so an attempt could neither have its own
   * deadline nor give its slot back while it waits (http.test.ts pins both), and its `retry` callback
   * would have to hold all of our rules anyway (idempotency per request, a too-long Retry-After ends).
   */
  private async call<T>(
    spec: RequestSpec,
    streaming: boolean,
    onSuccess: (res: Answer) => Promise<T>,
  ): Promise<T> {
    const attempts = this.#settings.maxRetries + 1;
    const backoff = (attempt: number) =>
      backoffMs(attempt, this.#settings.retryBaseDelayMs, this.#settings.retryMaxDelayMs);
    // One id for every attempt of this call, so the server (and support) can tie retries together.
    const requestId = randomUUID();
    for (let attempt = 1; ; attempt++) {
      const started = Date.now();
      let res: Answer;
      try {
        res = await this.attempt(spec, requestId, streaming);
      } catch (err) {
        this.#log?.(spec.method, spec.path, errName(err), attempt, Date.now() - started);
        const final = err instanceof NotSent || this.#closed || attempt >= attempts;
        if (final || !(spec.idempotent || failedBeforeSend(err)))
          throw transportError(spec, err, this.#settings.timeoutMs);
        await sleep(backoff(attempt));
        continue;
      }
      const answeredAt = Date.now();
      this.#log?.(spec.method, spec.path, String(res.status), attempt, answeredAt - started);
      if (res.status >= 200 && res.status < 300) {
        try {
          return await onSuccess(res);
        } catch (err) {
          // A failure after a 2xx arrived: the body broke off, is not JSON, or does not fit.
          const failure = transportError(spec, err, this.#settings.timeoutMs);
          if (err instanceof TooLargeError || !spec.idempotent || attempt >= attempts) throw failure;
          await sleep(backoff(attempt));
          continue;
        }
      }
      const failure = await failureOf(spec, res, this.#settings.baseUrl);
      // Any 5xx to a non-idempotent write may come after the server (or the upstream behind a
      // gateway) applied it: the caller reconciles; it is never re-sent blindly.
      if (!spec.idempotent && res.status >= 500) throw ambiguous(spec, failure.message, failure);
      const retryAfter = parseRetryAfter(res.headers["retry-after"]);
      const retryable = retryableStatus(spec.method, res.status) && attempt < attempts;
      if (!retryable || (retryAfter !== undefined && retryAfter > this.#settings.maxRetryAfterMs))
        throw failure;
      // Never earlier than Retry-After, counted from when the answer arrived, by the wall clock.
      await sleepUntil(answeredAt + Math.max(retryAfter ?? 0, backoff(attempt)));
    }
  }

  /**
   * One attempt: a slot and the answer within timeoutMs. Under {@link EXACT_BELOW_MS} a signal bounds
   * the headers and a JSON body together; else undici's timers do (headers, then each body gap). A
   * stream never gets the signal: it could not be dropped once its headers are in.
   */
  private async attempt(spec: RequestSpec, requestId: string, streaming: boolean): Promise<Answer> {
    const started = Date.now();
    const cancel = cancellation();
    if (cancel?.aborted) throw new NotSent();
    const release =
      this.#budget.tryAcquire() ?? (await this.#budget.acquire(this.#settings.timeoutMs, cancel));
    const left = Math.max(1, this.#settings.timeoutMs - (Date.now() - started));
    try {
      if (cancel?.aborted) throw new NotSent();
      if (spec.method !== "GET") sendingWrite();
      const query = new URLSearchParams();
      for (const [k, v] of Object.entries(spec.query ?? {})) if (v !== undefined) query.append(k, String(v));
      const json = spec.json === undefined ? undefined : JSON.stringify(spec.json);
      const headers: Record<string, string> = {
        authorization: `Bearer ${this.#apiKey}`,
        "user-agent": this.#userAgent,
        accept: "application/json",
        "x-request-id": requestId,
      };
      if (json !== undefined) headers["content-type"] = "application/json";
      const res = await this.#dispatcher.request({
        origin: this.#settings.baseUrl,
        path: spec.path + (query.size ? `?${query}` : ""),
        method: spec.method,
        headers,
        body: json ?? spec.form?.(),
        signal:
          streaming || this.#settings.timeoutMs >= EXACT_BELOW_MS ? undefined : AbortSignal.timeout(left),
        headersTimeout: left,
        bodyTimeout: this.#settings.timeoutMs,
      });
      return { status: res.statusCode, headers: res.headers, body: res.body, done: release };
    } catch (err) {
      release();
      throw err;
    }
  }
}

/** One attempt's answer; `done` gives its connection slot back (idempotent). */
interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
  done: () => void;
}

/** A response body too large to accept. Final: sending again would move the same bytes again. */
class TooLargeError extends SecOpsResponseError {
  constructor(src: RequestSpec, cap: number, declared?: number) {
    const what =
      declared === undefined
        ? `exceeds the ${cap}-byte limit (not retried)`
        : `declares ${declared} bytes, over the ${cap}-byte limit (refused before reading; not retried)`;
    const where = { method: src.method, path: src.path };
    super(ErrorCodes.RESPONSE_INVALID, `${src.method} ${src.path}: response body ${what}`, where);
  }
}

/**
 * Reads a body as UTF-8 text, refusing more than `cap` bytes: unread when its Content-Length is over
 * (the connection is dropped rather than drained: its abort error is expected), else as it streams.
 */
async function readCapped(
  body: Dispatcher.ResponseData["body"],
  cap: number,
  src: RequestSpec,
  headers: Answer["headers"] = {},
): Promise<string> {
  const raw = headers["content-length"];
  const declared = Number(Array.isArray(raw) ? raw[0] : raw);
  if (Number.isFinite(declared) && declared > cap) {
    body.once("error", () => undefined).destroy();
    throw new TooLargeError(src, cap, declared);
  }
  if (Number.isInteger(declared) && declared >= 0) return body.text();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > cap) {
      body.destroy();
      throw new TooLargeError(src, cap);
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks, size).toString("utf8");
}

/** `text` parsed as JSON, or undefined when it is not JSON (which nothing parses to). */
function jsonOf(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The API's error body (`{ message, statusCode }`), leniently read: undefined when it is not one. */
function apiErrorBody(text: string): { message?: string; statusCode?: number } | undefined {
  const parsed = jsonOf(text);
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const { message, statusCode } = parsed as { message?: unknown; statusCode?: unknown };
  // A string, or a list of them (NestJS), joined.
  const parts: unknown[] = [message].flat();
  const joined = parts.every((m) => typeof m === "string") ? parts.join("; ") : undefined;
  return { message: joined, statusCode: typeof statusCode === "number" ? statusCode : undefined };
}

/** Reads a non-2xx answer's body (small, lenient) into its error; `origin` is named if it is wrong. */
async function failureOf(spec: RequestSpec, res: Answer, origin: string): Promise<SecOpsError> {
  const text = await readCapped(res.body, 64 * 1024, spec)
    .catch(() => "")
    .finally(() => res.done());
  const body = apiErrorBody(text);
  const retryAfter = parseRetryAfter(res.headers["retry-after"]);
  const seconds = retryAfter === undefined ? undefined : Math.ceil(retryAfter / 1000);
  const details = { status: res.status, method: spec.method, path: spec.path, apiMessage: body?.message };
  const missing = missingRoute(spec.method, spec.path, res.status, body?.message);
  // A route the spec shows exists on every SecOps API: whatever answered is not one.
  if (missing === "wrong-base-url")
    return new SecOpsApiError(
      ErrorCodes.UNEXPECTED_STATUS,
      `${spec.method} ${origin}${spec.path} answered ${res.status}: the base URL ${origin} is wrong (no SecOps API there); check baseUrl`,
      details,
    );
  if (missing === "unsupported") {
    return new SecOpsApiError(
      ErrorCodes.UNSUPPORTED,
      `${spec.method} ${spec.path} failed (${res.status}): the API has no such route (an assumed route; see docs/assumptions.md in the pulumi-secops package): ${body?.message}`,
      details,
    );
  }
  // Only the API's own JSON error body means "no such object"; a gateway's or proxy's 404 (HTML,
  // empty, another JSON shape) proves nothing, and treating it as "gone" would drop live objects.
  if (res.status === 404 && body?.statusCode !== 404) {
    const kind = String(res.headers["content-type"] ?? "no content type");
    return new SecOpsApiError(
      ErrorCodes.UNEXPECTED_STATUS,
      `${spec.method} ${spec.path} failed (404) without the API's JSON error body (${kind}): a gateway or proxy may have answered, so nothing is concluded about the object`,
      details,
    );
  }
  const redirect = res.status >= 300 && res.status < 400 ? ": redirects are not followed" : "";
  const suffix = body?.message ? `: ${body.message}` : redirect;
  const message = `${spec.method} ${spec.path} failed (${res.status})${suffix}`;
  return new SecOpsApiError(codeForStatus(res.status), message, { ...details, retryAfterSeconds: seconds });
}

/** A write that may or may not have been applied: the caller must reconcile, never blindly re-send. */
function ambiguous(spec: RequestSpec, what: string, cause: unknown): SecOpsAmbiguousError {
  return new SecOpsAmbiguousError(`${what}; the request may have been applied (not re-sent)`, {
    method: spec.method,
    path: spec.path,
    cause,
  });
}

/** Maps a thrown transport failure to the error the caller sees. */
function transportError(spec: RequestSpec, err: unknown, timeoutMs: number): SecOpsError {
  if (err instanceof SecOpsError) return err;
  const where = { method: spec.method, path: spec.path };
  if (err instanceof NotSent) {
    const Class = err.waitedMs === undefined ? SecOpsNetworkError : SecOpsTimeoutError;
    return new Class(`${spec.method} ${spec.path}: ${err.message} (not sent)`, where);
  }
  const timedOut = isTimeout(err);
  const what = timedOut ? `timed out after ${timeoutMs} ms` : redact(describe(err));
  const details = { ...where, cause: err };
  if (!spec.idempotent && !failedBeforeSend(err))
    return ambiguous(spec, `${spec.method} ${spec.path}: ${what}`, err);
  if (timedOut) return new SecOpsTimeoutError(`${spec.method} ${spec.path}: ${what}`, details);
  return new SecOpsNetworkError(`${spec.method} ${spec.path} failed: ${what}`, details);
}

/** True for a timeout: the attempt's `AbortSignal.timeout` (a DOMException) or one of undici's own. */
const isTimeout = (err: unknown) =>
  (err instanceof DOMException && err.name === "TimeoutError") ||
  /^UND_ERR_(HEADERS|BODY|CONNECT)_TIMEOUT$/.test(String((err as { code?: unknown })?.code));

/** A transport failure's message with its code. */
function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const msg = e?.message ?? String(err);
  return code && !msg.includes(code) ? `${msg} (${code})` : msg;
}

/** A failed attempt's outcome for the debug log. */
function errName(err: unknown): string {
  return err instanceof NotSent && err.waitedMs !== undefined
    ? "slot timeout"
    : isTimeout(err)
      ? "timeout"
      : (errorCodeOf(err) ?? "network error");
}
