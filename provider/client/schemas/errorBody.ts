/** The API's error body: `{ message, statusCode }`. NestJS-style services may send `message` as a list. */
import { z } from "zod";

/** The public ErrorBody type's schema (the transport reads error bodies leniently: body.ts). */
export const errorBodySchema = z
  .looseObject({
    message: z.union([z.string(), z.array(z.string())]).nullish(),
    statusCode: z.number().int().nullish(),
  })
  .describe("The API's error body. NestJS-style services may send `message` as a list.");
