/**
 * Unary gRPC on node:http2, all the plugin needs of gRPC: a server for the ResourceProvider service and
 * a client for the engine's Log service. grpc-js costs a plugin ~17 MB of resident memory and a third of
 * its start (issue 22: a service provider runs one plugin per client team on every preview), and the
 * engine speaks plain gRPC over cleartext HTTP/2 with prior knowledge to 127.0.0.1
 * (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md): one length-prefixed message each
 * way, the status in trailers, or in the headers alone ("trailers-only") when there is no message.
 */
import * as http2 from "node:http2";

/** gRPC status codes used here. */
export const Status = {
  OK: 0,
  CANCELLED: 1,
  UNKNOWN: 2,
  INVALID_ARGUMENT: 3,
  DEADLINE_EXCEEDED: 4,
  RESOURCE_EXHAUSTED: 8,
  FAILED_PRECONDITION: 9,
  UNIMPLEMENTED: 12,
  INTERNAL: 13,
  UNAVAILABLE: 14,
} as const;

/** A call's outcome when it is not a message: code, message and `grpc-status-details-bin` bytes. */
export interface CallStatus {
  code: number;
  message: string;
  details?: Uint8Array;
}

/** What a unary method's handler sees and returns. */
export interface UnaryMethod {
  /** The name errors give it (`create`). */
  name: string;
  /** Decodes the request; a throw is answered INVALID_ARGUMENT naming the method. */
  decode(bytes: Uint8Array): unknown;
  /** Answers a message, or a {@link CallStatus} for a failure. */
  handle(request: unknown): Promise<{ serializeBinary(): Uint8Array } | CallStatus>;
}

/** The largest request accepted (as grpc-js was configured: Check of a big program). */
const MAX_REQUEST = 400 * 1024 * 1024;

/** A message with its 5-byte prefix (not compressed, 32-bit big-endian length). */
function frame(message: Uint8Array): Buffer {
  const out = Buffer.allocUnsafe(5 + message.length);
  out[0] = 0;
  out.writeUInt32BE(message.length, 1);
  out.set(message, 5);
  return out;
}

/** The one message of a unary body, or why the body is not one. */
function unframe(body: Buffer): Buffer | string {
  if (body.length < 5) return "the request has no message";
  if (body[0] !== 0) return "compressed messages are not supported";
  const length = body.readUInt32BE(1);
  if (body.length !== 5 + length) return "the request is not exactly one message";
  return body.subarray(5);
}

/** `grpc-message` is percent-encoded: printable ASCII but `%` as is, every other UTF-8 byte as %XX. */
export function encodeMessage(text: string): string {
  let out = "";
  for (const byte of Buffer.from(text, "utf8"))
    out +=
      byte >= 0x20 && byte <= 0x7e && byte !== 0x25
        ? String.fromCharCode(byte)
        : `%${byte.toString(16).toUpperCase().padStart(2, "0")}`;
  return out;
}

/** `grpc-timeout` (e.g. `100m`, `5S`) in ms, or undefined. */
function timeoutMs(value: string | string[] | undefined): number | undefined {
  const m = typeof value === "string" ? /^(\d{1,8})([HMSmun])$/.exec(value) : null;
  if (!m) return undefined;
  const per: Record<string, number> = { H: 3.6e6, M: 6e4, S: 1e3, m: 1, u: 1e-3, n: 1e-6 };
  return Number(m[1]) * per[m[2]];
}

/** Ends a call: the message and OK in trailers, or a failure in the headers alone. */
function answer(stream: http2.ServerHttp2Stream, outcome: Uint8Array | CallStatus): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  if (outcome instanceof Uint8Array) {
    stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
    stream.once("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
    stream.end(frame(outcome));
    return;
  }
  const headers: http2.OutgoingHttpHeaders = {
    ":status": 200,
    "content-type": "application/grpc",
    "grpc-status": String(outcome.code),
    "grpc-message": encodeMessage(outcome.message),
  };
  if (outcome.details) headers["grpc-status-details-bin"] = Buffer.from(outcome.details).toString("base64");
  stream.respond(headers, { endStream: true });
}

const isStatus = (v: unknown): v is CallStatus =>
  typeof v === "object" && v !== null && typeof (v as CallStatus).code === "number";

/** Serves one call: reads the whole request, decodes it, answers once. */
function serve(
  stream: http2.ServerHttp2Stream,
  headers: http2.IncomingHttpHeaders,
  methods: ReadonlyMap<string, UnaryMethod>,
): void {
  stream.on("error", () => undefined); // a peer that resets the stream never crashes the plugin
  const path = String(headers[":path"] ?? "");
  const method = methods.get(path);
  const fail = (code: number, message: string) => answer(stream, { code, message });
  if (headers[":method"] !== "POST" || !String(headers["content-type"] ?? "").startsWith("application/grpc"))
    return fail(Status.INTERNAL, "not a gRPC request");
  if (!method) return fail(Status.UNIMPLEMENTED, `The server does not implement the method ${path}`);
  const deadline = timeoutMs(headers["grpc-timeout"]);
  const timer =
    deadline === undefined
      ? undefined
      : setTimeout(() => fail(Status.DEADLINE_EXCEEDED, "Deadline exceeded"), deadline);
  stream.once("close", () => clearTimeout(timer));
  const chunks: Buffer[] = [];
  let size = 0;
  let tooLarge = false;
  stream.on("data", (chunk: Buffer) => {
    if (tooLarge) return;
    size += chunk.length;
    if (size <= MAX_REQUEST + 5) return void chunks.push(chunk);
    tooLarge = true;
    chunks.length = 0;
    fail(Status.RESOURCE_EXHAUSTED, `the request is larger than ${MAX_REQUEST} bytes`);
  });
  stream.once("end", () => {
    if (tooLarge) return;
    const message = unframe(Buffer.concat(chunks, size));
    if (typeof message === "string") return fail(Status.INTERNAL, message);
    let request: unknown;
    try {
      request = method.decode(message);
    } catch (err) {
      const reason = (err as Error).message;
      return fail(Status.INVALID_ARGUMENT, `secops: malformed ${method.name} request: ${reason}`);
    }
    // A handler answers its own failures as statuses (redacted); what still escapes is not echoed,
    // since its text was never checked for secrets.
    method.handle(request).then(
      (res) => answer(stream, isStatus(res) ? res : res.serializeBinary()),
      () => fail(Status.INTERNAL, `secops: ${method.name} failed unexpectedly`),
    );
  });
}

/** A running unary gRPC server. */
export interface UnaryServer {
  port: number;
  /** Stops taking connections; resolves when the calls in flight have been answered. */
  close(): Promise<void>;
  /** Drops every connection at once. */
  destroy(): void;
}

/** Serves `methods` (keyed by path, `/package.Service/Method`) on 127.0.0.1 and a free port. */
export function serveUnary(methods: ReadonlyMap<string, UnaryMethod>): Promise<UnaryServer> {
  // As grpc-js configures Node's HTTP/2 server: no session memory cap (Node refuses new streams of a
  // session over its 10 MB default, which grpc-js found degrades badly under load) and no cap on a
  // header block (a partial create's status details travel in one).
  const server = http2.createServer({
    maxSessionMemory: Number.MAX_SAFE_INTEGER,
    maxSendHeaderBlockLength: Number.MAX_SAFE_INTEGER,
  });
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => {
    sessions.add(session);
    session.on("error", () => undefined); // bytes that are not HTTP/2 end that connection only
    session.once("close", () => sessions.delete(session));
  });
  server.on("sessionError", () => undefined);
  server.on("stream", (stream, headers) => serve(stream, headers, methods));
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      server.off("error", reject);
      server.on("error", () => undefined);
      resolve({
        port: (server.address() as { port: number }).port,
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const s of sessions) s.close();
          }),
        destroy: () => {
          for (const s of sessions) s.destroy();
          server.close();
        },
      });
    });
  });
}

/** A client for unary calls to one address (`host:port`), connected on first use. */
export interface UnaryClient {
  /** Resolves when the call ended OK; rejects with the status otherwise. */
  call(path: string, message: Uint8Array): Promise<void>;
  close(): void;
}

export function unaryClient(address: string): UnaryClient {
  let session: http2.ClientHttp2Session | undefined;
  const connect = (): http2.ClientHttp2Session => {
    if (session && !session.closed && !session.destroyed) return session;
    const s = http2.connect(`http://${address}`);
    s.on("error", () => undefined); // the call's own stream reports it
    s.unref();
    session = s;
    return s;
  };
  const call = (path: string, message: Uint8Array) =>
    new Promise<void>((resolve, reject) => {
      const req = connect().request({
        ":method": "POST",
        ":path": path,
        "content-type": "application/grpc",
        te: "trailers",
      });
      let status: string | undefined;
      const read = (h: http2.IncomingHttpHeaders) => {
        if (h["grpc-status"] !== undefined) status = String(h["grpc-status"]);
      };
      req.on("response", read);
      req.on("trailers", read);
      req.on("data", () => undefined);
      req.once("error", reject);
      req.once("close", () =>
        status === "0" ? resolve() : reject(new Error(`${path} failed (status ${status ?? "none"})`)),
      );
      req.end(frame(message));
    });
  return { call, close: () => session?.close() };
}
