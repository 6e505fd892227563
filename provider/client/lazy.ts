/**
 * Modules loaded on first use, so `require("pulumi-secops")` costs little more than @pulumi/pulumi
 * itself. None of them imports this one: no import circle.
 */
import type * as Schemas from "./schemas";
import type * as Undici from "undici";
import type * as CsvExport from "./csv-export";

/** `load` run on the first call only; later calls return what it returned. */
function once<T>(load: () => T): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= load());
}

/** The validation module (zod schemas, input and response parsing). */
export const validation = once(() => require("./schemas") as typeof Schemas);

/** undici, through its public entry (Agent, FormData), loaded with the first client. */
export const undici = once(() => require("undici") as typeof Undici);

/** The CSV export to a file, with node:fs/promises and node:stream/promises it alone needs. */
export const csvExport = once(() => require("./csv-export") as typeof CsvExport);
