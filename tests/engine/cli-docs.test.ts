/**
 * Every `pulumi` command line of README.md and docs/*.md, run for real by the Pulumi CLI on a Pulumi
 * YAML project (examples/yaml-hva-rules: the CLI runs it with nothing else) against the simulator,
 * as written: only the placeholders are filled in (the simulator's URL and key, a hand-made rule's
 * id, the release archive's path from the checkout's root) and `--yes` is added where the CLI would
 * ask. The lines run in the order a reader follows them: install, settings, up, export, preview,
 * listing, import, plugin install; a line written the same in several places runs once. A pulumi line
 * none of these steps knows fails this test.
 *
 * The project starts as a fresh machine has it (issue 56): no pulumi-secops and nothing of this
 * checkout. The pages' `npm install` lines make its node_modules: the package's tarball, packed from
 * this build, installed as npm leaves it (tests/cli/packed-install.ts), and each package they name by
 * name linked from this checkout's node_modules (the version an install fetches). So a command that
 * needs what no page installs fails here, as the policy pack without @pulumi/policy did.
 */
import { readFileSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { VERSION } from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";
import { TARBALL, installNamed, installPacked } from "../cli/packed-install";
import { exec, pulumiCli, releaseArchive, yamlProject } from "../helpers/pulumi-cli";
import { rules, writes } from "../helpers/sim-counts";
import { ROOT } from "../helpers/spawn";

jest.setTimeout(300_000);
let sim: Simulator;
let dir: string;

/**
 * The `pulumi` lines of the sh blocks of README.md and docs/*.md (continuations joined), and their
 * `npm install` lines of the package's tarball or of packages by name, each line once: `file` names
 * every file that writes it.
 */
function pulumiLines(): Array<{ file: string; line: string }> {
  const files = [
    "README.md",
    ...readdirSync(join(ROOT, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  const out: Array<{ file: string; line: string }> = [];
  for (const file of files) {
    const text = readFileSync(join(ROOT, file), "utf8");
    for (const block of text.matchAll(/^ *```(?:sh|bash|shell)\n([\s\S]*?)^ *```/gm))
      for (const l of block[1].replace(/\\\n\s*/g, "").split("\n")) {
        const line = l.replace(/\s+#.*$/, "").trim();
        if (!line.startsWith("pulumi ") && install(line) === undefined) continue;
        const same = out.find((o) => o.line === line);
        if (same) same.file += same.file.split(", ").includes(file) ? "" : `, ${file}`;
        else out.push({ file, line });
      }
  }
  return out;
}

/** Words of a command line as a shell splits them (quotes removed). */
const words = (line: string) =>
  [...line.matchAll(/"([^"]*)"|'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);

/**
 * What an `npm install` line installs into the project: the package's tarball and packages by name
 * (`npm install ./pulumi-secops-0.1.0.tgz @pulumi/pulumi`, `npm install @pulumi/policy`); undefined for
 * any other line (the simulator's tarball is tests/consumer/'s).
 */
function install(line: string): { tarball: boolean; names: string[] } | undefined {
  const w = words(line);
  if (w[0] !== "npm" || w[1] !== "install" || w.length < 3 || w.some((x) => x.startsWith("-"))) return;
  const names = w.slice(2).filter((x) => !x.endsWith(`/${TARBALL}`));
  if (names.some((x) => x.endsWith(".tgz") || x.startsWith("."))) return;
  return { tarball: names.length < w.length - 2, names };
}

/** The order a reader follows the lines in; undefined for a line no step knows. */
function step(line: string): number | undefined {
  const installs = install(line);
  if (installs) return installs.tarball ? -2 : -1;
  const order: Array<[RegExp, number]> = [
    [/^pulumi config set /, 0],
    [/^pulumi up$/, 1],
    [/^pulumi stack export /, 2],
    // The policy pack (docs/policy.md) on the program and on that export: the stack is clean.
    [/^pulumi (preview|policy analyze) --policy-pack node_modules\/pulumi-secops\/policy-pack\//, 2.5],
    [/^pulumi preview --refresh --expect-no-changes$/, 3],
    [/^pulumi do secops:index:\w+ list /, 4],
    [/^pulumi import secops:index:HvaAutomationRule \w+ <rule id>$/, 5],
    [/^pulumi plugin install resource secops /, 6],
  ];
  return order.find(([re]) => re.test(line))?.[1];
}

/** The first JSON block of a page (the config file its command line names). */
function jsonBlockOf(page: string): string {
  const block = /^```json\n([\s\S]*?)^```/m.exec(readFileSync(page, "utf8"));
  if (!block) throw new Error(`${page} shows no JSON block`);
  return block[1];
}

let project: ReturnType<typeof yamlProject>;
let archive: string;

/** `pulumi <args>` in the project's folder; `pulumi do` takes the key from SECOPS_API_KEY, as the docs say. */
const pulumi = (args: string[]) =>
  exec(join(pulumiCli().bin, "pulumi"), [...args, "--non-interactive"], dir, {
    ...process.env,
    ...project.env({ PULUMI_STACK: "dev", SECOPS_API_KEY: sim.apiKeys.admin, SECOPS_BASE_URL: sim.url }),
  });

beforeAll(async () => {
  sim = await createSimulator({ seed: 408 });
  project = yamlProject("docs");
  dir = project.dir;
  // A fresh machine: the pages' install lines put the package there (yamlProject links the checkout).
  rmSync(join(dir, "node_modules", "pulumi-secops"));
  archive = await releaseArchive();
});
afterAll(async () => {
  project?.remove();
  await sim?.close();
});

test("every pulumi line of the README and docs/ runs for real, as written", async () => {
  const lines = pulumiLines();
  expect(lines.length).toBeGreaterThanOrEqual(8);
  const unknown = lines.filter((l) => step(l.line) === undefined).map((l) => `${l.file}: ${l.line}`);
  expect(unknown).toEqual([]);
  expect(await pulumi(["stack", "init", "dev"])).toMatchObject({ code: 0 });
  const before = await rules(sim);
  const hand = await sim.control.addRule({ teamId: "team-acme", searchField: "name", search: "legacy-*" });
  // Placeholders filled in on the line (some hold spaces), then the archive's path from the root.
  const fill = (line: string) =>
    words(
      line
        .replaceAll("https://api.example.com", sim.url)
        .replaceAll("<team API key>", sim.apiKeys.admin)
        .replaceAll("<rule id>", hand.id),
    ).map((w) => (w.startsWith("dist/release/") ? join(ROOT, w) : w));
  expect(
    lines
      .filter((l) => l.line.includes("dist/release/"))
      .every((l) => l.line.includes(relative(ROOT, archive))),
  ).toBe(true);
  const failed: string[] = [];
  for (const { file, line } of [...lines].sort((a, b) => step(a.line)! - step(b.line)!)) {
    const installs = install(line);
    if (installs) {
      if (installs.tarball) installPacked(dir);
      installNamed(dir, installs.names);
      continue;
    }
    const args = fill(line).slice(1);
    if (/^pulumi (up|import) /.test(`${line} `)) args.push("--yes");
    if (line.includes("--policy-pack-config policy.json"))
      writeFileSync(join(dir, "policy.json"), jsonBlockOf(join(ROOT, file.split(", ")[0])));
    const ran = await pulumi(args);
    if (ran.code !== 0) failed.push(`${file}: ${line}: exit ${ran.code}\n${ran.stdout}${ran.stderr}`);
    // What each step left, in the simulator and the files.
    if (line === "pulumi up")
      expect(await rules(sim)).toEqual(
        [...before, "team-acme legacy-* true", "team-acme dc-* true", "team-acme build-* false"].sort(),
      );
    if (line.startsWith("pulumi stack export"))
      expect(JSON.parse(readFileSync(join(dir, "stack.json"), "utf8")).deployment.resources.length).toBe(4);
    if (line.startsWith("pulumi preview")) expect(await writes(sim)).toBe(0);
    if (line.startsWith("pulumi do secops:index:HvaAutomationRule list") && ran.code === 0) {
      const listed = (JSON.parse(ran.stdout) as Array<{ id: string }>).map((r) => r.id);
      const live = (await sim.control.state()).rules.filter((r) => r.teamId === "team-acme");
      const want = live.filter(
        (r) =>
          String(r.search).startsWith("dc-") && (!line.includes("--enabled=false") || r.enabled === false),
      );
      expect(listed.sort()).toEqual(want.map((r) => String(r.id)).sort());
    }
    if (line.startsWith("pulumi import") && ran.code === 0) {
      const state = JSON.parse((await pulumi(["stack", "export"])).stdout) as {
        deployment: { resources: Array<{ id?: string }> };
      };
      expect(state.deployment.resources.map((r) => r.id)).toContain(hand.id);
    }
    if (line.startsWith("pulumi")) await sim.control.resetStats();
  }
  expect(failed).toEqual([]);
  expect(JSON.parse((await pulumi(["plugin", "ls", "--json"])).stdout)).toEqual(
    expect.arrayContaining([expect.objectContaining({ name: "secops", kind: "resource", version: VERSION })]),
  );
});
