/**
 * `transport: "node"` (provider/client/node-http.ts), the native plugin's sender, where it differs
 * from undici in what it must do itself: load no undici, encode multipart bodies, close and destroy
 * its pool, and refuse options that make no sense with it. The shared HTTP behaviour (retries,
 * timeouts, resets, size caps, ambiguity) runs against it in http-node.test.ts and hostile-node.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Agent } from "undici";
import { SecOpsClient } from "pulumi-secops";
import { startRecorder, type Recorder } from "../helpers/recorder";
import { built, run } from "../helpers/spawn";

const KEY = "node-transport-key-3c2b1a";
let rec: Recorder;
beforeEach(async () => {
  rec = await startRecorder();
});
afterEach(() => rec.close());

test("a client with transport node loads no undici module, and its requests work", async () => {
  const script = `
    const { SecOpsClient } = require(${JSON.stringify(built("client/index.js"))});
    const { createSimulator } = require(${JSON.stringify(built("simulator/index.js"))});
    (async () => {
      const sim = await createSimulator({ seed: 3 });
      const before = Object.keys(require.cache).filter((f) => f.includes("/node_modules/undici/")).length;
      const client = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url, transport: "node" });
      const me = await client.identity();
      const rule = await client.createHvaRule({ field: "name", search: "lazy-*" });
      const after = Object.keys(require.cache).filter((f) => f.includes("/node_modules/undici/")).length;
      console.log(JSON.stringify({ team: me.teamId, created: rule.search, undiciModulesLoaded: after - before }));
      await client.close();
      await sim.close();
    })();
  `;
  const dir = mkdtempSync(join(tmpdir(), "secops-node-transport-"));
  const file = join(dir, "probe.js");
  writeFileSync(file, script);
  const r = await run(file, []).finally(() => rmSync(dir, { recursive: true, force: true }));
  expect(r.stderr).toBe("");
  expect(JSON.parse(r.stdout)).toEqual({ team: "team-acme", created: "lazy-*", undiciModulesLoaded: 0 });
});

test("over https both senders verify the server's certificate the same way", async () => {
  // A self-signed certificate for localhost (tests/unit/fixtures, a test key that guards nothing).
  const fixture = (name: string) => readFileSync(join(__dirname, "fixtures", name));
  const server = createHttpsServer(
    { key: fixture("localhost-key.pem"), cert: fixture("localhost-cert.pem") },
    (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"totalCount":7}'),
  );
  await new Promise<void>((d) => server.listen(0, "127.0.0.1", d));
  const script = `
    const { SecOpsClient } = require(${JSON.stringify(built("client/index.js"))});
    (async () => {
      const baseUrl = "https://localhost:${(server.address() as AddressInfo).port}";
      for (const transport of ["undici", "node"]) {
        const c = new SecOpsClient({ apiKey: "${KEY}", baseUrl, transport, maxRetries: 0 });
        const got = await c.countIntegrations().catch((e) => e.code + ": " + e.message);
        console.log(transport + " " + got);
        await c.close();
      }
    })();
  `;
  const dir = mkdtempSync(join(tmpdir(), "secops-tls-"));
  const file = join(dir, "probe.js");
  writeFileSync(file, script);
  try {
    const untrusted = await run(file, []);
    const trusted = await run(file, [], {
      NODE_EXTRA_CA_CERTS: join(__dirname, "fixtures", "localhost-cert.pem"),
    });
    // Node 26 adds a hint to OpenSSL's text; both senders must give the same line either way.
    const [viaUndici, viaNode] = untrusted.stdout.trim().split("\n");
    expect(viaUndici).toMatch(
      /^undici SECOPS_NETWORK: POST \/v1\/integration\/count failed: self-signed certificate\b.*\(DEPTH_ZERO_SELF_SIGNED_CERT\)$/,
    );
    expect(viaNode).toBe(viaUndici.replace(/^undici/, "node"));
    expect(trusted.stdout.trim().split("\n")).toEqual(["undici 7", "node 7"]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
    server.closeAllConnections();
    await new Promise((d) => server.close(d));
  }
});

test("a multipart comment edit sends the bytes undici sends, but for the boundary", async () => {
  const edit = {
    content: 'text with "quotes",\nlines\rand\r\nbreaks',
    files: [
      { filename: 'shot "1".png', contentType: "image/png", data: new Uint8Array([137, 80, 0, 255, 13, 10]) },
      { filename: "raw.bin", contentType: "application/octet-stream", data: new Uint8Array([1, 2, 3]) },
    ],
  };
  const bodies: string[] = [];
  for (const transport of [undefined, "node"] as const) {
    const c = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url, ...(transport ? { transport } : {}) });
    rec.reply({ status: 200, json: { id: "c1", content: "x" } });
    await c.editTimelineComment("c1", edit);
    await c.close();
    const req = rec.requests.at(-1)!;
    const boundary = /boundary=(.+)$/.exec(String(req.headers["content-type"]))![1];
    expect(req.headers["content-type"]).toBe(`multipart/form-data; boundary=${boundary}`);
    expect(Number(req.headers["content-length"])).toBe(req.body.length);
    bodies.push(req.body.toString("latin1").split(boundary).join("BOUNDARY"));
  }
  expect(bodies[1]).toBe(bodies[0]);
  expect(bodies[1]).toContain('name="files"; filename="shot %221%22.png"\r\nContent-Type: image/png');
  expect(bodies[1]).toContain('text with "quotes",\r\nlines\r\nand\r\nbreaks\r\n');
});

test("destroy ends a request in flight at once; a destroyed or closed client sends nothing more", async () => {
  // A server that never answers: only destroy() can end the request.
  let seen = 0;
  const silent = createServer(() => seen++);
  await new Promise<void>((d) => silent.listen(0, "127.0.0.1", d));
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: url, transport: "node", maxRetries: 3 });
  const pending = c.countIntegrations();
  await new Promise((d) => setTimeout(d, 100));
  const started = Date.now();
  await c.destroy();
  await expect(pending).rejects.toMatchObject({ code: "SECOPS_NETWORK" });
  expect(Date.now() - started).toBeLessThan(1_000);
  await expect(c.countIntegrations()).rejects.toMatchObject({ code: "SECOPS_NETWORK" });
  expect(seen).toBe(1); // not retried after destroy, nothing sent after it
  silent.closeAllConnections();
  await new Promise((d) => silent.close(d));

  const d = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url, transport: "node" });
  rec.reply({ status: 200, json: { totalCount: 2 }, delayMs: 200 });
  const inFlight = d.countIntegrations();
  await new Promise((r) => setTimeout(r, 50));
  await d.close(); // waits for the request in flight
  await expect(inFlight).resolves.toBe(2);
  await expect(d.countIntegrations()).rejects.toMatchObject({ code: "SECOPS_NETWORK" });
  expect(rec.requests).toHaveLength(1);
});

test.each<[string, Record<string, unknown>, string]>([
  ["an unknown sender", { transport: "fetch" }, 'transport must be "undici" or "node"'],
  [
    "a sender and a dispatcher",
    { transport: "node", dispatcher: new Agent() },
    "transport and dispatcher are exclusive: a dispatcher is the transport",
  ],
])("%s is refused, naming the option", (_name, extra, message) => {
  expect(() => new SecOpsClient({ apiKey: KEY, baseUrl: "https://x", ...extra } as never)).toThrow(
    expect.objectContaining({ code: "SECOPS_CONFIG", field: "transport", message }),
  );
});
