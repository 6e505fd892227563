/**
 * The `transport: "node"` sender: Node's own HTTP client behind the part of undici's Dispatcher the
 * transport uses (`request`, `close`, `destroy`). undici parses HTTP in WebAssembly: its first request
 * loads and compiles that and its modules, 25 MB more RSS in a plugin process that is never given back
 * (issue 22: the plugin runs once per client team). Node's parser is in the binary already.
 *
 * Failures carry undici's error codes (UND_ERR_HEADERS_TIMEOUT, UND_ERR_BODY_TIMEOUT,
 * UND_ERR_CONNECT_TIMEOUT, UND_ERR_CLOSED, UND_ERR_DESTROYED) or the socket's own (ECONNREFUSED,
 * ECONNRESET), so failures.ts and retry.ts judge both transports by one table: a connect timeout and a
 * refused connection mean nothing was sent; anything else after a write may have landed.
 */
import type { Agent, ClientRequest, IncomingMessage } from "node:http";
import { finished } from "node:stream";
import type { FormData } from "undici";
import { nodeCrypto } from "./lazy";

/** The request fields the transport passes (a subset of undici's `Dispatcher.RequestOptions`). */
export interface NodeRequest {
  origin: string;
  path: string;
  method: string;
  headers: Record<string, string>;
  body?: string | FormData;
  /** An abort signal in the form undici accepts (deadlines.ts): `once`/`removeListener`, `reason`. */
  signal?: {
    aborted: boolean;
    reason: unknown;
    once(event: "abort", listener: () => void): void;
    removeListener(event: "abort", listener: () => void): void;
  };
  /** From the request's start until the response headers. */
  headersTimeout: number;
  /** Longest gap between two pieces of the response body. */
  bodyTimeout: number;
}

/** A response body: Node's stream with undici's `text()`. */
export type NodeBody = IncomingMessage & { text(): Promise<string> };

export interface NodeResponse {
  statusCode: number;
  headers: IncomingMessage["headers"];
  body: NodeBody;
}

/** An error with the code undici would give the same failure. */
function failure(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

/** How long undici waits for a connection before UND_ERR_CONNECT_TIMEOUT (its default). */
const CONNECT_TIMEOUT_MS = 10_000;

/** A request in flight: how to end it now, and when it has ended (its body too). */
interface InFlight {
  abort: (err: Error) => void;
  settled: Promise<void>;
}

export class NodeHttpDispatcher {
  readonly #connections: number;
  readonly #keepAliveTimeout: number;
  readonly #agents = new Map<string, Agent>();
  readonly #inFlight = new Set<InFlight>();
  #closed: "open" | "closed" | "destroyed" = "open";

  constructor(options: { connections: number; keepAliveTimeout: number }) {
    this.#connections = options.connections;
    this.#keepAliveTimeout = options.keepAliveTimeout;
  }

  request(o: NodeRequest): Promise<NodeResponse> {
    if (this.#closed !== "open")
      return Promise.reject(
        this.#closed === "closed"
          ? failure("UND_ERR_CLOSED", "The client is closed")
          : failure("UND_ERR_DESTROYED", "The client is destroyed"),
      );
    if (o.body !== undefined && typeof o.body !== "string")
      return multipart(o.body).then(({ type, bytes }) =>
        this.send({ ...o, headers: { ...o.headers, "content-type": type } }, bytes),
      );
    return this.send(o, o.body === undefined ? undefined : Buffer.from(o.body, "utf8"));
  }

  /** Ends after every request in flight has ended; later requests fail with UND_ERR_CLOSED. */
  async close(): Promise<void> {
    if (this.#closed === "open") this.#closed = "closed";
    await Promise.all([...this.#inFlight].map((r) => r.settled));
    for (const agent of this.#agents.values()) agent.destroy();
  }

  /** Ends every request in flight now with UND_ERR_DESTROYED. */
  async destroy(): Promise<void> {
    this.#closed = "destroyed";
    for (const r of this.#inFlight) r.abort(failure("UND_ERR_DESTROYED", "The client is destroyed"));
    for (const agent of this.#agents.values()) agent.destroy();
  }

  private send(o: NodeRequest, bytes: Buffer | undefined): Promise<NodeResponse> {
    const url = new URL(o.origin);
    const https = url.protocol === "https:";
    // node:https (and TLS) loads only for an https origin: a loopback simulator never pays for it.
    const mod = (https ? require("node:https") : require("node:http")) as typeof import("node:http");
    const req = mod.request({
      hostname: url.hostname.replace(/^\[(.*)\]$/, "$1"),
      port: url.port || (https ? 443 : 80),
      path: o.path,
      method: o.method,
      headers: bytes === undefined ? o.headers : { ...o.headers, "content-length": String(bytes.length) },
      agent: this.agent(url.protocol, mod),
    });
    let settle!: () => void;
    const entry: InFlight = {
      abort: (err) => void req.destroy(err),
      settled: new Promise<void>((d) => (settle = d)),
    };
    this.#inFlight.add(entry);
    return exchange(req, o, bytes, {
      failWith: (fail) => (entry.abort = fail),
      ended: () => {
        this.#inFlight.delete(entry);
        settle();
      },
    });
  }

  /** One keep-alive pool per scheme, at most `connections` sockets per origin. */
  private agent(protocol: string, mod: typeof import("node:http")): Agent {
    let agent = this.#agents.get(protocol);
    if (!agent) {
      // `timeout` closes a pooled socket idle that long; Node shortens it to a server's Keep-Alive hint.
      agent = new mod.Agent({
        keepAlive: true,
        maxSockets: this.#connections,
        timeout: this.#keepAliveTimeout,
      });
      this.#agents.set(protocol, agent);
    }
    return agent;
  }
}

/**
 * One request on the wire: its timers, its abort signal, and the response. `failWith` receives the
 * function that fails it (the request before the headers, the body after them); `ended` runs once,
 * when the request failed or its body ended.
 */
function exchange(
  req: ClientRequest,
  o: NodeRequest,
  bytes: Buffer | undefined,
  hooks: { failWith: (fail: (err: Error) => void) => void; ended: () => void },
): Promise<NodeResponse> {
  return new Promise<NodeResponse>((resolve, reject) => {
    let connected = false;
    let response: IncomingMessage | undefined;
    const fail = (err: Error) => void (response ? response.destroy(err) : req.destroy(err));
    hooks.failWith(fail);
    const onAbort = () => fail(o.signal!.reason as Error);
    // Not connected yet: not a byte of the request left this process (safe to send again).
    const connectTimeout = () => failure("UND_ERR_CONNECT_TIMEOUT", "Connect Timeout Error");
    const headersTimer = setTimeout(
      () => fail(connected ? failure("UND_ERR_HEADERS_TIMEOUT", "Headers Timeout Error") : connectTimeout()),
      o.headersTimeout,
    );
    const connectTimer = setTimeout(() => connected || fail(connectTimeout()), CONNECT_TIMEOUT_MS);
    const headersIn = () => {
      clearTimeout(headersTimer);
      clearTimeout(connectTimer);
    };
    const cleanup = () => {
      headersIn();
      o.signal?.removeListener("abort", onAbort);
      hooks.ended();
    };
    req.on("response", (res: IncomingMessage) => {
      response = res;
      headersIn();
      // The transport reads or destroys every body; this only keeps a failure nobody waits for
      // (a body already given up on) from ending the process.
      res.on("error", () => undefined);
      const socket = res.socket;
      const idle = () => res.destroy(failure("UND_ERR_BODY_TIMEOUT", "Body Timeout Error"));
      socket.setTimeout(o.bodyTimeout);
      socket.on("timeout", idle);
      finished(res, () => {
        socket.removeListener("timeout", idle);
        cleanup();
      });
      resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: withText(res) });
    });
    req.once("socket", (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once("connect", () => (connected = true));
    });
    req.on("error", (err) => {
      if (response) return; // after the headers, the body's reader sees the failure
      cleanup();
      reject(err);
    });
    if (o.signal?.aborted) return fail(o.signal.reason as Error);
    o.signal?.once("abort", onAbort);
    req.end(bytes);
  });
}

/** Gives a response stream undici's `text()`: the whole body as UTF-8, or the stream's failure. */
function withText(res: IncomingMessage): NodeBody {
  return Object.assign(res, {
    text(): Promise<string> {
      return new Promise<string>((resolve, reject) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        finished(res, (err) => (err ? reject(err) : resolve(Buffer.concat(chunks).toString("utf8"))));
      });
    },
  });
}

/**
 * A FormData as a multipart/form-data body (RFC 7578, with the WHATWG escaping of names and file
 * names that undici and browsers use). Files are read whole: comment attachments are small.
 */
async function multipart(form: FormData): Promise<{ type: string; bytes: Buffer }> {
  const boundary = `----secops${nodeCrypto().randomBytes(12).toString("hex")}`;
  const escape = (s: string) => s.replace(/\n/g, "%0A").replace(/\r/g, "%0D").replace(/"/g, "%22");
  const parts: Buffer[] = [];
  for (const [name, value] of form as unknown as Iterable<[string, string | Blob]>) {
    let head = `--${boundary}\r\nContent-Disposition: form-data; name="${escape(name)}"`;
    if (typeof value === "string") {
      parts.push(Buffer.from(`${head}\r\n\r\n${value.replace(/\r(?!\n)|(?<!\r)\n/g, "\r\n")}\r\n`));
      continue;
    }
    const filename = (value as Blob & { name?: string }).name ?? "blob";
    head += `; filename="${escape(filename)}"\r\nContent-Type: ${value.type || "application/octet-stream"}`;
    parts.push(Buffer.from(`${head}\r\n\r\n`), Buffer.from(await value.arrayBuffer()), Buffer.from("\r\n"));
  }
  parts.push(Buffer.from(`--${boundary}--\r\n`));
  return { type: `multipart/form-data; boundary=${boundary}`, bytes: Buffer.concat(parts) };
}
