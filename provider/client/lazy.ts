/**
 * Modules loaded on first use, so `require("pulumi-secops")` costs little more than @pulumi/pulumi
 * itself: zod and the schemas (validation) and undici (the transport) load with the first request.
 */
import type * as Validation from "./validate";
import type { Agent, FormData } from "undici";
import type { NodeHttpDispatcher } from "./node-http";
import type * as CsvExport from "./csv-export";

let validationModule: typeof Validation | undefined;
let agentClass: typeof Agent | undefined;
let formDataClass: typeof FormData | undefined;
let nodeDispatcherClass: typeof NodeHttpDispatcher | undefined;
let cryptoModule: typeof import("node:crypto") | undefined;
let csvExportModule: typeof CsvExport | undefined;

/** The validation module (zod schemas, input and response parsing). */
export function validation(): typeof Validation {
  return (validationModule ??= require("./validate") as typeof Validation);
}

/**
 * undici's Agent, loaded alone: undici's index also loads fetch, WebSocket, EventSource, the mock agent
 * and the caches, 5.3 MB of heap where the Agent and its request API need 2 (issue 22: a plugin runs
 * per team). The paths are undici's own files (the package has no exports map), and the request API is
 * put on the dispatchers' prototype as undici's index does (once; the index does the same if loaded).
 * Should a later undici move them, its index is the fallback.
 */
export function undiciAgent(): typeof Agent {
  if (agentClass) return agentClass;
  try {
    const dispatcher = require("undici/lib/dispatcher/dispatcher") as { prototype: object };
    if (!("request" in dispatcher.prototype)) Object.assign(dispatcher.prototype, require("undici/lib/api"));
    agentClass = require("undici/lib/dispatcher/agent") as typeof Agent;
  } catch {
    agentClass = (require("undici") as { Agent: typeof Agent }).Agent;
  }
  return agentClass;
}

/** undici's FormData (multipart comment edits), loaded alone as {@link undiciAgent} is. */
export function undiciFormData(): typeof FormData {
  if (formDataClass) return formDataClass;
  try {
    formDataClass = (require("undici/lib/web/fetch/formdata") as { FormData: typeof FormData }).FormData;
  } catch {
    formDataClass = (require("undici") as { FormData: typeof FormData }).FormData;
  }
  return formDataClass;
}

/** The `transport: "node"` sender (node-http.ts): no undici module is loaded for it. */
export function nodeHttpDispatcher(): typeof NodeHttpDispatcher {
  return (nodeDispatcherClass ??= (require("./node-http") as typeof import("./node-http"))
    .NodeHttpDispatcher);
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
