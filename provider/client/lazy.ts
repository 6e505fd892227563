/**
 * Modules loaded on first use, so `require("pulumi-secops")` costs little more than @pulumi/pulumi
 * itself. None of them imports this one: no import circle.
 */
import type * as Validation from "./validate";
import type * as Undici from "undici";
import type * as CsvExport from "./csv-export";

let validationModule: typeof Validation | undefined;
let undiciModule: typeof Undici | undefined;
let csvExportModule: typeof CsvExport | undefined;

/** The validation module (zod schemas, input and response parsing). */
export function validation(): typeof Validation {
  return (validationModule ??= require("./validate") as typeof Validation);
}

/** undici, through its public entry (Agent, FormData), loaded with the first client. */
export function undici(): typeof Undici {
  return (undiciModule ??= require("undici") as typeof Undici);
}

/** The CSV export to a file, with node:fs/promises and node:stream/promises it alone needs. */
export function csvExport(): typeof CsvExport {
  return (csvExportModule ??= require("./csv-export") as typeof CsvExport);
}
