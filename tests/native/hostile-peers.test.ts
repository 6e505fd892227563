/**
 * Issue 33 item 6: hostile local peers against the native plugin (grpc-js on Node's http2, nghttp2).
 * Each attack writes raw HTTP/2 frames (tests/helpers/h2-raw.ts) to a plugin process of its own, with
 * a bound on how much and how long it sends. After each, the plugin answers a fresh GetPluginInfo on a
 * new connection and its RSS (/proc VmRSS) has grown by less than 50 MB, at the end and at its peak.
 * HOSTILE_PEERS_REPORT=1 prints, per attack, the growth and what the attacker saw.
 *
 * What the plugin did to the attacking connection, measured with Node 20.20 (nghttp2 1.61), 22.23
 * (1.69) and 26.10 (1.70). "Closed" is a FIN, or a reset seen as EPIPE/ECONNRESET on our writes; a
 * GOAWAY sent just before a reset is lost with our unread data, so a GOAWAY is asserted only where the
 * attacker has stopped writing before it can come (the rapid reset) or the socket stays open (Node 20).
 * | attack                         | Node 20                          | Node 22, 26                   |
 * | CONTINUATION flood             | closed (GOAWAY INTERNAL_ERROR)   | closed                        |
 * | SETTINGS / PING flood, unread  | closed                           | closed                        |
 * | rapid reset, 5,000 streams     | GOAWAY after ~1,000 streams      | GOAWAY after ~1,000, closed   |
 * | 1 MB header list               | GOAWAY COMPRESSION_ERROR         | closed                        |
 * | bad preface                    | closed                           | closed                        |
 * On Node 20 the rapid reset's and the header list's connections stay open after the GOAWAY: the
 * plugin stops reading them but keeps the socket until the peer closes it; Node 22 and 26 (the CI legs)
 * close them. The rapid reset's GOAWAY names stream 2001-2067: nghttp2's reset rate limit (a burst of
 * 1,000, then 33/s). RSS growth: +0.1-0.5 MB for every attack but the rapid reset, +18-30 MB for it
 * (grpc-js sets up a call for each of the ~1,000 streams let through; V8 collects them later).
 */
import { readFileSync } from "node:fs";
import type { ProviderProcess } from "../rig";
import { proto } from "../../provider/native/plugin/proto";
import { Flag, FrameType, RawH2, frame, grpcRequestBlock, type Outcome } from "../helpers/h2-raw";
import { built } from "../helpers/spawn";

built("plugin/pulumi-resource-secops.js");
jest.setTimeout(30_000);

const PATH = "/pulumirpc.ResourceProvider/GetPluginInfo";
const LIMIT_KIB = 50 * 1024;
/** How long an attacker sends at most, and then waits for the plugin to end the connection. */
const SEND_MS = 3_000;
const SETTLE_MS = 2_000;
/** Node 22+ close a connection after the GOAWAY nghttp2 sends on its own; Node 20 leaves it open, unread. */
const CLOSES_AFTER_GOAWAY = Number(process.versions.node.split(".")[0]) >= 22;

const plugins: ProviderProcess[] = [];
afterAll(async () => {
  await Promise.all(plugins.map((p) => p.close()));
});

function rssKiB(pid: number): number {
  const m = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!m) throw new Error(`no VmRSS for process ${pid}`);
  return Number(m[1]);
}

/** GetPluginInfo on a client (so a connection) of its own, closed after the call. */
async function freshCall(address: string): Promise<string> {
  const { grpc, providerGrpc, empty } = proto();
  const client = new providerGrpc.ResourceProviderClient(address, grpc.credentials.createInsecure());
  try {
    return await new Promise<string>((resolve, reject) =>
      client.getPluginInfo(
        new empty.Empty(),
        new grpc.Metadata(),
        { deadline: Date.now() + 10_000 },
        (err, res) => (err ? reject(err) : resolve(res.getVersion())),
      ),
    );
  } finally {
    client.close();
  }
}

/**
 * Starts a plugin, serves one call, runs `attack` against its address while sampling its RSS, then
 * checks it still answers and grew by less than the limit. Returns what the attacker saw.
 */
async function survives(attack: (address: string) => Promise<Outcome>): Promise<Outcome> {
  const { NativePluginProcess } = await import("../rig");
  const plugin = await NativePluginProcess.start();
  plugins.push(plugin);
  const pid = plugin.pid as number;
  const version = await freshCall(plugin.address); // the first call's one-time loading is not growth
  const before = rssKiB(pid);
  let peak = before;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssKiB(pid));
    } catch {
      /* exited: the call below fails */
    }
  }, 20);
  let outcome: Outcome;
  try {
    outcome = await attack(plugin.address);
  } finally {
    clearInterval(sampler);
  }
  expect(await freshCall(plugin.address)).toBe(version);
  const after = rssKiB(pid);
  peak = Math.max(peak, after);
  if (process.env.HOSTILE_PEERS_REPORT) {
    const mib = (kib: number) => Math.round((kib / 1024) * 10) / 10;
    console.log(JSON.stringify({ grownMiB: mib(after - before), peakMiB: mib(peak - before), ...outcome }));
  }
  expect(after - before).toBeLessThan(LIMIT_KIB);
  expect(peak - before).toBeLessThan(LIMIT_KIB);
  return outcome;
}

/** `count` copies of one frame, as one buffer. */
const repeated = (f: Buffer, count: number) => Buffer.concat(Array.from({ length: count }, () => f));

/** Runs `send` on a connection, then reads until the plugin ends it (bounded) and closes ours. */
async function attackOn(c: RawH2, send: (c: RawH2) => Promise<unknown>): Promise<Outcome> {
  try {
    await send(c);
    return await c.settle(SETTLE_MS);
  } finally {
    c.destroy();
  }
}

test("a CONTINUATION flood (HEADERS without END_HEADERS, then empty CONTINUATIONs) is cut off", async () => {
  const o = await survives(async (address) =>
    attackOn(await RawH2.handshake(address), async (c) => {
      c.write(frame(FrameType.HEADERS, Flag.END_STREAM, 1, grpcRequestBlock(PATH)));
      const chunk = repeated(frame(FrameType.CONTINUATION, 0, 1), 1024);
      await c.flood(() => chunk, { maxChunks: 1024, maxMs: SEND_MS }); // at most ~1M frames
    }),
  );
  expect(o.endedByPeer).toBe(true);
  expect(o.framesByType.HEADERS).toBeUndefined(); // the request was never served
});

test("a SETTINGS flood whose ACKs are never read is cut off", async () => {
  const o = await survives(async (address) =>
    attackOn(await RawH2.handshake(address), async (c) => {
      c.pause();
      const chunk = repeated(frame(FrameType.SETTINGS, 0, 0), 1024);
      await c.flood(() => chunk, { maxChunks: 1024, maxMs: SEND_MS });
    }),
  );
  expect(o.endedByPeer).toBe(true);
});

test("a PING flood whose ACKs are never read is cut off", async () => {
  const o = await survives(async (address) =>
    attackOn(await RawH2.handshake(address), async (c) => {
      c.pause();
      const chunk = repeated(frame(FrameType.PING, 0, 0, Buffer.alloc(8, 7)), 1024);
      await c.flood(() => chunk, { maxChunks: 1024, maxMs: SEND_MS });
    }),
  );
  expect(o.endedByPeer).toBe(true);
});

test("rapid reset (HEADERS then RST_STREAM on 5,000 streams) gets a GOAWAY", async () => {
  // One write: the attacker never writes after the plugin's GOAWAY, so no reset of ours can race it.
  const STREAMS = 5_000;
  const block = grpcRequestBlock(PATH);
  const cancel = Buffer.alloc(4);
  cancel.writeUInt32BE(0x8); // CANCEL
  const ids = Array.from({ length: STREAMS }, (_, i) => 2 * i + 1);
  const o = await survives(async (address) =>
    attackOn(await RawH2.handshake(address), async (c) => {
      c.write(
        Buffer.concat(
          ids.flatMap((id) => [
            frame(FrameType.HEADERS, Flag.END_HEADERS, id, block),
            frame(FrameType.RST_STREAM, 0, id, cancel),
          ]),
        ),
      );
    }),
  );
  expect(o.goaway).toBeDefined();
  expect(o.goaway?.lastStreamId).toBeLessThan(ids[ids.length - 1]); // it stopped taking new streams
  if (CLOSES_AFTER_GOAWAY) expect(o.endedByPeer).toBe(true);
});

test("a 1 MB header list (one HEADERS + CONTINUATION block) is refused", async () => {
  const block = grpcRequestBlock(PATH, [["x-big", "a".repeat(1 << 20)]]);
  const pieces: Buffer[] = [];
  for (let at = 0; at < block.length; at += 16_384) pieces.push(block.subarray(at, at + 16_384));
  const o = await survives(async (address) =>
    attackOn(await RawH2.handshake(address), async (c) => {
      const piece = (i: number) =>
        frame(
          i === 0 ? FrameType.HEADERS : FrameType.CONTINUATION,
          (i === 0 ? Flag.END_STREAM : 0) | (i === pieces.length - 1 ? Flag.END_HEADERS : 0),
          1,
          pieces[i],
        );
      await c.flood(piece, { maxChunks: pieces.length, maxMs: SEND_MS });
    }),
  );
  expect(o.framesByType.HEADERS).toBeUndefined(); // never served
  expect(o.endedByPeer || o.goaway !== undefined).toBe(true);
  if (CLOSES_AFTER_GOAWAY) expect(o.endedByPeer).toBe(true);
});

test("garbage instead of the connection preface is cut off", async () => {
  const garbage = Buffer.from(Array.from({ length: 16_384 }, (_, i) => (i * 131 + 7) % 251));
  const o = await survives(async (address) =>
    attackOn(await RawH2.open(address), async (c) => {
      await c.flood(() => garbage, { maxChunks: 4096, maxMs: SEND_MS }); // at most 64 MB
    }),
  );
  expect(o.endedByPeer).toBe(true);
});
