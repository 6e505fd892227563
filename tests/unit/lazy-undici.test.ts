/**
 * The client loads undici's Agent and request API alone, never undici's index (fetch, WebSocket,
 * EventSource, mocks, caches: 3 MB more heap in every plugin process), and requests still work.
 * Checked in a fresh process: jest's own process has the index loaded by other tests.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { built, run } from "../helpers/spawn";

const CLIENT = built("client/index.js");
const SIMULATOR = built("simulator/index.js");

test("a request loads undici's Agent and request API, not its index", async () => {
  const script = `
    const { SecOpsClient } = require(${JSON.stringify(CLIENT)});
    const { createSimulator } = require(${JSON.stringify(SIMULATOR)});
    (async () => {
      const sim = await createSimulator({ seed: 3 });
      const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url });
      const me = await client.identity();
      const loaded = Object.keys(require.cache).filter((f) => f.includes("/node_modules/undici/"));
      console.log(JSON.stringify({
        team: me.teamId,
        index: loaded.some((f) => f.endsWith("/node_modules/undici/index.js")),
        agent: loaded.some((f) => f.endsWith("/lib/dispatcher/agent.js")),
        api: loaded.some((f) => f.endsWith("/lib/api/api-request.js")),
      }));
      await client.close();
      await sim.close();
    })();
  `;
  const dir = mkdtempSync(join(tmpdir(), "secops-lazy-"));
  const file = join(dir, "probe.js");
  writeFileSync(file, script);
  const r = await run(file, []);
  rmSync(dir, { recursive: true, force: true });
  expect(r.stderr).toBe("");
  expect(JSON.parse(r.stdout)).toEqual({ team: "team-acme", index: false, agent: true, api: true });
});
