/**
 * The plugin's own gRPC transport (provider/native/plugin/h2-grpc.ts, on its own HTTP/2 instead of
 * grpc-js): what the engine's gRPC client relies on, checked with raw HTTP/2 requests where the bytes
 * matter and with grpc-js (a real gRPC client, as the engine's is) where the decoding does.
 */
import * as http2 from "node:http2";
import { connect } from "node:net";
import { proto, toStruct } from "../../provider/native/plugin/proto";
import { pluginPerFile } from "../helpers/spawn";

const running = pluginPerFile();

interface Answer {
  headers: http2.IncomingHttpHeaders;
  trailers: http2.IncomingHttpHeaders;
  body: Buffer;
}

/** One raw HTTP/2 request to the plugin: the answer's headers, trailers and body as sent. */
async function raw(path: string, body: Buffer, extra: http2.OutgoingHttpHeaders = {}): Promise<Answer> {
  const session = http2.connect(`http://${running().address}`);
  try {
    return await new Promise<Answer>((resolve, reject) => {
      const req = session.request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc",
        te: "trailers",
        ...extra,
      });
      const answer: Answer = { headers: {}, trailers: {}, body: Buffer.alloc(0) };
      const chunks: Buffer[] = [];
      req.on("response", (h) => (answer.headers = h));
      req.on("trailers", (t) => (answer.trailers = t));
      req.on("data", (c: Buffer) => chunks.push(c));
      req.once("error", reject);
      req.once("close", () => resolve({ ...answer, body: Buffer.concat(chunks) }));
      req.end(body);
    });
  } finally {
    session.close();
  }
}

const framed = (message: Buffer, flag = 0) => {
  const head = Buffer.alloc(5);
  head[0] = flag;
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
};

describe("the plugin's gRPC over HTTP/2", () => {
  test("an answer is one length-prefixed message and grpc-status 0 in the trailers", async () => {
    const { plugin: pb, empty } = proto();
    const answer = await raw(
      "/pulumirpc.ResourceProvider/GetPluginInfo",
      framed(Buffer.from(new empty.Empty().serializeBinary())),
    );
    expect(answer.headers[":status"]).toBe(200);
    expect(answer.headers["content-type"]).toBe("application/grpc");
    expect(answer.trailers["grpc-status"]).toBe("0");
    expect(answer.body[0]).toBe(0);
    expect(answer.body.readUInt32BE(1)).toBe(answer.body.length - 5);
    const info = pb.PluginInfo.deserializeBinary(answer.body.subarray(5));
    expect(info.getVersion()).toBe(require("../../package.json").version);
  });

  test("a method the plugin does not implement is UNIMPLEMENTED (the engine falls back on that code)", async () => {
    for (const method of ["Handshake", "GetMapping", "Parameterize", "Construct"]) {
      const answer = await raw(`/pulumirpc.ResourceProvider/${method}`, framed(Buffer.alloc(0)));
      expect(answer.headers["grpc-status"]).toBe("12");
      expect(answer.headers["grpc-message"]).toBe(
        `The server does not implement the method /pulumirpc.ResourceProvider/${method}`,
      );
      expect(answer.body.length).toBe(0);
    }
  });

  test("a compressed message, two messages, a cut frame or no message is INTERNAL, naming why", async () => {
    const path = "/pulumirpc.ResourceProvider/GetPluginInfo";
    const cases: Array<[Buffer, string]> = [
      [framed(Buffer.from([1, 2]), 1), "compressed messages are not supported"],
      [
        Buffer.concat([framed(Buffer.alloc(0)), framed(Buffer.alloc(0))]),
        "the request is not exactly one message",
      ],
      [framed(Buffer.alloc(8)).subarray(0, 9), "the request is not exactly one message"],
      [Buffer.alloc(0), "the request has no message"],
    ];
    for (const [body, why] of cases) {
      const answer = await raw(path, body);
      expect({ status: answer.headers["grpc-status"], message: answer.headers["grpc-message"] }).toEqual({
        status: "13",
        message: why,
      });
    }
  });

  test("a message that is not ASCII reaches a gRPC client intact (grpc-message is percent-encoded)", async () => {
    const { grpc, provider } = proto();
    const client = new grpc.Client(running().address, grpc.credentials.createInsecure());
    const token = "secops:index:gét%Ünknöwn✓";
    const req = new provider.InvokeRequest().setTok(token);
    const err = await new Promise<{ code: number; details: string }>((resolve) =>
      client.makeUnaryRequest(
        "/pulumirpc.ResourceProvider/Invoke",
        (m: typeof req) => Buffer.from(m.serializeBinary()),
        (b: Buffer) => b,
        req,
        (e) => resolve(e as never),
      ),
    );
    client.close();
    expect(err).toMatchObject({ code: 3, details: `secops: unknown function ${JSON.stringify(token)}` });
  });

  test("300 calls at once on one connection, a 2 MB request among them, are each answered", async () => {
    const { grpc, provider } = proto();
    const client = new grpc.Client(running().address, grpc.credentials.createInsecure());
    const call = (path: string, body: Uint8Array) =>
      new Promise<Buffer>((resolve, reject) =>
        client.makeUnaryRequest(
          path,
          (b: Uint8Array) => Buffer.from(b),
          (b: Buffer) => b,
          body,
          (err, res) => (err ? reject(err) : resolve(res as Buffer)),
        ),
      );
    const schema = new provider.GetSchemaRequest().serializeBinary();
    const big = new provider.CheckRequest()
      .setUrn("urn:pulumi:dev::p::secops:index:HvaAutomationRule::big")
      .setNews(toStruct({ field: "name", search: "x".repeat(2 * 1024 * 1024) }))
      .serializeBinary();
    const answers = await Promise.all([
      ...Array.from({ length: 300 }, () => call("/pulumirpc.ResourceProvider/GetSchema", schema)),
      call("/pulumirpc.ResourceProvider/Check", big),
    ]);
    client.close();
    const schemas = answers
      .slice(0, 300)
      .map((b) => provider.GetSchemaResponse.deserializeBinary(b).getSchema());
    expect(new Set(schemas).size).toBe(1);
    expect(JSON.parse(schemas[0]).name).toBe("secops");
    const checked = provider.CheckResponse.deserializeBinary(answers[300]);
    expect(checked.getFailuresList().map((f) => f.getProperty())).toContain("search");
  });

  test("a deadline that passes is DEADLINE_EXCEEDED; bytes that are not HTTP/2 end only that connection", async () => {
    // Configure with no settings answers at once, so hold the request open: send the headers, not the end.
    const session = http2.connect(`http://${running().address}`);
    const status = await new Promise<unknown>((resolve) => {
      const req = session.request({
        ":method": "POST",
        ":path": "/pulumirpc.ResourceProvider/GetPluginInfo",
        "content-type": "application/grpc",
        "grpc-timeout": "50m",
      });
      req.on("response", (h) => resolve(h["grpc-status"]));
      req.on("error", () => undefined);
    });
    session.destroy();
    expect(status).toBe("4");

    // The plugin closes a connection that is not HTTP/2 (the test would time out otherwise) ...
    await new Promise<void>((resolve) => {
      const socket = connect(Number(running().address.split(":")[1]), "127.0.0.1", () =>
        socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n\x00\xff garbage"),
      );
      socket.on("data", () => undefined);
      socket.on("error", () => undefined);
      socket.on("close", () => resolve());
    });
    // ... and goes on serving others.
    expect(await running().getPluginInfo()).toBe(require("../../package.json").version);
  });
});
