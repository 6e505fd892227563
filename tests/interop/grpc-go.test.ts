/**
 * The engine's own gRPC library drives the plugin (issue 33 item 5): a Go driver (./driver/) built with
 * Go modules against the engine's own stubs (sdk/v3's proto/go) and the grpc-go the Pulumi CLI of CI
 * pins (./driver/go.mod), starts `bin/pulumi-resource-secops` as the engine does and runs the engine's
 * sequences and transport cases against the simulator, then Handshake and List (issue 34). It runs
 * once in `beforeAll`; each scenario it reports is one test here.
 */
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { built, builtSim, ROOT } from "../helpers/spawn";

/** Every scenario the driver runs, by its name there, with what it shows. */
const SCENARIOS: Record<string, string> = {
  preview: "CheckConfig, DiffConfig, Configure (preview), Check, Create(preview=true) write nothing",
  up: "Create of both resources writes them: one more rule in the team's list, the user's flag set",
  refresh: "Read with id and props returns the API's state; drift made out of band shows in the next refresh",
  import: "Read with only an id returns inputs and properties, and they diff as no change",
  update: "Check, detailed Diff, Update(preview=true) writes nothing, Update changes the API",
  destroy: "Delete removes the rule and restores the user",
  "engine-log": "engine flags before the address; a keyless Configure warns through the engine's Log service",
  "concurrent-200": "200 concurrent calls on one connection each get their own answer",
  "list-stream": "List (server streaming) pages through the same rules the API lists",
  "messages-24mb": "a 24 MB request and response on the engine's 400 MiB limits",
  "deadline-mid-call": "a deadline expiring mid-call is DEADLINE_EXCEEDED; the plugin answers after",
  "cancel-mid-flight": "calls cancelled mid-flight are CANCELED; the plugin answers after",
  "close-and-reconnect": "the connection closed with calls in flight, then a new connection works",
  unimplemented: "unknown methods and services are UNIMPLEMENTED; the connection stays usable",
  handshake:
    "Handshake as the engine sends it answers the flags Configure answers (supportsPreview); then Create(preview) " +
    "writes nothing, Create, Update(preview) changes nothing, Delete",
  "list-pages":
    "List of 5 rules, page_size 2: three calls following the continuation, each id once in id order",
  "list-limit":
    "limit 3 gives 3 results, sent on every page or shrinking (pulumi do ... list --count 3); -1 refused",
  "list-filters": "the query filters on enabled, field and search (a glob with * and ?)",
  "list-computed": "a query holding an unknown value answers a single Computed and asks the API nothing",
  "list-refusals":
    "an unknown query key is refused by name (nothing sent); a 401 key and a 403 role fail the List",
  "list-users": "List of DirectoryUserSettings pages through the team's directory users, ids the API reads",
};

interface Outcome {
  name: string;
  passed: boolean;
  message: string;
  ms: number;
}

/** What a tool printed, or why it could not run. */
function run(file: string, args: string[], env: NodeJS.ProcessEnv, timeout: number): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, args, { cwd: ROOT, env, timeout, maxBuffer: 64 * 1024 * 1024 }, (err, stdout, stderr) => {
      if (!err) return resolve(stdout);
      const missing = (err as NodeJS.ErrnoException).code === "ENOENT";
      reject(
        new Error(
          missing
            ? `${file} is not installed: the Go driver needs Go 1.26+ and the Go module proxy (./driver/go.mod)`
            : `${[file, ...args].join(" ")} failed (${err.message.split("\n")[0]}):\n${stderr}${stdout}`,
        ),
      );
    });
  });
}

let work: string;
let outcomes: Map<string, Outcome> | undefined;
let setupError: Error | undefined;

/** Builds the driver (Go modules: the engine's stubs and grpc-go, see ./driver/go.mod), runs it. */
async function buildAndRun(): Promise<Outcome[]> {
  built("plugin/pulumi-resource-secops.js");
  builtSim();
  work = mkdtempSync(join(tmpdir(), "secops-grpc-go-"));
  const env: NodeJS.ProcessEnv = { ...process.env, GOFLAGS: "-mod=mod", GO111MODULE: "on" };
  if (!env.GOCACHE && !env.HOME && !env.XDG_CACHE_HOME) env.GOCACHE = join(tmpdir(), "secops-go-cache");
  await run("go", ["version"], env, 10_000);
  const driver = join(work, "driver");
  await run("go", ["-C", join(ROOT, "tests", "interop", "driver"), "build", "-o", driver, "."], env, 240_000);
  // The plugin and the simulator run on this Node (the CI leg's).
  const stdout = await run(driver, ["-root", ROOT, "-node", process.execPath], process.env, 120_000);
  return JSON.parse(stdout) as Outcome[];
}

beforeAll(async () => {
  try {
    outcomes = new Map((await buildAndRun()).map((o) => [o.name, o]));
  } catch (err) {
    setupError = err as Error;
  }
}, 240_000);

afterAll(() => {
  if (work) rmSync(work, { recursive: true, force: true });
});

function outcome(name: string): Outcome {
  if (setupError) throw setupError;
  const o = outcomes?.get(name);
  if (!o) throw new Error(`the Go driver reported no scenario "${name}"`);
  return o;
}

describe("grpc-go (the engine's gRPC library) drives the plugin", () => {
  for (const [name, shows] of Object.entries(SCENARIOS)) {
    test(`${name}: ${shows}`, () => {
      const o = outcome(name);
      if (!o.passed) throw new Error(`${name} failed in the Go driver (${o.ms} ms):\n${o.message}`);
      expect(o.passed).toBe(true);
    });
  }

  test("the driver ran exactly the scenarios listed here", () => {
    if (setupError) throw setupError;
    expect([...(outcomes?.keys() ?? [])].sort()).toEqual(Object.keys(SCENARIOS).sort());
  });
});
