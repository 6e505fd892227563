/**
 * `--out <file>` of the commands that write a file: checked before the API is asked, so a mistake
 * on the user's side (exit 2) never costs a request, and worded as `secops hva export` words it.
 */
import { stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { UsageError } from "./args";

/**
 * Fails with a usage error when `path` names a folder (an existing one, or a path ending with a
 * separator), when its folder does not exist, or when the file exists and `force` is not given.
 */
export async function checkOutFile(
  path: string,
  force: boolean,
  example: string,
  option = "--out",
): Promise<void> {
  const info = await stat(path).catch(() => undefined);
  if (info?.isDirectory() || path.endsWith("/") || path.endsWith(sep))
    throw new UsageError(
      `${option} ${path}: is a folder; name a file, e.g. ${option} ${join(path, example)}`,
    );
  const folder = dirname(resolve(path));
  if (!(await stat(folder).catch(() => undefined))?.isDirectory())
    throw new UsageError(`${option} ${path}: no such folder ${folder}`);
  if (info && !force) throw new UsageError(`${option} ${path}: the file exists; pass --force to replace it`);
}

/**
 * Writes `--out`, checked by {@link checkOutFile} before the API was asked: an existing file is kept
 * unless `force` (the file or its folder may have changed since: named as the check names it), and a
 * file that cannot be written is the user's mistake too (exit 2), named.
 */
export async function writeOutFile(
  path: string,
  text: string,
  force: boolean,
  example: string,
): Promise<void> {
  try {
    await writeFile(path, text, { flag: force ? "w" : "wx" });
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? "";
    if (code === "EEXIST" || code === "ENOENT") await checkOutFile(path, force, example);
    if (["EACCES", "EISDIR", "ENOTDIR"].includes(code))
      throw new UsageError(`--out ${path}: cannot be written (${code})`);
    throw err;
  }
}
