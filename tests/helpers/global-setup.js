/**
 * Runs once in jest's own process, before it starts its workers.
 *
 * The create-intent journal of every test, and of every plugin, host and runner a test starts, is kept
 * in one temporary folder, never in the user's ~/.pulumi. Set here because a test's `process.env` is a
 * copy that the processes it spawns do not inherit.
 *
 * The workers start with `--disable-warning=ExperimentalWarning`: on Node 26, Pulumi's closure
 * serializer (run in the workers by the setMocks and in-process runner tests) requires every built-in
 * module, `node:ffi` among them, and Node warns that FFI is experimental. jest forks its workers with
 * this process's `execArgv` (jest-worker's ChildProcessWorker, as `child_process.fork` does by
 * default), so the flag reaches the workers and nothing else: the processes tests spawn take their
 * own arguments (tests/helpers/spawn.ts `NO_EXPERIMENTAL_WARNING` for those that run programs).
 *
 * The Node.js processes the tests start (automation programs, plugins, Pulumi's dynamic-provider
 * hosts, the CLIs) share Node's on-disk compile cache (NODE_COMPILE_CACHE, Node 22.1+): each loads
 * @pulumi/pulumi's hundreds of modules, and compiled ones are about 40% faster to load. Node keys the
 * cache by its own version and each file's contents, so both CI legs and every checkout can share it.
 */
const { mkdtempSync } = require("node:fs");
const { tmpdir } = require("node:os");
const { join } = require("node:path");

const NO_EXPERIMENTAL_WARNING = "--disable-warning=ExperimentalWarning";

module.exports = () => {
  // A folder given by the caller is used as it is (and kept): two jest runs can then share one
  // journal, as two stacks of one team on one machine share ~/.pulumi/secops/intents.
  if (process.env.SECOPS_INTENT_DIR) process.env.SECOPS_KEEP_INTENT_DIR = "1";
  else process.env.SECOPS_INTENT_DIR = mkdtempSync(join(tmpdir(), "secops-intents-"));
  process.env.NODE_COMPILE_CACHE ??= join(tmpdir(), "secops-node-compile-cache");
  if (!process.execArgv.includes(NO_EXPERIMENTAL_WARNING)) process.execArgv.push(NO_EXPERIMENTAL_WARNING);
};
