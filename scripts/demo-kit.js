/**
 * What both demos share: building when dist/ is stale, checks that print `ok`/`NOT OK`, plan reports,
 * and the closing line and exit code.
 */
"use strict";
const { execFileSync, spawnSync } = require("node:child_process");
const { existsSync, readdirSync, statSync } = require("node:fs");
const { join } = require("node:path");

const ROOT = join(__dirname, "..");

/**
 * Builds (compile and plugin bundle) when `dist/<marker>` is missing or older than a source file, and
 * the simulator package (simulator/, which `require("secops-sim")` reaches through the workspace
 * link) when its build is missing or older than its sources or the provider modules it compiles in.
 */
function buildIfNeeded(marker) {
  const file = join(ROOT, "dist", marker);
  const newest = (dir) =>
    readdirSync(dir, { withFileTypes: true }).reduce((t, e) => {
      const p = join(dir, e.name);
      return Math.max(t, e.isDirectory() ? newest(p) : statSync(p).mtimeMs);
    }, 0);
  const tsc = (project) =>
    execFileSync(process.execPath, [require.resolve("typescript/bin/tsc"), "-p", project], {
      stdio: "inherit",
    });
  const provider = newest(join(ROOT, "provider"));
  if (!existsSync(file) || statSync(file).mtimeMs < provider) {
    console.log("building (npm run build)...");
    tsc(join(ROOT, "tsconfig.build.json"));
    // The plugin runs from its bundle (bin/pulumi-resource-secops): rebuilt with the rest.
    execFileSync(process.execPath, [join(ROOT, "scripts", "bundle-plugin.js")], { stdio: "inherit" });
  }
  const sim = join(ROOT, "simulator", "dist", "simulator", "index.js");
  const simSources = readdirSync(join(ROOT, "simulator"))
    .filter((f) => f.endsWith(".ts"))
    .map((f) => statSync(join(ROOT, "simulator", f)).mtimeMs);
  if (!existsSync(sim) || statSync(sim).mtimeMs < Math.max(provider, ...simSources)) {
    console.log("building the simulator (npm run build --workspace simulator)...");
    tsc(join(ROOT, "simulator", "tsconfig.json"));
  }
}

/** Checks and reports; `problems` collects what did not hold. */
function checker(formatSteps) {
  const problems = [];
  return {
    problems,
    expect(ok, what) {
      console.log(`   ${ok ? "ok" : "NOT OK"}: ${what}`);
      if (!ok) problems.push(what);
    },
    show(title, steps, outputs) {
      console.log(`\n== ${title}`);
      for (const line of formatSteps(steps, outputs)) console.log(line);
      for (const s of steps) if (!s.ok) problems.push(`${title}: ${s.name}: ${s.error}`);
    },
  };
}

/** Node's documented switch for a type of warning (a command-line flag of this process only). */
const QUIET = "--disable-warning=ExperimentalWarning";

/**
 * Runs the demo script again with {@link QUIET}, once, and answers true when it did (the caller then
 * stops: the exit code is the child's). On Node 26, Pulumi's closure serializer, which the demo runs
 * in this process, requires every built-in module to recognise captured ones, `node:ffi` among them,
 * and Node warns "ExperimentalWarning: FFI is an experimental feature" at that require: a warning of
 * the platform, not of the demo, which a reader would take for one. A flag of the demo's own process,
 * never a patch of `process.emitWarning`.
 */
function rerunQuietly() {
  if (process.execArgv.includes(QUIET)) return false;
  const script = process.argv[1];
  const r = spawnSync(process.execPath, [...process.execArgv, QUIET, script, ...process.argv.slice(2)], {
    stdio: "inherit",
  });
  process.exitCode = r.status ?? 1;
  return true;
}

/** Runs `main` (which returns the problems) and exits 0 only when there were none. */
function run(main) {
  main().then(
    (problems) => {
      console.log(
        problems.length
          ? `\ndemo FAILED: ${problems.length} problem(s)`
          : "\ndemo passed: every step did what it printed",
      );
      process.exit(problems.length ? 1 : 0);
    },
    (err) => {
      console.error(`demo failed: ${err && err.message}`);
      process.exit(1);
    },
  );
}

/** The steps of a runner command, also when it rejected because some resources failed. */
async function stepsOf(command) {
  try {
    return await command;
  } catch (err) {
    if (Array.isArray(err && err.steps)) return err.steps;
    throw err;
  }
}

module.exports = { ROOT, buildIfNeeded, checker, rerunQuietly, run, stepsOf };
