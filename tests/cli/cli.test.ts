/** The `secops` CLI end to end: spawned from dist/, exit codes and output. */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parse } from "csv-parse/sync";
import { createSimulator, type Simulator } from "secops-sim";
import { built, run } from "../helpers/spawn";

const CLI = built("cli/secops.js");
let sim: Simulator;
let env: Record<string, string>;
let dir: string;
beforeAll(async () => {
  sim = await createSimulator({ seed: 41, bigCase: 250, csvRows: 400_000 });
  env = { SECOPS_BASE_URL: sim.url, SECOPS_API_KEY: sim.apiKeys.admin };
  dir = mkdtempSync(join(tmpdir(), "secops-cli-"));
});
afterAll(async () => {
  await sim.close();
  rmSync(dir, { recursive: true, force: true });
});

test("whoami", async () => {
  const r = await run(CLI, ["whoami"], env);
  expect(r).toMatchObject({
    code: 0,
    stdout: "Service account (admin) <svc-admin@example.test> ADMIN in team team-acme\n",
  });
  const none = await run(CLI, ["whoami", "--json"], { ...env, SECOPS_API_KEY: "" });
  expect(none.code).toBe(2);
  expect(none.stderr).toBe(
    "secops: no API key: environment variable SECOPS_API_KEY is empty or not set (set SECOPS_API_KEY, or name another variable with --api-key-env)\n",
  );
  const noUrl = await run(CLI, ["whoami"], { ...env, SECOPS_BASE_URL: "" });
  expect(noUrl).toMatchObject({
    code: 2,
    stderr: "secops: no base URL: pass --base-url <url> or set SECOPS_BASE_URL\n",
  });
  const refused = await run(CLI, ["--api-key-env", "OTHER_KEY", "whoami"], {
    ...env,
    OTHER_KEY: "not-a-real-key-1",
  });
  expect(refused).toMatchObject({
    code: 1,
    stderr:
      "secops: GET /v1/auth/me failed (401): Unauthorized: the API key from $OTHER_KEY was refused; check that it is a valid team API key [SECOPS_AUTH]\n",
  });
  const v = await run(CLI, ["--api-key-env", "OTHER_KEY", "whoami", "--json"], {
    ...env,
    OTHER_KEY: sim.apiKeys.viewer,
  });
  expect(JSON.parse(v.stdout)).toMatchObject({ role: "VIEWER" });
});

test("integrations count with filters; usage errors exit 2; API rules exit 1", async () => {
  expect(await run(CLI, ["integrations", "count", "--include-disabled"], env)).toMatchObject({
    code: 0,
    stdout: "40\n",
  });
  expect(
    await run(
      CLI,
      ["integrations", "count", "--health", "healthy", "--health", "unhealthy", "--include-disabled"],
      env,
    ),
  ).toMatchObject({ code: 0, stdout: "20\n" });
  expect(
    await run(CLI, ["integrations", "count", "--type", "siem", "--include-disabled"], env),
  ).toMatchObject({ code: 0, stdout: "3\n" });
  const bad = await run(CLI, ["integrations", "count", "--health", "sick"], env);
  expect(bad.code).toBe(2);
  expect(bad.stderr).toContain("--health must be one of healthy, unhealthy, unstable, unknown");
  const scope = await run(CLI, ["integrations", "count", "--scope", "CLIENTS"], env);
  expect(scope.code).toBe(2);
  expect(scope.stderr).toBe(
    "secops: --scope: only service-provider callers may set it; team team-acme is not a service provider [SECOPS_INVALID_INPUT]\n",
  );
  const sp = await run(CLI, ["integrations", "count", "--scope", "SERVICE_PROVIDER", "--include-disabled"], {
    ...env,
    SECOPS_API_KEY: sim.apiKeys.serviceProviderAdmin,
  });
  expect(sp).toMatchObject({ code: 0, stdout: "6\n" });
  expect((await run(CLI, ["nope"], env)).code).toBe(2);
});

test("cases indicators: a table by default, JSON on request, every page", async () => {
  const t = await run(CLI, ["cases", "indicators", "case-002", "--sort", "asc"], env);
  expect(t.code).toBe(0);
  const lines = t.stdout.trimEnd().split("\n");
  expect(lines[0]).toMatch(/^ID\s+CREATED\s+SEVERITY\s+STATUS\s+VERDICT\s+TITLE$/);
  expect(lines.slice(1, -1).map((l) => l.split(/\s+/)[0])).toEqual(
    Array.from({ length: 6 }, (_, i) => `det-case-002-0000${i + 1}`),
  );
  expect(lines.at(-1)).toBe("6 of 6 indicators");
  const j = await run(CLI, ["cases", "indicators", "case-big", "--json"], env);
  const body = JSON.parse(j.stdout);
  expect(body.totalCount).toBe(250);
  expect(new Set(body.data.map((d: { id: string }) => d.id)).size).toBe(250);
  const missing = await run(CLI, ["cases", "indicators", "case-nope"], env);
  expect(missing).toMatchObject({
    code: 1,
    stderr:
      "secops: GET /v1/cases/case-nope/threat-indicators failed (404): Case case-nope not found [SECOPS_NOT_FOUND]\n",
  });
});

/**
 * An API stand-in whose CSV export sends `first`, then holds the rest of the answer until `release()`.
 * What the CLI has written before the release it wrote while the download was still going on.
 */
async function heldExport(first: string, rest: string) {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  const requests: string[] = [];
  const server = createServer((req, res) => {
    requests.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(200, { "content-type": "text/csv; charset=utf-8" });
    res.write(first);
    void released.then(() => res.end(rest));
  });
  await new Promise<void>((d) => server.listen(0, "127.0.0.1", d));
  return {
    env: {
      SECOPS_BASE_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      SECOPS_API_KEY: "held-export-key-1",
    },
    requests,
    release,
    close: () =>
      new Promise<void>((d) => {
        server.close(() => d());
        server.closeAllConnections();
      }),
  };
}

const csvRows = (from: number, to: number) =>
  Array.from(
    { length: to - from },
    (_, i) => `case-${from + i},C-${1000 + from + i},Case ${from + i}\r\n`,
  ).join("");

test("cases export --out streams: the first rows are on disk while the API still holds the rest", async () => {
  // Buffering the answer (what would make memory grow with the export) would keep them off the disk.
  const first = `id,sid,title\r\n${csvRows(0, 2_000)}`;
  const rest = csvRows(2_000, 4_000);
  const api = await heldExport(first, rest);
  try {
    const out = join(dir, "held.csv");
    const partial = `${out}.partial`;
    const done = run(CLI, ["cases", "export", "--out", out], api.env);
    const onDisk = () => (existsSync(partial) ? statSync(partial).size : 0);
    // Waits for the event (the bytes on disk), bounded; nothing is asserted about how long it took.
    for (let i = 0; i < 1_000 && onDisk() < first.length; i++) await new Promise((r) => setTimeout(r, 10));
    const before = onDisk();
    api.release();
    const r = await done;
    expect(before).toBe(first.length);
    expect(api.requests).toEqual(["POST /v1/cases/export/csv"]);
    const size = first.length + rest.length;
    expect(r).toMatchObject({ code: 0, stdout: "", stderr: `wrote ${size} bytes to ${out}\n` });
    expect(readFileSync(out, "utf8")).toBe(first + rest);
    expect(existsSync(partial)).toBe(false);
  } finally {
    await api.close();
  }
});

test("cases export to standard output streams too: the first rows come out before the answer ends", async () => {
  const first = `id,sid,title\r\n${csvRows(0, 2_000)}`;
  const rest = csvRows(2_000, 4_000);
  const api = await heldExport(first, rest);
  try {
    const { spawn } = await import("node:child_process");
    const child = spawn(process.execPath, [CLI, "cases", "export"], {
      env: { ...process.env, ...api.env },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stderr.on("data", (c) => (stderr += c));
    const closed = new Promise((resolve) => child.on("close", resolve));
    await new Promise<void>((resolve) =>
      child.stdout.on("data", (c) => {
        stdout += c;
        if (stdout.length >= first.length) resolve();
      }),
    );
    expect(stdout).toBe(first);
    api.release();
    expect(await closed).toBe(0);
    expect({ stdout, stderr }).toEqual({ stdout: first + rest, stderr: "" });
  } finally {
    await api.close();
  }
});

test("cases export to standard output", async () => {
  const small = await createSimulator({ seed: 42 });
  const r = await run(CLI, ["cases", "export"], {
    SECOPS_BASE_URL: small.url,
    SECOPS_API_KEY: small.apiKeys.viewer,
  });
  expect(r.code).toBe(0);
  expect(parse(r.stdout, { columns: true })).toHaveLength(12);
  await small.close();
});

test("comments edit: content and attachments from files", async () => {
  const png = join(dir, "shot.png");
  writeFileSync(png, Buffer.from([137, 80, 78, 71]));
  const r = await run(
    CLI,
    ["comments", "edit", "cmt-003", "--content", "from the CLI", "--attach", png],
    env,
  );
  expect(r.code).toBe(0);
  // A readable summary: attachments by name, type and size, never their data.
  expect(r.stdout).toMatch(
    /^comment cmt-003 updated at \S+\ncontent: "from the CLI"\nattachments:\n {2}shot\.png {2}image\/png {2}4 bytes\n$/,
  );
  const j = await run(CLI, ["comments", "edit", "cmt-003", "--content", "again", "--json"], env);
  const c = JSON.parse(j.stdout);
  expect(c).toMatchObject({ id: "cmt-003", content: "again" });
  expect(c.attachments).toEqual([
    expect.objectContaining({ filename: "shot.png", contentType: "image/png", size: 4, data: "iVBORw==" }),
  ]);
  expect(await run(CLI, ["comments", "edit", "cmt-003"], env)).toMatchObject({
    code: 2,
    stderr: "secops: give --content, --attach or --clear-attachments\n",
  });
  expect(
    await run(CLI, ["comments", "edit", "cmt-003", "--attach", png, "--clear-attachments"], env),
  ).toMatchObject({
    code: 2,
    stderr:
      "secops: --attach replaces every attachment already; do not combine it with --clear-attachments\n",
  });
  expect(
    await run(CLI, ["comments", "edit", "cmt-003", "--attach", join(dir, "missing.png")], env),
  ).toMatchObject({
    code: 2,
    stderr: `secops: --attach ${join(dir, "missing.png")}: no such file\n`,
  });
});

test("exit 2 for what is wrong on the user's side before the API is reached, 1 for API errors", async () => {
  expect(await run(CLI, ["cases", "export", "--out", join(dir, "no-such-dir", "x.csv")], env)).toMatchObject({
    code: 2,
    stderr: `secops: --out ${join(dir, "no-such-dir", "x.csv")}: no such folder ${join(dir, "no-such-dir")}\n`,
  });
  expect(await run(CLI, ["cases", "indicators", " "], env)).toMatchObject({
    code: 2,
    stderr: "secops: caseId: must be a non-empty string [SECOPS_INVALID_INPUT]\n",
  });
  expect(await run(CLI, ["cases", "indicators", "case-nope"], env)).toMatchObject({ code: 1 });
  expect(await run(CLI, ["--base-url", "https://user:pw@api.example.test", "whoami"], env)).toMatchObject({
    code: 2,
    stderr:
      "secops: --base-url / SECOPS_BASE_URL: baseUrl must not contain credentials, a query or a fragment\n",
  });
});

test("a closed standard output ends the command quietly (| head -1)", async () => {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [CLI, "cases", "indicators", "case-big", "--json"], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (c) => (stderr += c));
  await new Promise((resolve) => child.stdout.once("data", resolve));
  child.stdout.destroy(); // what `head -1` does once it has its line
  const code = await new Promise((resolve) => child.on("close", resolve));
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });
});

test("help: every group has a sentence, --type and --health list their values, every leaf an example", async () => {
  const help = async (...args: string[]) =>
    (await run(CLI, [...args, "--help"], env)).stdout.replace(/\s+/g, " ");
  expect(await help("integrations")).toContain(
    " Integrations with third-party products: count them by health, type or text. ",
  );
  expect(await help("cases")).toContain(" Cases: list a case's threat indicators, export cases as CSV. ");
  expect(await help("comments")).toContain(" Timeline comments on cases: edit their text and attachments. ");
  const count = await help("integrations", "count");
  expect(count).toContain("(healthy, unhealthy, unstable, unknown)");
  expect(count).toContain("(collaboration, endpoint, identity, network_vpn, cloud, siem, saas,");
  const leaves = [
    ["whoami"],
    ["integrations", "count"],
    ["cases", "indicators"],
    ["cases", "export"],
    ["comments", "edit"],
  ];
  for (const leaf of leaves)
    expect({ leaf, example: (await help(...leaf)).includes("Example: $ secops ") }).toEqual({
      leaf,
      example: true,
    });
});

test("the API key never appears in CLI output or errors", async () => {
  const outputs = await Promise.all([
    run(CLI, ["whoami", "--json"], env),
    run(CLI, ["cases", "indicators", "case-nope"], env),
    run(CLI, ["whoami"], { ...env, SECOPS_BASE_URL: "http://127.0.0.1:1" }),
  ]);
  for (const r of outputs) expect(r.stdout + r.stderr).not.toContain(sim.apiKeys.admin);
});

test("secops sim: starts the simulator, prints its connection details, stops on SIGTERM", async () => {
  const { spawn } = await import("node:child_process");
  const child = spawn(process.execPath, [CLI, "sim", "--json", "--seed", "5", "--strict-spec"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  const line = await new Promise<string>((resolve) => child.stdout.once("data", (c) => resolve(String(c))));
  const info = JSON.parse(line);
  expect(info).toMatchObject({ url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/), strictSpec: true });
  const r = await run(CLI, ["whoami"], { SECOPS_BASE_URL: info.url, SECOPS_API_KEY: info.apiKeys.analyst });
  expect(r).toMatchObject({ code: 0, stdout: expect.stringContaining("ANALYST") });
  const exited = new Promise((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  expect(await exited).toBe(0);
});

test("cases export shows bytes written on a terminal (pseudo-terminal via script(1))", async () => {
  // Asynchronous: the simulator serves from this process, so a synchronous spawn would deadlock.
  const { spawn } = await import("node:child_process");
  const out = join(dir, "tty.csv");
  const cmd = `${process.execPath} ${CLI} cases export --out ${out}`;
  const child = spawn("script", ["-qc", cmd, "/dev/null"], { env: { ...process.env, ...env } });
  let screen = "";
  child.stdout.on("data", (c) => (screen += c));
  expect(await new Promise((resolve) => child.on("close", resolve))).toBe(0);
  const size = statSync(out).size;
  const counts = [...screen.matchAll(/writing [^:]+: (\d+) bytes/g)].map((m) => Number(m[1]));
  expect(counts.length).toBeGreaterThan(0);
  expect(counts).toEqual([...counts].sort((a, b) => a - b));
  expect(counts.every((n) => n <= size)).toBe(true);
  expect(screen).toContain(`wrote ${size} bytes to ${out}`);
}, 60_000);
