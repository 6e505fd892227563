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
import { execFileSync, spawn } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { ROOT } from "./spawn";

export interface PulumiCli {
  /** The folder holding `pulumi` (and, for a built one, `pulumi-resource-pulumi-nodejs`). */
  bin: string;
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
  found = { bin };
  return found;
}

/**
 * A program folder whose node_modules resolve `pulumi-secops` (this checkout), `secops-sim` (its
 * simulator package, as a user installs it beside) and `@pulumi/pulumi`.
 */
export function programDir(prefix: string): { dir: string; backend: string; remove(): void } {
  const dir = mkdtempSync(join(tmpdir(), `secops-engine-${prefix}-`));
  const backend = join(dir, ".backend");
  mkdirSync(join(dir, "node_modules", "@pulumi"), { recursive: true });
  mkdirSync(backend);
  symlinkSync(ROOT, join(dir, "node_modules", "pulumi-secops"), "dir");
  symlinkSync(join(ROOT, "simulator"), join(dir, "node_modules", "secops-sim"), "dir");
  symlinkSync(
    dirname(require.resolve("@pulumi/pulumi/package.json")),
    join(dir, "node_modules", "@pulumi", "pulumi"),
    "dir",
  );
  return { dir, backend, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** What a command printed and how it ended. */
export interface Ran {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `cmd args` in `cwd` to its end; never rejects for a non-zero exit. */
export function exec(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<Ran> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { cwd, env });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
  });
}

/**
 * The CLI's environment for a project whose state lives under `state`: a local file backend, its own
 * PULUMI_HOME, a passphrase secrets provider, no update checks, the CLI first on PATH.
 */
export function cliEnv(state: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PULUMI_BACKEND_URL: `file://${state}`,
    PULUMI_HOME: join(state, "home"),
    PULUMI_CONFIG_PASSPHRASE: "engine-tests",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
    PATH: [pulumiCli().bin, process.env.PATH ?? ""].join(delimiter),
    ...(process.env.SECOPS_INTENT_DIR ? { SECOPS_INTENT_DIR: process.env.SECOPS_INTENT_DIR } : {}),
    ...extra,
  };
}

/** A Pulumi YAML project of examples/yaml-hva-rules, as `npm install` of this package leaves it. */
export function yamlProject(prefix: string): {
  dir: string;
  env(extra?: Record<string, string>): Record<string, string>;
  remove(): void;
} {
  const dir = mkdtempSync(join(tmpdir(), `secops-${prefix}-`));
  mkdirSync(join(dir, ".backend"));
  mkdirSync(join(dir, "node_modules"));
  symlinkSync(ROOT, join(dir, "node_modules", "pulumi-secops"), "dir");
  copyFileSync(join(ROOT, "examples", "yaml-hva-rules", "Pulumi.yaml"), join(dir, "Pulumi.yaml"));
  return {
    dir,
    env: (extra = {}) => cliEnv(join(dir, ".backend"), extra),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** The release archive of this build (`npm run package:plugin`), made when missing or older than the bundle. */
export async function releaseArchive(): Promise<string> {
  const { VERSION } = await import("pulumi-secops");
  const archive = join(ROOT, "dist", "release", `pulumi-resource-secops-v${VERSION}-linux-amd64.tar.gz`);
  const bundle = join(ROOT, "dist", "plugin", "pulumi-resource-secops.js");
  if (!existsSync(archive) || statSync(archive).mtimeMs < statSync(bundle).mtimeMs) {
    const made = await exec(
      process.execPath,
      [join(ROOT, "scripts", "package-plugin.js")],
      ROOT,
      process.env,
    );
    if (made.code !== 0) throw new Error(`npm run package:plugin failed:\n${made.stdout}${made.stderr}`);
  }
  return archive;
}
