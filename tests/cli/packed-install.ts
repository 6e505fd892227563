/**
 * pulumi-secops in a program's node_modules as installing its tarball leaves it, for the tests that run
 * what a user copies (tests/engine/cli-docs.test.ts, tests/engine/cli-ci-drift.test.ts): the files
 * `npm pack` puts in the tarball (of the built dist/), extracted to node_modules/pulumi-secops, its
 * commands in node_modules/.bin, and its dependencies linked from this checkout's node_modules (the
 * locked versions an install fetches). Nothing else of the checkout: another package (@pulumi/pulumi,
 * @pulumi/policy) is there only when the program's install names it, as `installNamed` links it. A
 * checkout linked as the package instead resolves the checkout's devDependencies, which is how the
 * policy pack's missing @pulumi/policy went unseen (issue 56).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { ROOT, built } from "../helpers/spawn";

const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as {
  name: string;
  version: string;
  bin: Record<string, string>;
  dependencies: Record<string, string>;
};

/** The tarball's file name, as `npm pack` writes it. */
export const TARBALL = `${pkg.name}-${pkg.version}.tgz`;

/** Links `name` into `modules` from this checkout's node_modules (the version it locks). */
function link(modules: string, name: string): void {
  mkdirSync(dirname(join(modules, name)), { recursive: true });
  rmSync(join(modules, name), { recursive: true, force: true });
  symlinkSync(join(ROOT, "node_modules", name), join(modules, name), "dir");
}

/**
 * Packs the built package (`npm pack --ignore-scripts`: dist/ is built already) and installs the
 * tarball into `program`'s node_modules, replacing what was there under that name.
 */
export function installPacked(program: string): void {
  built("index.js");
  const work = mkdtempSync(join(tmpdir(), "secops-packed-"));
  try {
    execFileSync("npm", ["pack", "--ignore-scripts", "--silent", "--pack-destination", work], {
      cwd: ROOT,
      stdio: ["ignore", "ignore", "pipe"],
      env: { ...process.env, npm_config_update_notifier: "false" },
    });
    const modules = join(program, "node_modules");
    const target = join(modules, pkg.name);
    rmSync(target, { recursive: true, force: true });
    mkdirSync(target, { recursive: true });
    execFileSync("tar", ["-xzf", join(work, TARBALL), "-C", target, "--strip-components=1"]);
    for (const dep of Object.keys(pkg.dependencies)) link(modules, dep);
    mkdirSync(join(modules, ".bin"), { recursive: true });
    for (const [command, file] of Object.entries(pkg.bin)) {
      chmodSync(join(target, file), 0o755);
      rmSync(join(modules, ".bin", command), { force: true });
      symlinkSync(relative(join(modules, ".bin"), join(target, file)), join(modules, ".bin", command));
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

/** Installs packages by name (`npm install @pulumi/policy`): each linked from this checkout's node_modules. */
export function installNamed(program: string, names: string[]): void {
  for (const name of names) link(join(program, "node_modules"), name);
}
