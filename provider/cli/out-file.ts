/**
 * `--out <file>` of the commands that write a file: checked before the API is asked, so a mistake
 * on the user's side (exit 2) never costs a request, and worded as `secops hva export` words it.
 */
import { stat } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { UsageError } from "./common";

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
