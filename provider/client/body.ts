/** Response bodies: the size cap (Content-Length first, then while streaming), JSON, the API's error body. */
import type { Dispatcher } from "undici";
import { ErrorCodes, SecOpsResponseError } from "./errors";

/** Where a body came from, for messages. */
export interface BodySource {
  method: string;
  path: string;
}

/** A response body too large to accept. Final: sending again would move the same bytes again. */
export class TooLargeError extends SecOpsResponseError {}

function tooLarge(src: BodySource, cap: number, declared?: number): TooLargeError {
  const what =
    declared === undefined
      ? `exceeds the ${cap}-byte limit (not retried)`
      : `declares ${declared} bytes, over the ${cap}-byte limit (refused before reading; not retried)`;
  return new TooLargeError(ErrorCodes.RESPONSE_INVALID, `${src.method} ${src.path}: response body ${what}`, {
    method: src.method,
    path: src.path,
  });
}

/** Refuses a body whose Content-Length is over `cap` before reading it. */
export function checkDeclaredLength(
  headers: Record<string, string | string[] | undefined>,
  cap: number,
  src: BodySource,
): void {
  const raw = headers["content-length"];
  const declared = Number(Array.isArray(raw) ? raw[0] : raw);
  if (Number.isFinite(declared) && declared > cap) throw tooLarge(src, cap, declared);
}

/** Reads a body as UTF-8 text, refusing more than `cap` bytes (counted as it streams, unless declared). */
export async function readCapped(
  body: Dispatcher.ResponseData["body"],
  cap: number,
  src: BodySource,
  headers: Record<string, string | string[] | undefined> = {},
): Promise<string> {
  const declared = Number(headers["content-length"]);
  if (Number.isInteger(declared) && declared >= 0 && declared <= cap) return body.text();
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    size += (chunk as Buffer).length;
    if (size > cap) {
      body.destroy();
      throw tooLarge(src, cap);
    }
    chunks.push(chunk as Buffer);
  }
  return chunks.length === 1 ? chunks[0].toString("utf8") : Buffer.concat(chunks, size).toString("utf8");
}

/**
 * Parses JSON; a body that is not fails naming its content type only, without a cause: the parser's
 * message quotes the body, which may echo a secret.
 */
export function parseJson(text: string, contentType: unknown, status: number, src: BodySource): unknown {
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
export interface ApiErrorBody {
  message?: string;
  statusCode?: number;
}

/** Reads the API's error body from text; a body that is not the API's JSON form gives undefined. */
export function apiErrorBody(text: string): ApiErrorBody | undefined {
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
