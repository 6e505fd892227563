/** Streaming the CSV export to a file (see {@link SecOpsClient.exportCasesCsvToFile}). */
import { createWriteStream } from "node:fs";
import { rename, rm, stat } from "node:fs/promises";
import { dirname, resolve } from "node:path";
import { type Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import { SecOpsError, SecOpsInputError, SecOpsNetworkError } from "./errors";
import { routes } from "./routes";
import { idSchema, parseInput } from "./schemas";
import type { CsvExportOptions, CsvExportToFileOptions } from "./types";

/** Streams `open()`'s export to `path`, checking the folder before anything is sent. */
export async function exportToFile(
  path: string,
  options: CsvExportToFileOptions | ((bytes: number) => void),
  open: (options: CsvExportOptions) => Promise<Readable>,
): Promise<{ bytes: number }> {
  parseInput(idSchema, path, "path");
  // A bare function is the progress callback (the 0.1 signature).
  const { onProgress, ...rest } = typeof options === "function" ? { onProgress: options } : options;
  if (onProgress !== undefined && typeof onProgress !== "function")
    throw new SecOpsInputError("options.onProgress", "must be a function");
  // Before any request: the folder that would hold `path` must exist and be a folder.
  const folder = dirname(resolve(path));
  if (!(await stat(folder).catch(() => undefined))?.isDirectory())
    throw new SecOpsInputError("path", `the folder ${folder} does not exist`);
  const source = await open(rest);
  const partial = `${path}.partial`;
  let bytes = 0;
  const count = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      onProgress?.(bytes);
      done(null, chunk);
    },
  });
  try {
    await pipeline(source, count, createWriteStream(partial));
    await rename(partial, path);
  } catch (err) {
    await rm(partial, { force: true });
    // Our own errors and local file errors (EACCES, ENOSPC: they carry a path) pass through as they are.
    if (err instanceof SecOpsError || (err as NodeJS.ErrnoException)?.path !== undefined) throw err;
    throw new SecOpsNetworkError(
      `POST ${routes.casesExportCsv()}: the export stream failed: ${String((err as Error)?.message ?? err)}`,
      { method: "POST", path: routes.casesExportCsv(), cause: err },
    );
  }
  return { bytes };
}
