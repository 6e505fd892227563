/**
 * The plugin gives its C heap's free memory back once API calls stop (provider/native/plugin/trim.ts):
 * when the trims come (fake clock), that glibc's malloc_trim is reached through node:ffi on Node 26
 * and on no earlier Node, that node:ffi's experimental warning never reaches the plugin's stderr (the
 * engine shows it to the user), and that a plugin keeps serving past its trim ticks.
 */
import { writeFileSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { NativePluginProcess, secret } from "pulumi-secops/testing";
import { createSimulator } from "pulumi-secops/simulator";
import { heapTrimmer } from "../../provider/native/plugin/trim";
import { built, run } from "../helpers/spawn";

const NODE_MAJOR = Number(process.versions.node.split(".")[0]);
/** node:ffi exists from Node 26; this machine's libc is glibc. */
const FFI = NODE_MAJOR >= 26;

describe("when the trims come", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test("none during calls; each second from the first second without one; none after a minute", () => {
    let trims = 0;
    const trimmer = heapTrimmer(() => trims++);
    expect(trimmer.available).toBe(true);
    // A call every half second for 10 s: never a second without one.
    for (let i = 0; i < 20; i++) {
      trimmer.touch();
      jest.advanceTimersByTime(500);
    }
    expect(trims).toBe(0);
    jest.advanceTimersByTime(1_000); // 1.5 s after the last call
    expect(trims).toBe(1);
    jest.advanceTimersByTime(10_000);
    expect(trims).toBe(11);
    jest.advanceTimersByTime(120_000); // the minute ends: the timer stops
    expect(trims).toBe(60);
    expect(jest.getTimerCount()).toBe(0);
    expect(trimmer.trims).toBe(60);
    // The next call starts it again.
    trimmer.touch();
    jest.advanceTimersByTime(3_000);
    expect(trims).toBe(63);
  });

  test("a trim that throws ends the trimming, not the process", () => {
    let calls = 0;
    const trimmer = heapTrimmer(() => {
      calls++;
      throw new Error("ffi changed");
    });
    trimmer.touch();
    expect(() => jest.advanceTimersByTime(5_000)).not.toThrow();
    expect(calls).toBe(1);
    expect(trimmer.available).toBe(false);
    expect(trimmer.trims).toBe(0);
    expect(jest.getTimerCount()).toBe(0);
    trimmer.touch(); // later calls start nothing again
    expect(jest.getTimerCount()).toBe(0);
  });

  test("a trimmer without malloc_trim never starts a timer", () => {
    const prev = process.env.SECOPS_PLUGIN_TRIM;
    process.env.SECOPS_PLUGIN_TRIM = "0";
    try {
      const trimmer = heapTrimmer();
      trimmer.touch();
      expect(trimmer.available).toBe(false);
      expect(jest.getTimerCount()).toBe(0);
    } finally {
      if (prev === undefined) delete process.env.SECOPS_PLUGIN_TRIM;
      else process.env.SECOPS_PLUGIN_TRIM = prev;
    }
  });
});

describe("malloc_trim through node:ffi, in a process of its own", () => {
  const dir = mkdtempSync(join(tmpdir(), "secops-trim-"));
  const probe = join(dir, "probe.js");
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(
    probe,
    `const { heapTrimmer } = require(${JSON.stringify(built("native/plugin/trim.js"))});
const t = heapTrimmer();
t.touch();
setTimeout(() => console.log(JSON.stringify({ available: t.available, trims: t.trims })), 2_300);
setTimeout(() => {}, 2_400);
`,
  );

  test(`${FFI ? "found and run" : "absent"} on Node ${NODE_MAJOR}; no warning on stderr`, async () => {
    const ran = await run(probe, []);
    expect(ran.code).toBe(0);
    const { available, trims } = JSON.parse(ran.stdout) as { available: boolean; trims: number };
    expect(available).toBe(FFI);
    // Ticks at 1 s and 2 s after the call; on a loaded machine the second may come after the probe reads.
    if (FFI) expect([1, 2]).toContain(trims);
    else expect(trims).toBe(0);
    expect(ran.stderr).toBe("");
  });

  test("SECOPS_PLUGIN_TRIM=0 turns it off on every Node", async () => {
    const ran = await run(probe, [], { SECOPS_PLUGIN_TRIM: "0" });
    expect(JSON.parse(ran.stdout)).toEqual({ available: false, trims: 0 });
    expect(ran.stderr).toBe("");
  });
});

test("a plugin two trim ticks after an API call (it trims on Node 26) serves on, with nothing on stderr", async () => {
  built("plugin/pulumi-resource-secops.js");
  const sim = await createSimulator({ seed: 7 });
  const plugin = await NativePluginProcess.start();
  try {
    await plugin.configure({ apiKey: secret(sim.apiKeys.admin), baseUrl: sim.url }, {});
    const first = await plugin.invoke("secops:index:getIdentity", {});
    await new Promise((r) => setTimeout(r, 2_300)); // two ticks: at least one trim on Node 26
    expect(await plugin.invoke("secops:index:getIdentity", {})).toEqual(first);
    expect(first.failures).toEqual([]);
    expect(plugin.stderr).toBe("");
  } finally {
    await plugin.close();
    await sim.close();
  }
});
