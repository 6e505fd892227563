/**
 * What the client's undici transport must do beyond the shared HTTP tests (http.test.ts): verify the
 * server's certificate (and trust the CAs Node is told to trust), send the multipart body of a comment
 * edit, end requests in flight on destroy, and take an injected `Dispatcher` (STYLE.md practice 6)
 * without ever closing it. There is one sender: the removed `transport` option is refused by name.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MockAgent } from "undici";
import { SecOpsClient } from "pulumi-secops";
import { startRecorder, type Recorder } from "../helpers/recorder";
import { built, run } from "../helpers/spawn";

const KEY = "transport-key-3c2b1a09";
let rec: Recorder;
beforeEach(async () => {
  rec = await startRecorder();
});
afterEach(() => rec.close());

test("over https the server's certificate is verified, and NODE_EXTRA_CA_CERTS is trusted", async () => {
  // A self-signed certificate for localhost (tests/unit/fixtures, a test key that guards nothing).
  const fixture = (name: string) => readFileSync(join(__dirname, "fixtures", name));
  const server = createHttpsServer(
    { key: fixture("localhost-key.pem"), cert: fixture("localhost-cert.pem") },
    (_req, res) => res.writeHead(200, { "content-type": "application/json" }).end('{"totalCount":7}'),
  );
  await new Promise<void>((d) => server.listen(0, "127.0.0.1", d));
  // In a fresh process: Node reads NODE_EXTRA_CA_CERTS once, at start.
  const script = `
    const { SecOpsClient } = require(${JSON.stringify(built("client/index.js"))});
    (async () => {
      const baseUrl = "https://localhost:${(server.address() as AddressInfo).port}";
      const c = new SecOpsClient({ apiKey: "${KEY}", baseUrl, maxRetries: 0 });
      console.log(await c.countIntegrations().catch((e) => e.code + ": " + e.message));
      await c.close();
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
    // Node 26 adds a hint to OpenSSL's text.
    expect(untrusted.stdout.trim()).toMatch(
      /^SECOPS_NETWORK: POST \/v1\/integration\/count failed: self-signed certificate\b.*\(DEPTH_ZERO_SELF_SIGNED_CERT\)$/,
    );
    expect(trusted.stdout.trim()).toBe("7");
  } finally {
    rmSync(dir, { recursive: true, force: true });
    server.closeAllConnections();
    await new Promise((d) => server.close(d));
  }
});

test("a multipart comment edit: text parts, the files manifest and each file with its type and bytes", async () => {
  const edit = {
    content: 'text with "quotes",\nlines\rand\r\nbreaks',
    files: [
      { filename: 'shot "1".png', contentType: "image/png", data: new Uint8Array([137, 80, 0, 255, 13, 10]) },
      { filename: "raw.bin", contentType: "application/octet-stream", data: new Uint8Array([1, 2, 3]) },
    ],
  };
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url });
  rec.reply({ status: 200, json: { id: "c1", content: "x" } });
  await c.editTimelineComment("c1", edit);
  await c.close();
  const req = rec.requests.at(-1)!;
  const boundary = /boundary=(.+)$/.exec(String(req.headers["content-type"]))![1];
  expect(req.headers["content-type"]).toBe(`multipart/form-data; boundary=${boundary}`);
  expect(Number(req.headers["content-length"])).toBe(req.body.length);
  const body = req.body.toString("latin1").split(boundary).join("BOUNDARY");
  expect(body).toContain('name="files"; filename="shot %221%22.png"\r\nContent-Type: image/png');
  expect(body).toContain('text with "quotes",\r\nlines\r\nand\r\nbreaks\r\n');
  expect(body).toContain(`\r\n\r\n${Buffer.from([137, 80, 0, 255, 13, 10]).toString("latin1")}\r\n`);
  expect(body).toContain('name="files"\r\n\r\n["shot \\"1\\".png","raw.bin"]\r\n');
});

test("destroy ends a request in flight at once; a destroyed or closed client sends nothing more", async () => {
  // A server that never answers: only destroy() can end the request.
  let seen = 0;
  const silent = createServer(() => seen++);
  await new Promise<void>((d) => silent.listen(0, "127.0.0.1", d));
  const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}`;
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: url, maxRetries: 3 });
  const pending = c.countIntegrations();
  for (let i = 0; i < 10_000 && seen === 0; i++) await new Promise((d) => setImmediate(d));
  await c.destroy();
  await expect(pending).rejects.toMatchObject({ code: "SECOPS_NETWORK" });
  await expect(c.countIntegrations()).rejects.toMatchObject({ code: "SECOPS_NETWORK" });
  expect(seen).toBe(1); // not retried after destroy, nothing sent after it
  silent.closeAllConnections();
  await new Promise((d) => silent.close(d));

  const d = new SecOpsClient({ apiKey: KEY, baseUrl: rec.url });
  rec.reply({ status: 200, json: { totalCount: 2 }, delayMs: 200 });
  const inFlight = d.countIntegrations();
  for (let i = 0; i < 10_000 && rec.requests.length === 0; i++) await new Promise((r) => setImmediate(r));
  await d.close(); // waits for the request in flight
  await expect(inFlight).resolves.toBe(2);
  await expect(d.countIntegrations()).rejects.toMatchObject({ code: "SECOPS_NETWORK" });
  expect(rec.requests).toHaveLength(1);
});

test("an injected Dispatcher (a MockAgent) sends every request; the client never closes it", async () => {
  const agent = new MockAgent();
  agent.disableNetConnect();
  const pool = agent.get("https://api.example.com");
  pool
    .intercept({ path: "/v1/integration/count", method: "POST", headers: { authorization: `Bearer ${KEY}` } })
    .reply(200, { totalCount: 3 }, { headers: { "content-type": "application/json" } });
  const c = new SecOpsClient({ apiKey: KEY, baseUrl: "https://api.example.com", dispatcher: agent });
  expect(await c.countIntegrations()).toBe(3);
  agent.assertNoPendingInterceptors();
  await c.close();
  await c.destroy();
  // Still usable by its owner: neither close() nor destroy() of the client reached it.
  pool.intercept({ path: "/v1/integration/count", method: "POST" }).reply(200, { totalCount: 4 });
  const again = new SecOpsClient({ apiKey: KEY, baseUrl: "https://api.example.com", dispatcher: agent });
  expect(await again.countIntegrations()).toBe(4);
  await agent.close();
});

test("the removed transport option is refused by name", () => {
  expect(() => new SecOpsClient({ apiKey: KEY, baseUrl: "https://x", transport: "node" } as never)).toThrow(
    expect.objectContaining({
      code: "SECOPS_CONFIG",
      field: "transport",
      message: "transport is not an option of SecOpsClient",
    }),
  );
});
