/** The API's error body: `{ message, statusCode }`. NestJS-style services may send `message` as a list. */
import { z } from "zod";

/** Schema of an error response body. Lenient: a body that does not fit is simply not used. */
export const errorBodySchema = z.looseObject({
  message: z.union([z.string(), z.array(z.string())]).nullish(),
  statusCode: z.number().int().nullish(),
});

/** The API's message from a parsed body, or undefined when there is none. */
export function errorMessage(body: unknown): string | undefined {
  const parsed = errorBodySchema.safeParse(body);
  if (!parsed.success || parsed.data.message == null) return undefined;
  const m = parsed.data.message;
  return Array.isArray(m) ? m.join("; ") : m;
}
