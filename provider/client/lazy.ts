/**
 * Modules loaded on first use, so `require("pulumi-secops")` costs little more than @pulumi/pulumi
 * itself: zod and the schemas (validation) and undici (the transport) load with the first request.
 */
import type * as Validation from "./validate";
import type * as Undici from "undici";

let validationModule: typeof Validation | undefined;
let undiciModule: typeof Undici | undefined;

/** The validation module (zod schemas, input and response parsing). */
export function validation(): typeof Validation {
  return (validationModule ??= require("./validate") as typeof Validation);
}

/** undici. */
export function undici(): typeof Undici {
  return (undiciModule ??= require("undici") as typeof Undici);
}
