/**
 * A stack run by the real Pulumi CLI (tests/helpers/pulumi-cli.ts): a local file backend, a
 * passphrase secrets provider, no update checks, a PULUMI_HOME of its own, and the native plugin
 * found on PATH (this checkout's bin/, as `npm install` links it). Its program is a file copied into a
 * folder of its own whose node_modules link this package; each operation runs through the Automation
 * API in a process of its own (automation-driver.js), as a user's automation program would.
 */
import { copyFileSync } from "node:fs";
import { delimiter, extname, join } from "node:path";
import { cliEnv, exec, programDir, pulumiCli, type Ran } from "./pulumi-cli";
import { ROOT } from "./spawn";

const DRIVER = join(__dirname, "automation-driver.js");

export interface OpResult {
  ok: boolean;
  /** The update's resource changes (up, refresh, destroy). */
  summary?: Record<string, number>;
  /** The preview's planned changes. */
  changeSummary?: Record<string, number>;
  outputs?: Record<string, unknown>;
  /** The Automation API's error (the CLI's output included) when !ok. */
  message?: string;
  stdout: string;
  stderr: string;
}

export interface EngineStack {
  /** The program's folder (its node_modules link this package). */
  dir: string;
  /** The program file each operation evaluates (a copy; write it to change the program). */
  program: string;
  /** Runs one operation of the Automation API (options as its preview/up/refresh/destroy take them). */
  op(
    op: "init" | "preview" | "up" | "refresh" | "destroy",
    options?: Record<string, unknown>,
  ): Promise<OpResult>;
  /** Runs `pulumi <args> --stack dev --non-interactive` in the program's folder. */
  pulumi(args: string[]): Promise<Ran>;
  /** Runs `pulumi <args>` in the program's folder, with the stack's environment and no stack flag. */
  cli(args: string[]): Promise<Ran>;
  /** `pulumi config set [--secret] <key> <value>`. */
  config(key: string, value: string, secret?: boolean): Promise<void>;
  remove(): void;
}

/** Creates stack `dev` of `project` whose program is a copy of `program` (a .ts or .js file). */
export async function engineStack(
  project: string,
  program: string,
  extraEnv: Record<string, string> = {},
  /** Where the engine finds the native plugin: this checkout's bin/ on PATH, or only what is installed. */
  plugin: "path" | "installed" = "path",
): Promise<EngineStack> {
  const cli = pulumiCli();
  const p = programDir(project);
  const file = join(p.dir, `index${extname(program)}`);
  copyFileSync(program, file);
  const env = cliEnv(p.backend, {
    PATH: [cli.bin, ...(plugin === "path" ? [join(ROOT, "bin")] : []), process.env.PATH ?? ""].join(
      delimiter,
    ),
    ...extraEnv,
  });
  const op: EngineStack["op"] = async (name, options = {}) => {
    const request = { project, workDir: p.dir, program: file, op: name, options, cli: cli.bin, env };
    const r = await exec(process.execPath, [DRIVER, JSON.stringify(request)], ROOT, {
      ...process.env,
      ...env,
    });
    const line = r.stdout.trim().split("\n").pop() ?? "";
    try {
      return JSON.parse(line) as OpResult;
    } catch {
      throw new Error(`the automation driver printed no result (exit ${r.code}): ${r.stderr || r.stdout}`);
    }
  };
  const run = (args: string[]) => exec(join(cli.bin, "pulumi"), args, p.dir, { ...process.env, ...env });
  const pulumi = (args: string[]) => run([...args, "--stack", "dev", "--non-interactive"]);
  const init = await op("init");
  if (!init.ok) throw new Error(`creating the stack failed: ${init.message}`);
  const config = async (key: string, value: string, secret = false) => {
    const r = await pulumi(["config", "set", ...(secret ? ["--secret"] : []), key, value]);
    if (r.code !== 0) throw new Error(`pulumi config set ${key} failed: ${r.stderr}`);
  };
  return { dir: p.dir, program: file, op, pulumi, cli: run, config, remove: p.remove };
}
