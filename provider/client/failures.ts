/**
 * What the caller sees when an attempt fails: a non-2xx answer as the API-error class, a transport
 * failure as the network or timeout class, a write that may have landed as the ambiguous class.
 */
import { CancelledBeforeSend } from "./cancellation";
import type { Dispatcher } from "undici";
import { apiErrorBody, readCapped } from "./body";
import {
  ErrorCodes,
  SecOpsAmbiguousError,
  SecOpsApiError,
  SecOpsError,
  SecOpsNetworkError,
  SecOpsTimeoutError,
  apiError,
  redact,
} from "./errors";
import { SlotTimeout, errorCodeOf, failedBeforeSend, parseRetryAfter } from "./retry";

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

/** What a 404 or 405 says about the route itself (routes.ts `missingRoute`). */
export type MissingRoute = (
  method: string,
  path: string,
  status: number,
  apiMessage: string | undefined,
) => "wrong-base-url" | "unsupported" | undefined;

/** Reads a non-2xx answer's body (small, lenient) into its error; `origin` is named if it is wrong. */
export async function failureOf(
  spec: FailedRequest,
  res: Answer,
  missingRoute: MissingRoute,
  origin: string,
): Promise<SecOpsError> {
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
  return apiError(spec.method, spec.path, res.status, body?.message, seconds);
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
  if (err instanceof CancelledBeforeSend || err instanceof SlotTimeout) {
    const NotSent = err instanceof SlotTimeout ? SecOpsTimeoutError : SecOpsNetworkError;
    return new NotSent(`${spec.method} ${spec.path}: ${err.message} (not sent)`, where);
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
function isTimeout(err: unknown): boolean {
  if (err instanceof DOMException && err.name === "TimeoutError") return true;
  const code = (err as { code?: string })?.code;
  return (
    code === "UND_ERR_HEADERS_TIMEOUT" ||
    code === "UND_ERR_BODY_TIMEOUT" ||
    code === "UND_ERR_CONNECT_TIMEOUT"
  );
}

/** A transport failure's message with its code. */
function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  const code = e?.code ?? e?.cause?.code;
  const msg = e?.message ?? String(err);
  return code && !msg.includes(code) ? `${msg} (${code})` : msg;
}

/** A failed attempt's outcome for the debug log. */
export function errName(err: unknown): string {
  return err instanceof SlotTimeout
    ? "slot timeout"
    : isTimeout(err)
      ? "timeout"
      : (errorCodeOf(err) ?? "network error");
}
