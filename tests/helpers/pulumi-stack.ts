/**
 * A stack run by the real Pulumi CLI (tests/helpers/pulumi-cli.ts): a local file backend, a
 * passphrase secrets provider, no update checks, a PULUMI_HOME of its own, and the native plugin
 * found on PATH (this checkout's bin/, as `npm install` links it). Its program is a file copied into a
 * folder of its own whose node_modules link this package; each operation runs through the Automation
 * API in a process of its own (automation-driver.js), as a user's automation program would.
 */
import { copyFileSync, writeFileSync } from "node:fs";
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
  /**
   * `pulumi config set [--secret] <key> <value>`, sent with the other values set before the stack's next
   * command in one `pulumi config set-all` (each `pulumi` start that decrypts costs ~0.3 s of CPU).
   */
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
  const run = (args: string[]) => exec(join(cli.bin, "pulumi"), args, p.dir, { ...process.env, ...env });
  // `config` values wait here and go to the CLI in one `pulumi config set-all` before the next command.
  const pending: string[] = [];
  const flush = async () => {
    if (pending.length === 0) return;
    const args = pending.splice(0);
    const r = await run(["config", "set-all", ...args, "--stack", "dev", "--non-interactive"]);
    const keys = args.filter((_, i) => i % 2 === 1).map((kv) => kv.slice(0, kv.indexOf("=")));
    if (r.code !== 0) throw new Error(`pulumi config set-all (${keys.join(", ")}) failed: ${r.stderr}`);
  };
  const op: EngineStack["op"] = async (name, options = {}) => {
    await flush();
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
  const pulumi = async (args: string[]) => {
    await flush();
    return run([...args, "--stack", "dev", "--non-interactive"]);
  };
  const cliRun = async (args: string[]) => {
    await flush();
    return run(args);
  };
  // The project file the Automation API writes for this workspace, so that the CLI creates the stack.
  writeFileSync(join(p.dir, "Pulumi.yaml"), `name: ${project}\nruntime: nodejs\nmain: ${p.dir}\n`);
  const init = await run(["stack", "init", "dev", "--non-interactive"]);
  if (init.code !== 0) throw new Error(`creating the stack failed: ${init.stderr}`);
  const config = async (key: string, value: string, secret = false) => {
    pending.push(secret ? "--secret" : "--plaintext", `${key}=${value}`);
  };
  return { dir: p.dir, program: file, op, pulumi, cli: cliRun, config, remove: p.remove };
}
