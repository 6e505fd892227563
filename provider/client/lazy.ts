/**
 * Modules loaded on first use, so `require("pulumi-secops")` costs little more than @pulumi/pulumi
 * itself: zod and the schemas (validation) and undici (the transport) load with the first client or
 * request. Every module typed here sits below this one (none of them imports it): no import circle.
 */
import type * as Validation from "./validate";
import type * as Undici from "undici";
import type * as CsvExport from "./csv-export";

let validationModule: typeof Validation | undefined;
let undiciModule: typeof Undici | undefined;
let cryptoModule: typeof import("node:crypto") | undefined;
let csvExportModule: typeof CsvExport | undefined;

/** The validation module (zod schemas, input and response parsing). */
export function validation(): typeof Validation {
  return (validationModule ??= require("./validate") as typeof Validation);
}

/** undici, through its public entry (Agent, FormData), loaded with the first client. */
export function undici(): typeof Undici {
  return (undiciModule ??= require("undici") as typeof Undici);
}

/**
 * node:crypto, loaded with its first use (a request id, a multipart boundary, a hash): loading it starts
 * OpenSSL, 3 MB of resident memory on Node 26 (1 MB on Node 22) in every plugin, and a plugin that only
 * answers a preview's Check and Diff never needs it (issue 22).
 */
export function nodeCrypto(): typeof import("node:crypto") {
  return (cryptoModule ??= require("node:crypto") as typeof import("node:crypto"));
}

/** The CSV export to a file, with node:fs/promises and node:stream/promises it alone needs. */
export function csvExport(): typeof CsvExport {
  return (csvExportModule ??= require("./csv-export") as typeof CsvExport);
}
