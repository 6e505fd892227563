/**
 * Answers and what the caller sees of them: response bodies (the size cap, JSON, the API's error body),
 * a non-2xx answer as the API-error class, a transport failure as the network or timeout class, a
 * write that may have landed as the ambiguous class.
 */
import { NotSent } from "./cancellation";
import type { Dispatcher } from "undici";
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
import { missingRoute } from "./routes";
import { errorCodeOf, failedBeforeSend, parseRetryAfter } from "./retry";

/** The request a failure belongs to. */
export interface FailedRequest {
  method: string;
  path: string;
  idempotent: boolean;
}

/** One attempt's answer; `done` gives its connection slot back (idempotent). */
export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Dispatcher.ResponseData["body"];
  done: () => void;
}

/** A response body too large to accept. Final: sending again would move the same bytes again. */
export class TooLargeError extends SecOpsResponseError {
  constructor(src: FailedRequest, cap: number, declared?: number) {
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
export async function readCapped(
  body: Dispatcher.ResponseData["body"],
  cap: number,
  src: FailedRequest,
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

/**
 * Parses JSON; a body that is not fails naming its content type only, without a cause: the parser's
 * message quotes the body, which may echo a secret.
 */
export function parseJson(text: string, contentType: unknown, status: number, src: FailedRequest): unknown {
  try {
    return JSON.parse(text);
  } catch {
    const kind = String(contentType ?? "no content type");
    throw new SecOpsResponseError(
      ErrorCodes.RESPONSE_INVALID,
      `${src.method} ${src.path}: response is not JSON (${kind})`,
      { method: src.method, path: src.path, status },
    );
  }
}

/** The API's error body (`{ message, statusCode }`), leniently read: undefined when it is not one. */
function apiErrorBody(text: string): { message?: string; statusCode?: number } | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) return undefined;
  const { message, statusCode } = parsed as { message?: unknown; statusCode?: unknown };
  const joined =
    typeof message === "string"
      ? message
      : Array.isArray(message) && message.every((m) => typeof m === "string")
        ? message.join("; ")
        : undefined;
  return { message: joined, statusCode: typeof statusCode === "number" ? statusCode : undefined };
}

/** Reads a non-2xx answer's body (small, lenient) into its error; `origin` is named if it is wrong. */
export async function failureOf(spec: FailedRequest, res: Answer, origin: string): Promise<SecOpsError> {
  let text: string;
  try {
    text = await readCapped(res.body, 64 * 1024, spec).catch(() => "");
  } finally {
    res.done();
  }
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
export function ambiguous(spec: FailedRequest, what: string, cause: unknown): SecOpsAmbiguousError {
  return new SecOpsAmbiguousError(`${what}; the request may have been applied (not re-sent)`, {
    method: spec.method,
    path: spec.path,
    cause,
  });
}

/** Maps a thrown transport failure to the error the caller sees. */
export function transportError(spec: FailedRequest, err: unknown, timeoutMs: number): SecOpsError {
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
export function errName(err: unknown): string {
  return err instanceof NotSent && err.waitedMs !== undefined
    ? "slot timeout"
    : isTimeout(err)
      ? "timeout"
      : (errorCodeOf(err) ?? "network error");
}
