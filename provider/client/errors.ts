/**
 * Every error the package throws; each class fixes its `name` and owns its stable `code`s (as undici's
 * `lib/core/errors.js`). Text from outside (the API's `message`, a network error's) passes through
 * {@link redact}, so even an API that echoes the bearer token cannot leak it.
 */

/** Stable error codes. Match on these, never on message text. */
export const ErrorCodes = {
  AUTH: "SECOPS_AUTH",
  FORBIDDEN: "SECOPS_FORBIDDEN",
  NOT_FOUND: "SECOPS_NOT_FOUND",
  CONFLICT: "SECOPS_CONFLICT",
  BAD_REQUEST: "SECOPS_BAD_REQUEST",
  RATE_LIMITED: "SECOPS_RATE_LIMITED",
  SERVER: "SECOPS_SERVER",
  UNEXPECTED_STATUS: "SECOPS_UNEXPECTED_STATUS",
  TIMEOUT: "SECOPS_TIMEOUT",
  NETWORK: "SECOPS_NETWORK",
  AMBIGUOUS: "SECOPS_AMBIGUOUS",
  RESPONSE_INVALID: "SECOPS_RESPONSE_INVALID",
  INVALID_INPUT: "SECOPS_INVALID_INPUT",
  CONFIG: "SECOPS_CONFIG",
  INCOMPLETE: "SECOPS_INCOMPLETE",
  UNSUPPORTED: "SECOPS_UNSUPPORTED",
  WRONG_TEAM: "SECOPS_WRONG_TEAM",
  UNPROVEN: "SECOPS_UNPROVEN",
  TEAM_UNVERIFIED: "SECOPS_TEAM_UNVERIFIED",
} as const;

/** One of {@link ErrorCodes}. */
export type ErrorCode = (typeof ErrorCodes)[keyof typeof ErrorCodes];

const secrets = new Set<string>();

/** Registers a secret (an API key) for {@link redact} to remove from every error and log line. */
export function registerSecret(secret: string): void {
  if (secret === "") return;
  for (const form of encodings(secret)) secrets.add(form);
}

/**
 * Every form in which a server or proxy might echo a secret: plain, URL-encoded, JSON-escaped, and
 * base64(url) of the secret, of `Bearer <secret>` and of the whole `Authorization` header line.
 */
export function encodings(secret: string): string[] {
  const b64 = (s: string) => {
    const std = Buffer.from(s, "utf8").toString("base64");
    const url = Buffer.from(s, "utf8").toString("base64url");
    return [std, std.replace(/=+$/, ""), url];
  };
  const forms = [
    secret,
    encodeURIComponent(secret),
    encodeURIComponent(secret).replace(/%20/g, "+"),
    JSON.stringify(secret).slice(1, -1),
    ...b64(secret),
    ...b64(`Bearer ${secret}`),
    ...b64(`Authorization: Bearer ${secret}`),
  ];
  // Longest first, so a form that contains a shorter one is replaced whole.
  return [...new Set(forms)].filter((f) => f.length >= 4).sort((a, b) => b.length - a.length);
}

/** Replaces every registered secret, in each of its {@link encodings}, in `text` with `[REDACTED]`. */
export function redact(text: string): string {
  return redactValues(text, secrets);
}

/** Replaces each of `values` (already expanded to their encodings) in `text` with `[REDACTED]`. */
export function redactValues(text: string, values: Iterable<string>): string {
  let out = text;
  for (const s of values) if (out.includes(s)) out = out.split(s).join("[REDACTED]");
  return out;
}

/** Details every {@link SecOpsError} may carry. */
export interface SecOpsErrorDetails {
  /** HTTP status the API answered with; absent when no response arrived (never invented). */
  status?: number;
  /** HTTP method of the failed request. */
  method?: string;
  /** Request path (no query, no host). */
  path?: string;
  /** The API's own `message`, redacted. */
  apiMessage?: string;
  /** The underlying error (network failure, validation issue). Not enumerable: kept out of JSON. */
  cause?: unknown;
  /** For validation errors: the input field or JSON path at fault. */
  field?: string;
  /** Seconds the API asked us to wait (Retry-After), when it said so. */
  retryAfterSeconds?: number;
}

/** The codes of {@link SecOpsApiError}: the API answered, and the answer is the error. */
export type ApiErrorCode =
  | typeof ErrorCodes.AUTH
  | typeof ErrorCodes.FORBIDDEN
  | typeof ErrorCodes.NOT_FOUND
  | typeof ErrorCodes.CONFLICT
  | typeof ErrorCodes.BAD_REQUEST
  | typeof ErrorCodes.RATE_LIMITED
  | typeof ErrorCodes.SERVER
  | typeof ErrorCodes.UNEXPECTED_STATUS
  | typeof ErrorCodes.UNSUPPORTED;

/** The codes of {@link SecOpsResponseError}: a 2xx answer that cannot be used. */
export type ResponseErrorCode = typeof ErrorCodes.RESPONSE_INVALID | typeof ErrorCodes.INCOMPLETE;

/** The mark every SecOpsError carries, the same in every copy of the package (`Symbol.for`). */
const BRAND = Symbol.for("pulumi-secops.SecOpsError");

/** Base class of every error this package throws: match on `code` or the subclass, never the message. */
export abstract class SecOpsError extends Error {
  /** Stable machine-readable code, e.g. `SECOPS_NOT_FOUND`. */
  readonly code: ErrorCode;
  /** The HTTP status the API answered with; absent when no answer arrived (never invented). */
  readonly status?: number;
  /** The HTTP method of the failed request, e.g. `PATCH`. */
  readonly method?: string;
  /** The path of the failed request (no host, no query), e.g. `/v1/directory/u-1`. */
  readonly path?: string;
  /** The API's own error `message`, redacted; absent when the answer had none. */
  readonly apiMessage?: string;
  /** For input, configuration and response errors: the argument, option or JSON path at fault. */
  readonly field?: string;
  /** Seconds the API asked us to wait (its Retry-After), when it said so. */
  readonly retryAfterSeconds?: number;

  protected constructor(code: ErrorCode, message: string, details: SecOpsErrorDetails = {}) {
    super(redact(message), details.cause === undefined ? undefined : { cause: details.cause });
    // Hidden from JSON and enumeration: what another copy of this package recognises.
    Object.defineProperty(this, BRAND, { value: true });
    this.name = new.target.name;
    this.code = code;
    if (details.status !== undefined) this.status = details.status;
    if (details.method !== undefined) this.method = details.method;
    if (details.path !== undefined) this.path = details.path;
    if (details.apiMessage !== undefined) this.apiMessage = redact(details.apiMessage);
    if (details.field !== undefined) this.field = details.field;
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds;
  }

  /** What `JSON.stringify(err)` shows: the public fields, never the cause's internals. */
  toJSON(): Record<string, unknown> {
    const { name, code, message, status, method, path, apiMessage, field } = this;
    return { name, code, message, status, method, path, apiMessage, field };
  }
}

/** The API answered, and the answer is the error: a non-2xx status, or a route it lacks (UNSUPPORTED). */
export class SecOpsApiError extends SecOpsError {
  declare readonly code: ApiErrorCode;
  constructor(code: ApiErrorCode, message: string, details: SecOpsErrorDetails = {}) {
    super(code, message, details);
  }
}
/** No usable answer arrived: connection refused or reset, DNS, TLS, a stream that broke off (NETWORK). */
export class SecOpsNetworkError extends SecOpsError {
  constructor(message: string, details: SecOpsErrorDetails = {}) {
    super(ErrorCodes.NETWORK, message, details);
  }
}
/** The request did not finish within the client's timeout (TIMEOUT). */
export class SecOpsTimeoutError extends SecOpsError {
  constructor(message: string, details: SecOpsErrorDetails = {}) {
    super(ErrorCodes.TIMEOUT, message, details);
  }
}
/** A write may or may not have been applied: the caller must reconcile before trying again (AMBIGUOUS). */
export class SecOpsAmbiguousError extends SecOpsError {
  constructor(message: string, details: SecOpsErrorDetails = {}) {
    super(ErrorCodes.AMBIGUOUS, message, details);
  }
}
/** An unusable 2xx answer: it does not fit (RESPONSE_INVALID), or pages stop adding up (INCOMPLETE). */
export class SecOpsResponseError extends SecOpsError {
  declare readonly code: ResponseErrorCode;
  constructor(code: ResponseErrorCode, message: string, details: SecOpsErrorDetails = {}) {
    super(code, message, details);
  }
}
/** An argument was rejected before any request was sent (INVALID_INPUT). */
export class SecOpsInputError extends SecOpsError {
  constructor(field: string, reason: string) {
    super(ErrorCodes.INVALID_INPUT, `${field}: ${reason}`, { field });
  }
}
/** Configuration (API key, base URL, options) is missing or invalid (CONFIG). */
export class SecOpsConfigError extends SecOpsError {
  constructor(message: string, field?: string) {
    super(ErrorCodes.CONFIG, message, field === undefined ? {} : { field });
  }
}

/** The codes of {@link SecOpsSafetyError}. */
export type SafetyErrorCode =
  typeof ErrorCodes.WRONG_TEAM | typeof ErrorCodes.UNPROVEN | typeof ErrorCodes.TEAM_UNVERIFIED;

/**
 * The provider refused to act on what it cannot prove is its own, and sent nothing that could harm it:
 * the key is another team's (WRONG_TEAM), its team could not be looked up (TEAM_UNVERIFIED), or an
 * interrupted create's rule cannot be told apart (UNPROVEN).
 */
export class SecOpsSafetyError extends SecOpsError {
  declare readonly code: SafetyErrorCode;
  /** For UNPROVEN: the ids of the rules that could be the one the interrupted create made. */
  readonly candidates?: string[];
  constructor(code: SafetyErrorCode, message: string, candidates?: string[]) {
    super(code, message);
    if (candidates !== undefined) this.candidates = candidates;
  }
}

/** Maps an HTTP status to its error code. */
export function codeForStatus(status: number): ApiErrorCode {
  if (status === 401) return ErrorCodes.AUTH;
  if (status === 403) return ErrorCodes.FORBIDDEN;
  if (status === 404 || status === 410) return ErrorCodes.NOT_FOUND;
  if (status === 409) return ErrorCodes.CONFLICT;
  if (status === 429) return ErrorCodes.RATE_LIMITED;
  if (status >= 500) return ErrorCodes.SERVER;
  if (status >= 400) return ErrorCodes.BAD_REQUEST;
  return ErrorCodes.UNEXPECTED_STATUS;
}

/** True for a {@link SecOpsError} (with `code`, if given), also one from another copy of this package. */
export function isSecOpsError(err: unknown, code?: ErrorCode): err is SecOpsError {
  const branded =
    err instanceof SecOpsError ||
    (typeof err === "object" && err !== null && (err as Record<symbol, unknown>)[BRAND] === true);
  return branded && (code === undefined || (err as SecOpsError).code === code);
}
