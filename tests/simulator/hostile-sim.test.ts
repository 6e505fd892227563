/** The simulator as a server facing hostile callers (issue 11): users run it, so it must behave like one. */
import { request } from "node:http";
import { SecOpsClient } from "pulumi-secops";
import { createSimulator, type Simulator } from "secops-sim";

let sim: Simulator;
beforeAll(async () => {
  sim = await createSimulator({ seed: 71 });
});
afterAll(() => sim.close());

test("a control request with a wrong token is refused before its body is read", async () => {
  const url = new URL("/__sim/faults", sim.url);
  const answer = await new Promise<{ status: number; sentBeforeAnswer: number }>((resolve, reject) => {
    let sent = 0;
    const req = request(url, {
      method: "PUT",
      headers: { "x-sim-control": "wrong", "content-type": "application/json" },
    });
    req.on("response", (res) => {
      res.resume();
      resolve({ status: res.statusCode ?? 0, sentBeforeAnswer: sent });
      req.destroy();
    });
    req.on("error", (e) => (sent > 0 ? undefined : reject(e)));
    const chunk = Buffer.alloc(64 * 1024, 0x20);
    // 15 MB would follow; the answer must come after the first chunks, not after all of them.
    const pump = () => {
      if (req.destroyed || sent >= 15 * 1024 * 1024) return req.end();
      sent += chunk.length;
      if (req.write(chunk)) setImmediate(pump);
      else req.once("drain", pump);
    };
    pump();
  });
  expect(answer.status).toBe(401);
  expect(answer.sentBeforeAnswer).toBeLessThan(15 * 1024 * 1024);
});

test("an empty control token is refused at start", async () => {
  await expect(createSimulator({ controlToken: "" })).rejects.toThrow(
    "controlToken must be a non-empty string (an empty token would let anyone change the simulator)",
  );
});

test("an attachment over the limit gets 413, never a truncated upload", async () => {
  const c = new SecOpsClient({ apiKey: sim.apiKeys.admin, baseUrl: sim.url, maxRetries: 0 });
  try {
    await expect(
      c.editTimelineComment("cmt-001", {
        files: [{ filename: "big.png", contentType: "image/png", data: new Uint8Array(11 * 1024 * 1024) }],
      }),
    ).rejects.toMatchObject({
      status: 413,
      apiMessage: "attachment big.png is over the 10485760-byte limit",
    });
  } finally {
    await c.close();
  }
});

test("a malformed percent-escape in a path gets 400, not 500", async () => {
  const res = await fetch(`${sim.url}/v1/directory/%E0%A4%A`, {
    headers: { authorization: `Bearer ${sim.apiKeys.admin}` },
  });
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({
    statusCode: 400,
    message: 'malformed percent-escape in path "/v1/directory/%E0%A4%A"',
  });
});
