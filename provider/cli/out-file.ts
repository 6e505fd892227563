/** `--out <file>`: checked before the API is asked, so a user's mistake (exit 2) costs no request. */
import { stat, writeFile } from "node:fs/promises";
import { dirname, join, resolve, sep } from "node:path";
import { UsageError } from "./args";

/** Fails with a usage error when `path` is a folder, its folder is missing, or it exists without `force`. */
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

/** Writes `--out`, keeping an existing file unless `force`; a failure is said as the check says it. */
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
