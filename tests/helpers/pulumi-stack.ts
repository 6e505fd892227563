/**
 * A stack run by the real Pulumi CLI through the Automation API (LocalWorkspace): a local file backend,
 * a passphrase secrets provider, no update checks, a PULUMI_HOME of its own, and the native plugin
 * found on PATH (this checkout's bin/, as `npm install` links it). The program is an inline program
 * run by @pulumi/pulumi's own language server in this process; the process works in the program's
 * folder meanwhile (the engine starts the dynamic provider there, which loads this package from its
 * node_modules).
 */
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import {
  LocalWorkspace,
  PulumiCommand,
  type ConfigMap,
  type PulumiFn,
  type Stack,
} from "@pulumi/pulumi/automation";
import { pulumiCli, programDir } from "./pulumi-cli";
import { ROOT } from "./spawn";

export interface EngineStack {
  stack: Stack;
  /** The program's folder (its node_modules link this package). */
  dir: string;
  /** The environment the CLI runs with (for running `pulumi` directly). */
  env: Record<string, string>;
  /** Runs `pulumi <args>` in the program's folder for this stack; never throws. */
  pulumi(args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
  remove(): void;
}

/** Creates stack `dev` of project `project` running `program`. */
export async function engineStack(
  project: string,
  program: PulumiFn,
  config: ConfigMap = {},
  extraEnv: Record<string, string> = {},
): Promise<EngineStack> {
  const cli = pulumiCli();
  const p = programDir(project);
  const env: Record<string, string> = {
    PULUMI_BACKEND_URL: `file://${p.backend}`,
    PULUMI_CONFIG_PASSPHRASE: "engine-tests",
    PULUMI_SKIP_UPDATE_CHECK: "true",
    PULUMI_HOME: join(p.backend, "home"),
    PULUMI_DIY_BACKEND_NO_LEGACY_WARNING: "true",
    PATH: [cli.bin, join(ROOT, "bin"), process.env.PATH ?? ""].join(delimiter),
    ...(process.env.SECOPS_INTENT_DIR ? { SECOPS_INTENT_DIR: process.env.SECOPS_INTENT_DIR } : {}),
    ...extraEnv,
  };
  const pulumiCommand = await PulumiCommand.get({ root: join(cli.bin, ".."), skipVersionCheck: true });
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "dev", projectName: project, program },
    // `main` is the program's folder: the engine starts providers there (LocalWorkspace's default for an
    // inline program is this process's working directory).
    {
      workDir: p.dir,
      envVars: env,
      pulumiCommand,
      projectSettings: { name: project, runtime: "nodejs", main: p.dir },
    },
  );
  if (Object.keys(config).length) await stack.setAllConfig(config);
  const pulumi = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve, reject) => {
      const child = spawn(join(cli.bin, "pulumi"), [...args, "--stack", "dev", "--non-interactive"], {
        cwd: p.dir,
        env: { ...process.env, ...env },
      });
      let stdout = "";
      let stderr = "";
      child.stdout.on("data", (c) => (stdout += c));
      child.stderr.on("data", (c) => (stderr += c));
      child.on("error", reject);
      child.on("close", (code) => resolve({ code: code ?? -1, stdout, stderr }));
    });
  return { stack, dir: p.dir, env, pulumi, remove: p.remove };
}

/**
 * An inline program that evaluates a TypeScript program file afresh on every run, as the language
 * host does (transpiled by TypeScript, not type-checked: PULUMI_NODEJS_TRANSPILE_ONLY's behaviour).
 * Modules it imports come from the caller's registry, so it shares the @pulumi/pulumi copy whose
 * language server runs it.
 */
export function programFile(file: string, req: NodeJS.Require): PulumiFn {
  return async () => {
    const ts = req("typescript") as typeof import("typescript");
    const source = readFileSync(file, "utf8");
    const js = ts.transpileModule(source, {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
      fileName: file,
    }).outputText;
    const module = { exports: {} as Record<string, unknown> };
    new Function("require", "module", "exports", "__filename", "__dirname", js)(
      req,
      module,
      module.exports,
      file,
      dirname(file),
    );
    return module.exports;
  };
}
