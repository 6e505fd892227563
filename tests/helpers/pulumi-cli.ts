/**
 * The real Pulumi CLI for the engine tests: `pulumi` from PATH when there is one, else the pinned
 * release built from its Go modules by .ci/pulumi-cli/build.sh (once, into .ci-cache/). A test that
 * needs the CLI never skips: without `pulumi` and without Go it fails with one line saying how to get it.
 *
 * Programs run as the Automation API's inline programs (LocalWorkspace with `program`): the language
 * server is @pulumi/pulumi's own, in the test's process. Pulumi's Node.js language host
 * (pulumi-language-nodejs) cannot be built here: the Go module proxy refuses its module at every
 * version asked (see .ci/pulumi-cli/build.sh).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { ROOT } from "./spawn";

export interface PulumiCli {
  /** The folder holding `pulumi` (and, for a built one, `pulumi-resource-pulumi-nodejs`). */
  bin: string;
  version: string;
}

let found: PulumiCli | undefined;

const onPath = (): string | undefined => {
  for (const dir of (process.env.PATH ?? "").split(delimiter))
    if (dir && existsSync(join(dir, "pulumi"))) return dir;
  return undefined;
};

/** Finds or builds the CLI (see the module comment); throws one line when neither is possible. */
export function pulumiCli(): PulumiCli {
  if (found) return found;
  let bin = process.env.SECOPS_PULUMI_BIN ?? onPath();
  if (!bin) {
    const hasGo = (process.env.PATH ?? "").split(delimiter).some((d) => d && existsSync(join(d, "go")));
    if (!hasGo)
      throw new Error(
        "these tests need the Pulumi CLI: put `pulumi` (3.249 or later) on PATH, or install Go 1.26+ so .ci/pulumi-cli/build.sh can build the pinned release",
      );
    bin = execFileSync(join(ROOT, ".ci", "pulumi-cli", "build.sh"), {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "inherit"],
    }).trim();
  }
  const version = execFileSync(join(bin, "pulumi"), ["version"], {
    encoding: "utf8",
    env: { ...process.env, PULUMI_SKIP_UPDATE_CHECK: "true" },
  }).trim();
  found = { bin, version };
  return found;
}

/** A program folder whose node_modules resolve `pulumi-secops` (this checkout) and `@pulumi/pulumi`. */
export function programDir(prefix: string): { dir: string; backend: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `secops-engine-${prefix}-`));
  const backend = join(dir, ".backend");
  mkdirSync(join(dir, "node_modules", "@pulumi"), { recursive: true });
  mkdirSync(backend);
  symlinkSync(ROOT, join(dir, "node_modules", "pulumi-secops"), "dir");
  symlinkSync(
    dirname(require.resolve("@pulumi/pulumi/package.json")),
    join(dir, "node_modules", "@pulumi", "pulumi"),
    "dir",
  );
  return { dir, backend, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
