/**
 * Issue 45 point 3: `secops cases export --out` checks its target before any request: an existing
 * file is kept (exit 2) unless `--force`, a folder is refused (an existing one, or a path ending in
 * `/`), a missing folder is named; the simulator sees no request for any of these. With `--force`
 * the file is replaced by the whole export.
 */
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createSimulator, type Simulator } from "secops-sim";
import { built, run } from "../helpers/spawn";

const CLI = built("cli/secops.js");
let sim: Simulator;
let dir: string;
let env: Record<string, string>;
beforeAll(async () => {
  sim = await createSimulator({ seed: 3 });
  dir = mkdtempSync(join(tmpdir(), "secops-export-out-"));
  env = { SECOPS_BASE_URL: sim.url, SECOPS_API_KEY: sim.apiKeys.admin };
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

const requests = async () => (await sim.control.stats()).requests;

test("an existing file: exit 2 without --force, nothing requested, the file as it was", async () => {
  const out = join(dir, "cases.csv");
  writeFileSync(out, "mine\n");
  await sim.control.resetStats();
  expect(await run(CLI, ["cases", "export", "--out", out], env)).toEqual({
    code: 2,
    stdout: "",
    stderr: `secops: --out ${out}: the file exists; pass --force to replace it\n`,
  });
  expect(await requests()).toEqual({});
  expect(readFileSync(out, "utf8")).toBe("mine\n");
  const forced = await run(CLI, ["cases", "export", "--out", out, "--force"], env);
  const csv = readFileSync(out, "utf8");
  expect(forced).toEqual({
    code: 0,
    stdout: "",
    stderr: `wrote ${Buffer.byteLength(csv)} bytes to ${out}\n`,
  });
  expect(csv.split("\r\n")[0]).toBe("id,sid,title,status,severity,createdAt,detectionCount");
  expect(csv).toContain("case-012,");
  expect(await requests()).toEqual({ "POST /v1/cases/export/csv": 1 });
});

test("a folder is refused before the request, existing or not, and nothing is written in it", async () => {
  const folder = join(dir, "exports");
  mkdirSync(folder);
  await sim.control.resetStats();
  for (const target of [folder, `${folder}/`, `${join(dir, "not-yet")}/`])
    expect(await run(CLI, ["cases", "export", "--out", target, "--force"], env)).toEqual({
      code: 2,
      stdout: "",
      stderr: `secops: --out ${target}: is a folder; name a file, e.g. --out ${join(target, "cases.csv")}\n`,
    });
  const missing = join(dir, "nowhere", "cases.csv");
  expect(await run(CLI, ["cases", "export", "--out", missing], env)).toEqual({
    code: 2,
    stdout: "",
    stderr: `secops: --out ${missing}: no such folder ${join(dir, "nowhere")}\n`,
  });
  expect(await requests()).toEqual({});
  expect(readdirSync(folder)).toEqual([]);
  expect(existsSync(join(dir, "not-yet"))).toBe(false);
});
