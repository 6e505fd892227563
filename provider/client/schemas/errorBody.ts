/** The API's error body: `{ message, statusCode }`. NestJS-style services may send `message` as a list. */
import { z } from "zod";

/**
 * Schema of an error response body, for the public ErrorBody type's conformance test. The transport
 * reads error bodies leniently with body.ts `apiErrorBody` (a body that does not fit is not used).
 */
export const errorBodySchema = z.looseObject({
  message: z.union([z.string(), z.array(z.string())]).nullish(),
  statusCode: z.number().int().nullish(),
});
