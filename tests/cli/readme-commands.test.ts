/**
 * Every command line of the documentation (README.md, docs/*.md, the examples' and the simulator
 * package's READMEs: each line of each `sh` block, continuations joined) is run, or named with why it
 * is not (issues 23, 36 and 56), in one list this test checks:
 * - `npm exec --no -- secops ...` and `secops-sim ...` lines are run here against the simulator, as
 *   written, or a synopsis through concrete instances that use only its flags; what they did is then
 *   checked in the simulator's state and in their output;
 * - every other line is in NOT_RUN_HERE, which names the test file (or CI script) that runs it, and
 *   why it runs there: the Pulumi CLI (tests/engine/, the CLI built from its Go modules), the packed
 *   tarball, a whole suite. The file must exist and name what it runs; an entry that matches no line
 *   fails too, so the list holds only what the pages say;
 * - the `npm` lines of that list are also checked here against what they rely on: the script exists
 *   and its file too, the lockfile agrees with package.json, the tarball's name is the one `npm pack`
 *   writes and installing it runs no script (the simulator's too, packed from its workspace), and
 *   what they install by name is a peer dependency.
 * A command line neither run here nor in the list fails this test.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { built, builtSim, ROOT } from "../helpers/spawn";

jest.setTimeout(120_000);
const BIN: Record<string, string> = {
  secops: built("cli/secops.js"),
  "secops-sim": builtSim(),
};
const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8"));
/** The simulator package's manifest (simulator/, a workspace of this one). */
const simPkg = JSON.parse(readFileSync(join(ROOT, "simulator", "package.json"), "utf8"));

interface CommandLine {
  file: string;
  line: string;
}

/** A kind of command line this test does not run: where it runs instead, and why there. */
interface RunsElsewhere {
  /** The pages it is on (a path, or a folder's prefix ending in "/"). */
  pages: string[];
  line: RegExp;
  /** The test file (or CI script) that runs it, relative to the repository root. */
  where: string;
  /** What that file's text shows of it (a command, an example's folder). */
  shows: string;
  why: string;
}

/** The Pulumi CLI's reason: tests/engine/ runs it (built from its Go modules: docs/engine.md). */
const ENGINE = "needs the Pulumi CLI, which tests/engine/ runs (built from its Go modules, docs/engine.md)";
/** Pulumi's Node.js, Python and Go language hosts cannot be built here (docs/engine.md). */
const NO_HOST = "the program runs through the Automation API: the language host cannot be built here";

/** Every command line not run here, each kind once (see the file's comment). */
const NOT_RUN_HERE: RunsElsewhere[] = [
  { pages: ["README.md"], line: /^npm ci$/, where: ".ci/run", shows: "npm ci", why: "CI's install" },
  { pages: ["README.md"], line: /^npm test$/, where: ".ci/run", shows: "npm test", why: "the suite itself" },
  {
    pages: ["README.md"],
    line: /^npm run demo(:native)?$/,
    where: "tests/rig/tests/demo.test.ts",
    shows: "npm run demo:native",
    why: "a minute each; npm run test:rig runs them",
  },
  {
    pages: ["README.md"],
    line: /^npm pack$|^npm install \.\/pulumi-secops-\S+\.tgz @pulumi\/pulumi$|^npm install @pulumi\/policy$/,
    where: "tests/engine/cli-docs.test.ts",
    shows: "installPacked",
    why: "the tarball and what the README installs beside it are the program the pulumi lines run in",
  },
  {
    pages: ["README.md", "docs/"],
    line: /^pulumi /,
    where: "tests/engine/cli-docs.test.ts",
    shows: "pulumiLines",
    why: ENGINE,
  },
  {
    pages: ["docs/native-provider.md"],
    line: /^npm run package:plugin$/,
    where: "tests/engine/cli-docs.test.ts",
    shows: "releaseArchive",
    why: "it writes the archive the docs' `pulumi plugin install` line installs",
  },
  {
    pages: ["docs/simulator-and-cli.md", "simulator/README.md"],
    line: /^npm pack --workspace simulator$|^npm install --save-dev \.\/secops-sim-\S+\.tgz$/,
    where: "tests/consumer/consumer.test.ts",
    shows: "packedSim",
    why: "packing and installing into a fresh program",
  },
  {
    pages: ["examples/ci-drift/README.md"],
    line: /^pulumi policy analyze /,
    where: "tests/engine/cli-ci-drift.test.ts",
    shows: "secops policy",
    why: `${ENGINE}; there in the workflow's order, from the packed tarball`,
  },
  {
    pages: ["examples/directory-settings/README.md"],
    line: /^pulumi (config set|up$)/,
    where: "tests/engine/engine.test.ts",
    shows: "examples/directory-settings",
    why: `${NO_HOST}; there through the offline runner and Pulumi's dynamic-provider host`,
  },
  {
    pages: ["examples/hva-rules/README.md"],
    line: /^npm install \.\.\/\.\.\/pulumi-secops-\S+\.tgz @pulumi\/pulumi$|^pulumi (config set|up$)/,
    where: "tests/engine/cli-hva-rules.test.ts",
    shows: "examples/hva-rules",
    why: `${ENGINE}; ${NO_HOST}`,
  },
  {
    pages: ["examples/multi-team/README.md"],
    line: /^npm install$|^pulumi (config set|up$)/,
    where: "tests/engine/cli-multi-team.test.ts",
    shows: "examples/multi-team",
    why: `${ENGINE}; ${NO_HOST}`,
  },
  {
    pages: ["examples/go-hva-rules/README.md"],
    line: /^pulumi (plugin install|stack init|config set|up$)/,
    where: "tests/engine/cli-go.test.ts",
    shows: "examples/go-hva-rules",
    why: `${ENGINE}; ${NO_HOST} (go run ./automate up)`,
  },
  {
    pages: ["examples/python-multi-team/README.md"],
    line: /^python -m venv venv && venv\/bin\/pip install -r requirements.txt$|^pulumi (plugin install|stack init|config set|up$)/,
    where: "tests/engine/cli-python.test.ts",
    shows: "examples/python-multi-team",
    why: `${ENGINE}; ${NO_HOST} (automate.py, in the virtualenv .ci/pulumi-langs/build.sh makes)`,
  },
  {
    pages: ["examples/yaml-hva-rules/README.md"],
    line: /^npm install \.\.\/\.\.\/pulumi-secops-\S+\.tgz$|^pulumi (stack init|config set|up$)/,
    where: "tests/engine/cli-yaml.test.ts",
    shows: "examples/yaml-hva-rules",
    why: ENGINE,
  },
];

/** The entry of NOT_RUN_HERE a line is in, if any. */
const elsewhere = ({ file, line }: CommandLine) =>
  NOT_RUN_HERE.find(
    (e) => e.line.test(line) && e.pages.some((p) => (p.endsWith("/") ? file.startsWith(p) : file === p)),
  );

/** The documentation files, relative to the repository root. */
function docFiles(): string[] {
  const docs = readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`);
  const examples = readdirSync(join(ROOT, "examples")).map((e) => `examples/${e}/README.md`);
  return ["README.md", "simulator/README.md", ...docs, ...examples].filter((f) => existsSync(join(ROOT, f)));
}

/** Each command line of each sh block: its file and its text (continuations joined, comments cut). */
function commandLines(): CommandLine[] {
  const out: CommandLine[] = [];
  for (const file of docFiles()) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const block of text.matchAll(/^ *```(?:sh|bash|shell)\n([\s\S]*?)^ *```/gm))
      for (const l of block[1].replace(/\\\n\s*/g, "").split("\n")) {
        const line = l.replace(/\s+#.*$/, "").trim();
        if (line && !line.startsWith("#")) out.push({ file, line });
      }
  }
  return out;
}

/** Words of a command line as a shell splits them (quotes removed). */
const words = (line: string) =>
  [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);

/** Install-time scripts: npm runs these when the package is installed as a dependency. */
const INSTALL_SCRIPTS = ["preinstall", "install", "postinstall", "prepare"];

/**
 * What an `npm` line that is not run here relies on, checked: undefined when it holds, else what is
 * wrong; "unknown" when no rule covers the line.
 */
function npmLineProblem(file: string, line: string): string | undefined {
  const w = words(line);
  if (w[0] !== "npm") return "unknown";
  const script = w[1] === "run" ? w[2] : w[1] === "test" && w.length === 2 ? "test" : undefined;
  if (script !== undefined && w.length <= 3) {
    const command: string | undefined = pkg.scripts[script];
    if (!command) return `package.json has no script "${script}"`;
    const node = /^node (\S+)$/.exec(command);
    if (node && !existsSync(join(ROOT, node[1]))) return `"${script}" runs ${node[1]}, which does not exist`;
    return undefined;
  }
  if (line === "npm ci") {
    const lock = JSON.parse(readFileSync(join(ROOT, "package-lock.json"), "utf8"));
    const root = lock.packages[""];
    for (const field of ["name", "version", "dependencies", "devDependencies", "peerDependencies"]) {
      if (JSON.stringify(root[field]) !== JSON.stringify(pkg[field]))
        return `package-lock.json's ${field} differs from package.json's: npm ci would refuse it`;
    }
    return undefined;
  }
  if (line === "npm pack") {
    if (!/\bnpm run build\b/.test(pkg.scripts.prepack ?? "")) return "npm pack does not build (prepack)";
    if (!pkg.files.includes("dist")) return "the tarball would not hold dist/";
    return undefined;
  }
  if (line === "npm pack --workspace simulator") {
    if (!pkg.workspaces.includes("simulator")) return "simulator/ is not a workspace of this package";
    if (!/\bnpm run build\b/.test(simPkg.scripts.prepack ?? ""))
      return "npm pack does not build it (prepack)";
    if (!simPkg.files.includes("dist")) return "the simulator's tarball would not hold dist/";
    return undefined;
  }
  if (w[1] === "install" && w[2] === "--save-dev" && w[3]?.endsWith(".tgz") && w.length === 4) {
    const packed = `${simPkg.name}-${simPkg.version}.tgz`;
    if (w[3] !== `./${packed}`) return `npm pack --workspace simulator writes ${packed}, not ${w[3]}`;
    const scripts = INSTALL_SCRIPTS.filter((s) => simPkg.scripts[s]);
    if (scripts.length) return `installing the simulator's tarball would run ${scripts.join(", ")}`;
    return undefined;
  }
  if (w[1] === "install" && w.length > 2 && w.slice(2).every((x) => pkg.peerDependencies[x])) {
    // A peer dependency by name (`npm install @pulumi/policy`), from the registry.
    return undefined;
  }
  if (w[1] === "install" && w.length === 2) {
    // A bare install in an example's folder installs that folder's package.json: this package by path.
    const manifest = join(ROOT, dirname(file), "package.json");
    if (!existsSync(manifest)) return `${dirname(file)} has no package.json to install`;
    const dep = JSON.parse(readFileSync(manifest, "utf8")).dependencies?.["pulumi-secops"];
    if (dep !== "file:../..") return `${manifest} takes pulumi-secops from ${dep}, not this checkout`;
    return undefined;
  }
  if (w[1] === "install" && w[2]?.endsWith(".tgz")) {
    const packed = `${pkg.name}-${pkg.version}.tgz`;
    if (basename(w[2]) !== packed) return `npm pack writes ${packed}, not ${basename(w[2])}`;
    // From an example's folder, the path leads to the checkout's root, where npm pack writes it;
    // elsewhere it is the copy in the reader's own program folder.
    const where = file.startsWith("examples/") ? relative(ROOT, resolve(ROOT, dirname(file), w[2])) : w[2];
    if (where !== packed && where !== `./${packed}`) return `${w[2]} is not where the tarball is`;
    if (!w.slice(3).every((x) => x === "@pulumi/pulumi" && pkg.peerDependencies[x]))
      return `${w.slice(3).join(" ")} is not the peer dependency @pulumi/pulumi`;
    const scripts = INSTALL_SCRIPTS.filter((s) => pkg.scripts[s]);
    if (scripts.length) return `installing the tarball would run ${scripts.join(", ")}`;
    return undefined;
  }
  return "unknown";
}

let sim: Simulator;
let cwd: string;
let ids: { rule: string; other: string };
beforeAll(async () => {
  sim = await createSimulator({ seed: 31 });
  cwd = mkdtempSync(join(tmpdir(), "secops-readme-"));
  writeFileSync(join(cwd, "shot.png"), Buffer.from([137, 80, 78, 71]));
  writeFileSync(join(cwd, "stack.json"), JSON.stringify({ version: 3, deployment: { resources: [] } }));
  writeFileSync(join(cwd, "ignore.txt"), "* # every seeded rule: the example state manages none\n");
  const rules = (await sim.control.state()).rules;
  ids = { rule: String(rules[0].id), other: String(rules[1].id) };
});
afterAll(async () => {
  await sim.close();
  rmSync(cwd, { recursive: true, force: true });
});

/** How an instance must end: its exit code, and what its output must show. */
interface Expect {
  code: number;
  stdout?: (out: string) => boolean;
}
const ok: Expect = { code: 0 };
/** `secops drift`: 3 when the seeded rules (made by hand, no resource holds them) are reported. */
const drift = (argv: string[]): Expect => ({
  code: argv.includes("--ignore") ? 0 : 3,
  stdout: (out) =>
    argv.includes("markdown")
      ? out.startsWith("## SecOps drift report")
      : argv.includes("json")
        ? JSON.parse(out).version === 1
        : out.startsWith("team "),
});

/** Concrete runs of each line run here: the line's own words, or instances of its synopsis. */
function runsOf(line: string): string[][] {
  const w = words(line);
  if (!/[[<]/.test(line)) return [w];
  let end = w.findIndex((x) => x.startsWith("[") || x.startsWith("<"));
  // A flag whose value is a placeholder (`--team <team>`) belongs to the instances.
  if (w[end - 1]?.startsWith("--")) end--;
  const base = w.slice(0, end);
  const each: Record<string, string[][]> = {
    whoami: [[], ["--json"]],
    "integrations count": [[], ["--search", "s"], ["--json"]],
    "cases export": [[], ["--force"]],
    "users list": [[], ["--json"]],
    "users get": [[], ["--json"]],
    "users update": [
      ["--needs-chat-ops-welcome", "false"],
      ["--chat-ops-onboarding-user", "true", "--credentials-exposed", "false", "--json"],
    ],
    "hva list": [[], ["--json"]],
    "hva get": [[ids.rule], [ids.rule, "--json"]],
    "hva create": [[], ["--field", "name", "--force", "--json"]],
    "hva enable": [[ids.rule, "--json"]],
    "hva disable": [[ids.rule]],
    "cases indicators": [[], ["--sort", "asc", "--json"]],
    "hva export": [
      [],
      ["--format", "typescript", "--native", "--out", "file"],
      ["--format", "import", "--out", "file", "--force"],
      ["--state", "stack.json", "--format", "import"],
    ],
    drift: [
      [],
      ["--key-env", "TEAM_A_KEY", "--key-env", "TEAM_B_KEY", "--ignore", "ignore.txt", "--format", "json"],
      ["--format", "markdown", "--max-rows", "5", "--json-out", "drift.json"],
    ],
    "ctl rules": [[], ["--json"]],
    "ctl users": [[], ["--json"]],
    "ctl add-rule": [
      ["--team", "team-client-1", "--field", "name", "--search", "readme-*"],
      ["--team", "team-client-2", "--field", "name", "--search", "readme-off-*", "--disabled"],
    ],
    "ctl set-rule": [[ids.rule, "--enabled", "false", "--search", "text", "--field", "name"]],
    "ctl set-user": [
      ["du-team-acme-005", "--needs-chat-ops-welcome", "true", "--chat-ops-onboarding-user", "false"],
      ["du-team-acme-005", "--credentials-exposed", "true", "--json"],
    ],
    "ctl delete-rule": [[ids.other]],
    "ctl delete-user": [["du-team-acme-004"]],
    "ctl add-user": [
      ["--team", "team-client-1"],
      ["--team", "team-client-2", "--email", "kim@client-1.example", "--name", "Kim", "--json"],
    ],
    "ctl faults": [["429:0.1@PUT /endpoint"], ["--clear"]],
    "ctl stats": [[], ["--reset"]],
    // The simulator itself (after every `ctl` key, which its lines also match).
    "secops-sim": [
      [],
      ["--strict-spec", "--seed", "1", "--state", "sim-state.json", "--faults", "429:0.1@PUT /endpoint"],
      ["--big-case", "50", "--csv-rows", "100", "--page-base", "0", "--max-page-size", "7"],
      ["--rules", "50", "--users", "20", "--team", "team-client-1"],
    ],
  };
  const key = Object.keys(each).find((k) => line.includes(` ${k} `) || line.endsWith(` ${k}`));
  if (!key) throw new Error(`no concrete instance for the synopsis: ${line}`);
  return each[key].map((extra) => [...base, ...extra]);
}

/** What an instance must do, by its command. */
function expected(argv: string[]): Expect {
  const command = argv.slice(1, 3).join(" ");
  if (argv[1] === "drift") return drift(argv);
  if (command === "ctl add-rule") return { code: 0, stdout: (out) => /^hva-[0-9a-z-]+\n$/.test(out) };
  if (command === "ctl add-user")
    return {
      code: 0,
      stdout: (out) =>
        argv.includes("--json")
          ? JSON.parse(out).email === "kim@client-1.example"
          : out === "du-team-client-1-011\n",
    };
  if (command === "hva create")
    return {
      code: 0,
      stdout: (out) =>
        argv.includes("--json") ? JSON.parse(out).search === "kiosk-*" : /^hva-\S+\n$/.test(out),
    };
  if (command === "ctl set-user")
    return {
      code: 0,
      stdout: (out) =>
        argv.includes("--json")
          ? JSON.parse(out).id === "du-team-acme-005"
          : out.trimEnd().split("\n").length === 1,
    };
  return ok;
}

function exec(argv: string[], env: NodeJS.ProcessEnv) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
    const child = spawn(process.execPath, argv, { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    const timer = setTimeout(() => {
      stderr += "(killed after 20 s)";
      child.kill("SIGKILL");
    }, 20_000);
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.once("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

/**
 * The simulator started as a line shows it (on a free port: `--port 8080` may be taken here): it prints
 * the `export` lines the page tells the reader to paste, and its API answers the key it printed.
 * Undefined when it did, else what went wrong.
 */
function startSimulator(argv: string[], env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const args = argv.map((a, i) => (argv[i - 1] === "--port" ? "0" : a));
  return new Promise((done) => {
    const child = spawn(process.execPath, [BIN["secops-sim"], ...args.slice(1)], {
      cwd,
      env,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    let settled = false;
    let exited = false;
    const finish = (problem: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (exited) return done(problem);
      child.once("close", () => done(problem));
      child.kill("SIGTERM");
    };
    const timer = setTimeout(() => finish(`no export lines in 20 s: ${stdout}${stderr}`), 20_000);
    child.stderr.on("data", (c) => (stderr += c));
    child.stdout.on("data", (c) => {
      stdout += c;
      if (!/export SECOPS_SIM_TOKEN=\S+/.test(stdout)) return;
      const url = /export SECOPS_BASE_URL=(\S+)/.exec(stdout)?.[1];
      const key = /export SECOPS_API_KEY=(\S+)/.exec(stdout)?.[1];
      if (!url || !key) return finish(`missing export lines: ${stdout}`);
      fetch(`${url}/v1/auth/me`, { headers: { authorization: `Bearer ${key}` } }).then(
        (res) => finish(res.status === 200 ? undefined : `GET /v1/auth/me answered ${res.status}`),
        (err: Error) => finish(err.message),
      );
    });
    child.once("close", (code) => {
      exited = true;
      finish(`exited ${code} before serving: ${stderr}`);
    });
  });
}

test("NOT_RUN_HERE: each entry names a file that exists and shows what it runs, and matches a line of the pages", () => {
  const lines = commandLines();
  const wrong = NOT_RUN_HERE.flatMap((e) => {
    const where = join(ROOT, e.where);
    if (!existsSync(where)) return [`${e.line}: ${e.where} does not exist`];
    if (!readFileSync(where, "utf8").includes(e.shows))
      return [`${e.line}: ${e.where} does not show ${e.shows}`];
    const matched = lines.some((l) => elsewhere(l) === e);
    return matched ? [] : [`${e.line} (${e.pages.join(", ")}): no command line of those pages matches it`];
  });
  expect(wrong).toEqual([]);
  // Every line of a page is run here or named there: none is left to a marker in the page.
  expect(lines.filter((l) => !/^npm exec --no -- secops(-sim)? /.test(l.line) && !elsewhere(l))).toEqual([]);
});

test("every command line of the README, docs/ and the examples is run here, or runs where NOT_RUN_HERE says", async () => {
  const lines = commandLines();
  expect(lines.length).toBeGreaterThan(25);
  const env = {
    ...process.env,
    SECOPS_BASE_URL: sim.url,
    SECOPS_API_KEY: sim.apiKeys.admin,
    SECOPS_SIM_TOKEN: sim.controlToken,
    TEAM_A_KEY: sim.apiKeys.client1Admin,
    TEAM_B_KEY: sim.apiKeys.client2Admin,
  };
  const unaccounted: string[] = [];
  const failed: string[] = [];
  let ran = 0;
  for (const command of lines) {
    const { file, line } = command;
    const npmExec = /^npm exec --no -- (secops|secops-sim) /.exec(line);
    if (!npmExec) {
      if (!elsewhere(command)) unaccounted.push(`${file}: ${line}`);
      // What an npm line that runs elsewhere relies on, checked here too.
      const problem = line.startsWith("npm ") ? npmLineProblem(file, line) : undefined;
      if (problem === "unknown") failed.push(`${file}: ${line}: no check of what it relies on`);
      else if (problem) failed.push(`${file}: ${line}: ${problem}`);
      continue;
    }
    for (const run of runsOf(line)) {
      const argv = run.slice(4); // after `npm exec --no --`
      const flags = argv.slice(1).filter((a) => a.startsWith("--"));
      for (const f of flags) if (!line.includes(f)) failed.push(`${line}: ${f} is not in the synopsis`);
      ran++;
      if (argv[0] === "secops-sim" && argv[1] !== "ctl") {
        const problem = await startSimulator(argv, env);
        if (problem) failed.push(`${argv.join(" ")}: ${problem}`);
        continue;
      }
      const want = expected(argv);
      const r = await exec([BIN[argv[0]], ...argv.slice(1)], env);
      if (r.code !== want.code || (want.stdout && !want.stdout(r.stdout)))
        failed.push(
          `${argv.join(" ")}: exit ${r.code} (expected ${want.code}): ${r.stderr.trim() || r.stdout}`,
        );
    }
  }
  expect(unaccounted).toEqual([]);
  expect(failed).toEqual([]);
  expect(ran).toBeGreaterThanOrEqual(20);
  // What the commands did, in the API: the rule was changed, the other deleted, the user deleted, two
  // rules made by hand (one disabled), the user's flags set.
  const state = await sim.control.state();
  expect(state.rules.find((r) => r.id === ids.rule)).toMatchObject({ enabled: false, search: "text" });
  expect(state.rules.some((r) => r.id === ids.other)).toBe(false);
  expect(state.users.some((u) => u.id === "du-team-acme-004")).toBe(false);
  expect(state.users.find((u) => u.id === "du-team-acme-005")).toMatchObject({
    needsChatOpsWelcome: true,
    chatOpsOnboardingUser: false,
    credentialsExposed: true,
  });
  // `secops users update` (the API's PATCH), `hva create` (twice), `hva enable` then `disable`,
  // `ctl add-user` (once in each client team).
  expect(state.users.find((u) => u.id === "du-team-acme-007")).toMatchObject({
    needsChatOpsWelcome: false,
    chatOpsOnboardingUser: true,
    credentialsExposed: false,
  });
  expect(state.rules.filter((r) => r.search === "kiosk-*").map((r) => [r.teamId, r.enabled])).toEqual([
    ["team-acme", true],
    ["team-acme", true],
  ]);
  expect(
    state.users.filter((u) => u.id === "du-team-client-1-011" || u.email === "kim@client-1.example"),
  ).toEqual([
    expect.objectContaining({ id: "du-team-client-1-011", teamId: "team-client-1" }),
    expect.objectContaining({ id: "du-team-client-2-011", teamId: "team-client-2", displayName: "Kim" }),
  ]);
  const byHand = state.rules.filter((r) => String(r.search).startsWith("readme-"));
  expect(byHand.map((r) => [r.teamId, r.search, r.enabled]).sort()).toEqual([
    ["team-client-1", "readme-*", true],
    ["team-client-2", "readme-off-*", false],
  ]);
  expect(existsSync(join(cwd, "cases.csv")) && existsSync(join(cwd, "file"))).toBe(true);
});
