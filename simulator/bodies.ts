/**
 * Reading request bodies in the simulator: JSON and multipart with size limits (413 past them, never
 * silent truncation), and the control token compared in constant time.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage } from "node:http";
import busboy from "busboy";
import type * as api from "./api";

/** Largest request body accepted (bytes). */
const MAX_BODY = 16 * 1024 * 1024;
/** Largest attachment accepted (bytes). */
const ATTACHMENT_LIMIT = 10 * 1024 * 1024;

/** A request body or attachment over a limit: answered 413. */
export class TooLarge extends Error {}

/** Compares control tokens in constant time (hashes first, so lengths never leak either). */
export function tokenMatches(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== "string") return false;
  const digest = (v: string) => createHash("sha256").update(v).digest();
  return timingSafeEqual(digest(given), digest(expected));
}

export async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const c of req) {
    size += (c as Buffer).length;
    if (size > MAX_BODY) throw new TooLarge("request entity too large");
    chunks.push(c as Buffer);
  }
  return Buffer.concat(chunks).toString("utf8");
}

export async function readJson(req: IncomingMessage): Promise<unknown> {
  const text = await readBody(req);
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    throw new Error(`Unexpected token in JSON body: ${(err as Error).message}`, { cause: err });
  }
}

export function readMultipart(req: IncomingMessage): Promise<NonNullable<api.Ctx["parts"]>> {
  return new Promise((resolve, reject) => {
    const parts: NonNullable<api.Ctx["parts"]> = { fields: {}, files: [] };
    let bb: busboy.Busboy;
    try {
      bb = busboy({ headers: req.headers, limits: { fileSize: ATTACHMENT_LIMIT, files: 20 } });
    } catch {
      reject(new Error("request body must be multipart/form-data"));
      return;
    }
    bb.on("field", (name, value) => (parts.fields[name] = value));
    bb.on("file", (_name, stream, info) => {
      const chunks: Buffer[] = [];
      // Over the limit: 413, never a silently truncated attachment.
      stream.on("limit", () => {
        req.unpipe(bb);
        req.resume();
        reject(new TooLarge(`attachment ${info.filename ?? ""} is over the ${ATTACHMENT_LIMIT}-byte limit`));
      });
      stream.on("data", (c: Buffer) => chunks.push(c));
      stream.on("end", () =>
        parts.files.push({
          filename: info.filename ?? "",
          contentType: info.mimeType,
          data: Buffer.concat(chunks),
        }),
      );
    });
    bb.on("error", reject);
    bb.on("close", () => resolve(parts));
    req.pipe(bb);
  });
}
