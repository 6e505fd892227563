/** The API's error body: `{ message, statusCode }`. NestJS-style services may send `message` as a list. */
import { z } from "zod";

/**
 * Schema of an error response body (the public ErrorBody type). The transport
 * reads error bodies leniently with body.ts `apiErrorBody` (a body that does not fit is not used).
 */
export const errorBodySchema = z
  .looseObject({
    message: z.union([z.string(), z.array(z.string())]).nullish(),
    statusCode: z.number().int().nullish(),
  })
  .describe("The API's error body. NestJS-style services may send `message` as a list.");
