/**
 * Automation API operations, as a user's automation program runs them:
 *
 *   node automation-driver.js <json request>   one operation; prints its result as the last line
 *   node automation-driver.js --serve          one request per line on stdin, a result line for each
 *                                              on file descriptor 3, in order; ends with stdin
 *
 * request: { project, workDir, program (a .js or .ts file), op ("init" | "preview" | "up" |
 * "refresh" | "destroy"), options (the Automation API's options of that operation), cli (the folder
 * holding `pulumi`), env (the CLI's environment) }.
 *
 * The program is an inline program that evaluates the file afresh for each operation (a .ts file
 * transpiled by TypeScript, not type-checked: PULUMI_NODEJS_TRANSPILE_ONLY's behaviour), run by
 * @pulumi/pulumi's own language server in this process; Pulumi's Node.js language host cannot be
 * built here (see .ci/pulumi-cli/build.sh). `main` is the program's folder, where the engine starts
 * the providers. A serving driver keeps its workspaces and the modules programs loaded between
 * operations, as an automation program that runs several operations does; results go to a descriptor
 * of their own because a program's `console.log` writes to stdout.
 *
 * A result: { ok, summary?, changeSummary?, outputs?, message?, stdout, stderr }.
 */
"use strict";
const { createWriteStream, readFileSync } = require("node:fs");
const { dirname, join } = require("node:path");
const { createInterface } = require("node:readline");
const Module = require("node:module");
const { LocalWorkspace, PulumiCommand } = require("@pulumi/pulumi/automation");

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

/**
 * The stack's outputs as a result reports them (each secret as "[secret]"): one `pulumi stack output
 * --json`. The Automation API's own reading, after every up, runs a second one with `--show-secrets`
 * for values a result never shows, decrypting them (one more CLI start and the passphrase's key
 * derived again).
 */
async function maskedOutputs(workspace, stackName) {
  const r = await workspace.runPulumiCmd(["stack", "output", "--json", "--stack", stackName]);
  const masked = JSON.parse(r.stdout);
  return Object.fromEntries(
    Object.entries(masked).map(([k, value]) => [k, { value, secret: value === "[secret]" }]),
  );
}

let pulumiCommand;
const stacks = new Map();

/** The stack of a request, created (or selected) once per workspace. */
function stackOf(req) {
  const key = JSON.stringify([req.project, req.workDir, req.program, req.cli, req.env]);
  if (!stacks.has(key)) {
    // The program's own @pulumi/pulumi must be this process's copy, as under the language host: its
    // node_modules links the same folder, so requires of it from the program resolve to this copy.
    const program = async () => load(req.program);
    const stack = (async () => {
      pulumiCommand ??= await PulumiCommand.get({ root: join(req.cli, ".."), skipVersionCheck: true });
      const stack = await LocalWorkspace.createOrSelectStack(
        { stackName: "dev", projectName: req.project, program },
        {
          workDir: req.workDir,
          envVars: req.env,
          pulumiCommand,
          projectSettings: { name: req.project, runtime: "nodejs", main: req.workDir },
        },
      );
      stack.workspace.stackOutputs = (name) => maskedOutputs(stack.workspace, name);
      return stack;
    })();
    stacks.set(key, stack);
    stack.catch(() => stacks.delete(key));
  }
  return stacks.get(key);
}

/** Runs one request; never rejects (a failure is the result's message). */
async function operate(req) {
  let out = "";
  let err = "";
  const result = await (async () => {
    const stack = await stackOf(req);
    // showSecrets false: the summary is read from `pulumi stack history` without decrypting, unless a
    // request asks for it (a result shows no secret's value: see maskedOutputs).
    const options = {
      showSecrets: false,
      ...(req.options || {}),
      onOutput: (t) => (out += t),
      onError: (t) => (err += t),
    };
    let r = {}; // "init": the stack is created (or selected), nothing else
    if (req.op === "preview") r = await stack.preview(options);
    else if (req.op === "up") r = await stack.up(options);
    else if (req.op === "refresh") r = await stack.refresh(options);
    else if (req.op === "destroy") r = await stack.destroy(options);
    const outputs = r.outputs
      ? Object.fromEntries(Object.entries(r.outputs).map(([k, v]) => [k, v.secret ? "[secret]" : v.value]))
      : undefined;
    return { ok: true, summary: r.summary?.resourceChanges, changeSummary: r.changeSummary, outputs };
  })().catch((e) => ({ ok: false, message: String((e && e.message) || e) }));
  return { ...result, stdout: out, stderr: err };
}

// Calls a failed program left waiting on an engine that has ended are not an operation's result.
process.on("unhandledRejection", () => undefined);
if (process.argv[2] === "--serve") {
  const results = createWriteStream(null, { fd: 3 });
  let queue = Promise.resolve();
  createInterface({ input: process.stdin })
    .on("line", (line) => {
      queue = queue
        .then(async () => JSON.stringify(await operate(JSON.parse(line))))
        .catch((e) =>
          JSON.stringify({ ok: false, message: `automation-driver: ${e.message}`, stdout: "", stderr: "" }),
        )
        .then((result) => results.write(`${result}\n`));
    })
    .on("close", () => queue.then(() => results.end(() => process.exit(0))));
} else {
  operate(JSON.parse(process.argv[2])).then((r) => {
    process.stdout.write(`${JSON.stringify(r)}\n`);
    process.exit(0);
  });
}
