/**
 * One Automation API operation in a process of its own, as a user's automation program runs it:
 *
 *   node automation-driver.js <json request>
 *
 * request: { project, workDir, program (a .js or .ts file), op ("init" | "preview" | "up" |
 * "refresh" | "destroy"), options (the Automation API's options of that operation), cli (the folder
 * holding `pulumi`), env (the CLI's environment) }.
 *
 * The program is an inline program that evaluates the file afresh (a .ts file transpiled by
 * TypeScript, not type-checked: PULUMI_NODEJS_TRANSPILE_ONLY's behaviour), run by @pulumi/pulumi's own
 * language server in this process; Pulumi's Node.js language host cannot be built here (see
 * .ci/pulumi-cli/build.sh). `main` is the program's folder, where the engine starts the providers.
 *
 * Prints one JSON line: { ok, summary?, changeSummary?, outputs?, message?, stdout, stderr }.
 */
"use strict";
const { readFileSync } = require("node:fs");
const { dirname, join } = require("node:path");
const Module = require("node:module");
const { LocalWorkspace, PulumiCommand } = require("@pulumi/pulumi/automation");

const req = JSON.parse(process.argv[2]);

/** Loads the program file afresh, resolving its imports from its own folder (its node_modules). */
function load(file) {
  let code = readFileSync(file, "utf8");
  if (file.endsWith(".ts")) {
    const ts = require("typescript");
    code = ts.transpileModule(code, {
      compilerOptions: {
        module: ts.ModuleKind.CommonJS,
        target: ts.ScriptTarget.ES2022,
        esModuleInterop: true,
      },
      fileName: file,
    }).outputText;
  }
  const m = new Module(file, module);
  m.filename = file;
  m.paths = Module._nodeModulePaths(dirname(file));
  m._compile(code, file);
  return m.exports;
}

// The program's own @pulumi/pulumi must be this process's copy, as under the language host: its
// node_modules links the same folder, so requires of it from the program resolve to this copy.
const program = async () => load(req.program);

let out = "";
let err = "";
(async () => {
  const pulumiCommand = await PulumiCommand.get({ root: join(req.cli, ".."), skipVersionCheck: true });
  const stack = await LocalWorkspace.createOrSelectStack(
    { stackName: "dev", projectName: req.project, program },
    {
      workDir: req.workDir,
      envVars: req.env,
      pulumiCommand,
      projectSettings: { name: req.project, runtime: "nodejs", main: req.workDir },
    },
  );
  const options = { ...(req.options || {}), onOutput: (t) => (out += t), onError: (t) => (err += t) };
  let result = {}; // "init": the stack is created (or selected), nothing else
  if (req.op === "preview") result = await stack.preview(options);
  else if (req.op === "up") result = await stack.up(options);
  else if (req.op === "refresh") result = await stack.refresh(options);
  else if (req.op === "destroy") result = await stack.destroy(options);
  const outputs = result.outputs
    ? Object.fromEntries(Object.entries(result.outputs).map(([k, v]) => [k, v.secret ? "[secret]" : v.value]))
    : undefined;
  return {
    ok: true,
    summary: result.summary?.resourceChanges,
    changeSummary: result.changeSummary,
    outputs,
  };
})()
  .catch((e) => ({ ok: false, message: String((e && e.message) || e) }))
  .then((r) => {
    process.stdout.write(`${JSON.stringify({ ...r, stdout: out, stderr: err })}\n`);
    // Calls the program left waiting on an engine that has ended are not the operation's result.
    process.exit(0);
  });
process.on("unhandledRejection", () => undefined);
