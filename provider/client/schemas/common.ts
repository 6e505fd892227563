/**
 * Building blocks shared by every schema, after the spec's conventions: optional fields may be absent
 * or null (`nullish`), unknown keys are kept (`looseObject`), and enumerations are open.
 */
import { z } from "zod";
import { ErrorCodes, SecOpsInputError, SecOpsResponseError } from "../errors";
import { LONE_SURROGATE, isDotSegment } from "../ids";

export { isDotSegment } from "../ids";

/** Space-separated words of a string literal, as a union type. */
type Words<S extends string> = S extends `${infer H} ${infer R}` ? H | Words<R> : S;

/** A shape with every name in `names` (each a space-separated list) mapped to `schema`. */
export function fields<T extends z.ZodType, const S extends string[]>(
  schema: T,
  ...names: S
): { [K in Words<S[number]>]: T } {
  const shape: Record<string, T> = {};
  for (const n of names.join(" ").split(/\s+/)) if (n) shape[n] = schema;
  return shape as { [K in Words<S[number]>]: T };
}

/** An optional (absent or null) string. */
export const optString = z.string().nullish();
/** An optional boolean. */
export const optBool = z.boolean().nullish();
/** An optional integer. */
export const optInt = z.number().int().nullish();
/** An optional ISO 8601 timestamp, kept as the string the API sent. */
export const optTimestamp = z.string().nullish();
/** An optional free-form JSON object. */
export const optObject = z.record(z.string(), z.unknown()).nullish();
/** An optional array of strings. */
export const optStrings = z.array(z.string()).nullish();

/**
 * An open enumeration: typed as the known values (its `knownValues` metadata) or any other string, so
 * a new server-side value never breaks a deployment.
 */
export function openEnum<const T extends readonly string[]>(known: T): z.ZodType<T[number] | (string & {})> {
  return z.string().meta({ knownValues: known }) as unknown as z.ZodType<T[number] | (string & {})>;
}

/** An optional open enumeration. */
export function optEnum<const T extends readonly string[]>(known: T) {
  return openEnum(known).nullish();
}

/** An optional array of objects of the given shape. */
export function optArrayOf<T extends z.ZodType>(schema: T) {
  return z.array(schema).nullish();
}

/** Formats a zod issue path as a JSON path: `$.data[3].files[0].metadata.story`. */
export function jsonPath(path: readonly PropertyKey[]): string {
  let out = "$";
  for (const p of path) out += typeof p === "number" ? `[${p}]` : `.${String(p)}`;
  return out;
}

/**
 * Parses an API response. A body that does not fit fails with `SECOPS_RESPONSE_INVALID` naming the
 * JSON path of the first problem, e.g. `GET /v1/auth/me: response $.role: expected string, received number`.
 */
export function parseResponse<T extends z.ZodType>(
  schema: T,
  data: unknown,
  method: string,
  path: string,
): z.output<T> {
  const result = schema.safeParse(data);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const at = jsonPath(issue.path);
  const more = result.error.issues.length > 1 ? ` (and ${result.error.issues.length - 1} more)` : "";
  throw new SecOpsResponseError(
    ErrorCodes.RESPONSE_INVALID,
    `${method} ${path}: response ${at} does not fit the API schema: ${issue.message}${more}`,
    { method, path, field: at, cause: result.error },
  );
}

/**
 * Validates a caller's argument before anything is sent. A bad value fails with
 * `SECOPS_INVALID_INPUT` naming the field, e.g. `filter.healthStatus[1]: Invalid option: expected one of ...`.
 */
export function parseInput<T extends z.ZodType>(schema: T, value: unknown, name: string): z.output<T> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  let field = name + jsonPath(issue.path).slice(1);
  if (issue.code === "unrecognized_keys") field += `.${issue.keys[0]}`;
  throw new SecOpsInputError(
    field,
    issue.code === "unrecognized_keys" ? "is not a known field" : issue.message,
  );
}

/**
 * An identifier that goes into a path: not blank, not (decoding to) a dot segment, which would address
 * another route, and without lone surrogates, which cannot be encoded into a URL.
 */
export const idSchema = z
  .string({ error: "must be a non-empty string" })
  .refine((v) => v.trim() !== "", "must be a non-empty string")
  .refine((v) => !LONE_SURROGATE.test(v), "contains a lone surrogate (not valid Unicode)")
  .refine(
    (v) => !isDotSegment(v),
    "must not be . or .. (or decode to them): that would address another route",
  );
