/**
 * Unary gRPC on the plugin's own HTTP/2 (./h2/), all the plugin needs of gRPC: a server for the
 * ResourceProvider service and a client for the engine's Log service. grpc-js costs a plugin ~17 MB of
 * resident memory and a third of its start, and node:http2 another 6 MB (12 MB on Node 26) for loading
 * it (issue 22: a service provider runs one plugin per client team on every preview); the engine
 * speaks plain gRPC over cleartext HTTP/2 with prior knowledge to 127.0.0.1
 * (https://github.com/grpc/grpc/blob/master/doc/PROTOCOL-HTTP2.md): one length-prefixed message each
 * way, the status in trailers, or in the headers alone ("trailers-only") when there is no message.
 */
import { connect, createServer } from "node:net";
import { Connection } from "./h2/connection";
import { Code } from "./h2/frames";
import type { Field } from "./h2/hpack";
import type { Stream, StreamHandler } from "./h2/stream";

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
function timeoutMs(value: string | undefined): number | undefined {
  const m = value === undefined ? null : /^(\d{1,8})([HMSmun])$/.exec(value);
  if (!m) return undefined;
  const per: Record<string, number> = { H: 3.6e6, M: 6e4, S: 1e3, m: 1, u: 1e-3, n: 1e-6 };
  return Number(m[1]) * per[m[2]];
}

/** The first value of each field (names are lower-case in HTTP/2). */
function headerMap(fields: Field[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of fields) if (!(name in out)) out[name] = value;
  return out;
}

/**
 * Ends a call once: the message and OK in trailers, or a failure in the headers alone. A request the
 * client has not finished sending is then reset with NO_ERROR, which tells it to stop (RFC 9113, 8.1).
 */
function answer(stream: Stream, outcome: Uint8Array | CallStatus): void {
  if (stream.ending || stream.aborted) return;
  if (outcome instanceof Uint8Array) {
    stream.sendHeaders([
      [":status", "200"],
      ["content-type", "application/grpc"],
    ]);
    stream.send(frame(outcome));
    stream.sendHeaders([["grpc-status", "0"]], true);
  } else {
    const fields: Field[] = [
      [":status", "200"],
      ["content-type", "application/grpc"],
      ["grpc-status", String(outcome.code)],
      ["grpc-message", encodeMessage(outcome.message)],
    ];
    if (outcome.details)
      fields.push(["grpc-status-details-bin", Buffer.from(outcome.details).toString("base64")]);
    stream.sendHeaders(fields, true);
  }
  if (!stream.remoteEnded) stream.reset(Code.NO_ERROR);
}

const isStatus = (v: unknown): v is CallStatus =>
  typeof v === "object" && v !== null && typeof (v as CallStatus).code === "number";

/** Decodes a whole request and answers it once, with the method's answer or why it has none. */
function finish(stream: Stream, method: UnaryMethod, body: Buffer): void {
  const fail = (code: number, message: string) => answer(stream, { code, message });
  const message = unframe(body);
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
}

/** Serves one call: reads the whole request, decodes it, answers once. */
function serve(stream: Stream, fields: Field[], methods: ReadonlyMap<string, UnaryMethod>): StreamHandler {
  const headers = headerMap(fields);
  const path = headers[":path"] ?? "";
  const method = methods.get(path);
  const fail = (code: number, message: string) => answer(stream, { code, message });
  const ignore: StreamHandler = { data: () => undefined, end: () => undefined, closed: () => undefined };
  if (headers[":method"] !== "POST" || !(headers["content-type"] ?? "").startsWith("application/grpc")) {
    fail(Status.INTERNAL, "not a gRPC request");
    return ignore;
  }
  if (!method) {
    fail(Status.UNIMPLEMENTED, `The server does not implement the method ${path}`);
    return ignore;
  }
  const deadline = timeoutMs(headers["grpc-timeout"]);
  const timer =
    deadline === undefined
      ? undefined
      : setTimeout(() => fail(Status.DEADLINE_EXCEEDED, "Deadline exceeded"), deadline);
  const chunks: Buffer[] = [];
  let size = 0;
  return {
    data: (chunk) => {
      size += chunk.length;
      if (size <= MAX_REQUEST + 5) return void chunks.push(chunk);
      chunks.length = 0;
      fail(Status.RESOURCE_EXHAUSTED, `the request is larger than ${MAX_REQUEST} bytes`);
    },
    end: () => {
      clearTimeout(timer);
      if (!stream.ending) finish(stream, method, Buffer.concat(chunks, size));
    },
    closed: () => clearTimeout(timer),
  };
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
  const connections = new Set<Connection>();
  const server = createServer((socket) => {
    socket.setNoDelay(true);
    const conn = new Connection(socket, {
      role: "server",
      onStream: (stream, fields) => serve(stream, fields, methods),
    });
    connections.add(conn);
    socket.once("close", () => connections.delete(conn));
  });
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
            for (const c of connections) c.close();
          }),
        destroy: () => {
          for (const c of connections) c.destroy();
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
  const colon = address.lastIndexOf(":");
  const host = address.slice(0, colon).replace(/^\[(.*)\]$/, "$1");
  const port = Number(address.slice(colon + 1));
  let conn: Connection | undefined;
  const connection = (): Connection => {
    if (conn && !conn.ended && !conn.goingAway && !conn.peerGoingAway) return conn;
    const socket = connect(port, host);
    socket.setNoDelay(true);
    socket.unref(); // a log call in flight never keeps the plugin alive
    conn = new Connection(socket, { role: "client" });
    return conn;
  };
  const call = (path: string, message: Uint8Array) =>
    new Promise<void>((resolve, reject) => {
      let status: string | undefined;
      const read = (fields: Field[]) => {
        const value = headerMap(fields)["grpc-status"];
        if (value !== undefined) status = value;
      };
      const outcome = () =>
        status === "0" ? resolve() : reject(new Error(`${path} failed (status ${status ?? "none"})`));
      const stream = connection().request(
        [
          [":method", "POST"],
          [":scheme", "http"],
          [":path", path],
          [":authority", address],
          ["content-type", "application/grpc"],
          ["te", "trailers"],
        ],
        { headers: read, data: () => undefined, end: outcome, closed: outcome },
      );
      stream.send(frame(message), true);
    });
  return { call, close: () => conn?.close() };
}
