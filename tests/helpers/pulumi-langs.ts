/**
 * Python and Go beside the real Pulumi CLI (tests/helpers/pulumi-cli.ts): the SDK generator command
 * and a Python virtualenv, both made by .ci/pulumi-langs/build.sh into .ci-cache/ when missing, and
 * a Pulumi Python project of examples/python-multi-team in a folder of its own.
 *
 * Pulumi's Python and Go language hosts cannot be built here (the Go module proxy refuses their
 * modules: see .ci/pulumi-langs/build.sh), so a `runtime: python` project cannot run under the CLI
 * alone: each operation runs the project's __main__.py through the Python Automation API
 * (examples/python-multi-team/automate.py), whose language server is the `pulumi` package's own, as
 * the Node.js programs run through @pulumi/pulumi's (tests/helpers/pulumi-stack.ts). Every other step
 * (`pulumi stack init`, `config set`, `stack export`, `import`) is the `pulumi` command a user types.
 */
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { cliEnv, exec, pulumiCli, type Ran } from "./pulumi-cli";
import { ROOT } from "./spawn";

const BUILD = join(ROOT, ".ci", "pulumi-langs", "build.sh");
const found = new Map<string, string>();

/** `.ci/pulumi-langs/build.sh <what>`'s path (built once per process; the script itself caches). */
function built(what: "gen-sdk" | "python"): string {
  let path = found.get(what);
  if (!path) {
    path = execFileSync(BUILD, [what], { encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] }).trim();
    found.set(what, path);
  }
  return path;
}

/** The secops-gen-sdk command (Pulumi's code generators at the CLI's release). */
export const genSdk = (): string => built("gen-sdk");

/** The Python interpreter of a virtualenv with `pulumi` from PyPI and the SDK of sdk/python/. */
export const python = (): string => join(built("python"), "bin", "python");

/** What automate.py printed last: the operation's result. */
export interface PyResult {
  ok: boolean;
  changeSummary?: Record<string, number>;
  summary?: Record<string, number>;
  outputs?: Record<string, unknown>;
  /** The CLI's error (its stdout and stderr included) when !ok. */
  message?: string;
}

export interface PythonProject {
  dir: string;
  /** `python automate.py <args>` in the project: one operation on stack dev. */
  automate(...args: string[]): Promise<PyResult>;
  /** `pulumi <args> --non-interactive` in the project's folder, as a user types it. */
  pulumi(...args: string[]): Promise<Ran>;
  remove(): void;
}

/**
 * A copy of examples/python-multi-team (its __main__.py replaced by `program` when given) with a
 * file backend of its own and stack `dev` created. `plugin`: this checkout's bin/ on PATH (the npm
 * package's plugin), or only what `pulumi plugin install` put in the project's PULUMI_HOME, with no
 * Node.js on PATH (`PATH` is then the CLI's folder alone).
 */
export async function pythonProject(
  prefix: string,
  options: { program?: string; plugin?: "path" | "installed" } = {},
): Promise<PythonProject> {
  const interpreter = python();
  const cli = pulumiCli();
  const dir = mkdtempSync(join(tmpdir(), `secops-${prefix}-`));
  const example = join(ROOT, "examples", "python-multi-team");
  for (const f of ["Pulumi.yaml", "__main__.py", "automate.py"]) copyFileSync(join(example, f), join(dir, f));
  if (options.program !== undefined) writeFileSync(join(dir, "__main__.py"), options.program);
  mkdirSync(join(dir, ".backend"));
  const path =
    options.plugin === "installed"
      ? cli.bin
      : [cli.bin, join(ROOT, "bin"), process.env.PATH ?? ""].join(delimiter);
  const env = { ...cliEnv(join(dir, ".backend")), PATH: path };
  const pulumi = (...args: string[]) =>
    exec(join(cli.bin, "pulumi"), [...args, "--non-interactive"], dir, { ...process.env, ...env });
  const automate = async (...args: string[]): Promise<PyResult> => {
    const r = await exec(interpreter, [join(dir, "automate.py"), ...args], dir, { ...process.env, ...env });
    const line = r.stdout.trim().split("\n").pop() ?? "";
    try {
      return JSON.parse(line) as PyResult;
    } catch {
      throw new Error(`automate.py printed no result (exit ${r.code}): ${r.stderr || r.stdout}`);
    }
  };
  const init = await pulumi("stack", "init", "dev");
  if (init.code !== 0) throw new Error(`pulumi stack init failed: ${init.stderr}`);
  return { dir, automate, pulumi, remove: () => rmSync(dir, { recursive: true, force: true }) };
}
