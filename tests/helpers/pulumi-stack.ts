/**
 * A stack run by the real Pulumi CLI (tests/helpers/pulumi-cli.ts): a local file backend, a
 * passphrase secrets provider, no update checks, a PULUMI_HOME of its own, and the native plugin
 * found on PATH (this checkout's bin/, as `npm install` links it). Its program is a file copied into a
 * folder of its own whose node_modules link this package; its operations run through the Automation
 * API in one Node.js process of the stack's own (automation-driver.js --serve), as a user's automation
 * program runs them.
 */
import { spawn } from "node:child_process";
import { copyFileSync, writeFileSync } from "node:fs";
import type { Socket } from "node:net";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
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

/**
 * An automation driver serving one stack's operations in order (automation-driver.js --serve): one
 * Node.js process and workspace for all of them, as an automation program that runs several.
 */
function servingDriver(env: NodeJS.ProcessEnv): { send(request: object): Promise<OpResult>; stop(): void } {
  const child = spawn(process.execPath, [DRIVER, "--serve"], {
    cwd: ROOT,
    env,
    stdio: ["pipe", "ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr?.on("data", (c) => (stderr += c));
  const waiting: Array<{ resolve(r: OpResult): void; reject(e: Error): void }> = [];
  let ended: Error | undefined;
  createInterface({ input: child.stdio[3] as Readable }).on("line", (line) =>
    waiting.shift()?.resolve(JSON.parse(line) as OpResult),
  );
  child.on("close", (code, signal) => {
    ended = new Error(
      `the automation driver ended (${signal ?? `exit ${code}`}) before answering: ${stderr}`,
    );
    for (const w of waiting.splice(0)) w.reject(ended);
  });
  child.stdin?.on("error", () => undefined); // a write after the end: `close` answers the request
  // Neither the process nor its pipes keep a test file's worker alive; the driver ends with its stdin.
  child.unref();
  for (const stream of [child.stdin, child.stderr, child.stdio[3]]) (stream as Socket | null)?.unref();
  return {
    send: (request) =>
      new Promise<OpResult>((resolve, reject) => {
        if (ended) return reject(ended);
        waiting.push({ resolve, reject });
        child.stdin?.write(`${JSON.stringify(request)}\n`);
      }),
    stop: () => child.kill(),
  };
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
  let written: Promise<void> = Promise.resolve();
  const send = async (args: string[]) => {
    const r = await run(["config", "set-all", ...args, "--stack", "dev", "--non-interactive"]);
    const keys = args.filter((_, i) => i % 2 === 1).map((kv) => kv.slice(0, kv.indexOf("=")));
    if (r.code !== 0) throw new Error(`pulumi config set-all (${keys.join(", ")}) failed: ${r.stderr}`);
  };
  // Each command waits for the values set before it, even while an earlier command's are being written.
  const flush = () => {
    if (pending.length > 0) {
      const args = pending.splice(0);
      written = written.then(() => send(args));
    }
    return written;
  };
  let driver: ReturnType<typeof servingDriver> | undefined;
  const op: EngineStack["op"] = async (name, options = {}) => {
    await flush();
    const serving = (driver ??= servingDriver({ ...process.env, ...env }));
    const request = { project, workDir: p.dir, program: file, op: name, options, cli: cli.bin, env };
    const result = await serving.send(request).catch((e: Error) => {
      driver = undefined;
      throw e;
    });
    // A failed operation's program may leave calls that fail later: the next operation gets a driver
    // of its own, as each operation had its own process before.
    if (!result.ok) {
      serving.stop();
      driver = undefined;
    }
    return result;
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
  const remove = () => {
    driver?.stop();
    p.remove();
  };
  return { dir: p.dir, program: file, op, pulumi, cli: cliRun, config, remove };
}
