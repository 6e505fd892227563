/**
 * A real HTTP server on 127.0.0.1:0 that records every request (method, path, query, headers, raw
 * body) and answers from a script, for exact-request assertions.
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";

export interface Recorded {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage["headers"];
  body: Buffer;
  at: number;
}

export type Reply =
  | {
      status: number;
      json?: unknown;
      text?: string;
      headers?: Record<string, string>;
      delayMs?: number;
      /** Sends the headers and this much of the body, then resets the connection. */
      resetAfter?: number;
      /** Sends the body one byte at a time with this gap (ms). */
      dripMs?: number;
    }
  | "reset";

export interface Recorder {
  url: string;
  requests: Recorded[];
  /** Replies used in order; the last one repeats. */
  reply(...replies: Reply[]): void;
  close(): Promise<void>;
  sockets: number;
}

export async function startRecorder(): Promise<Recorder> {
  let replies: Reply[] = [{ status: 200, json: {} }];
  const rec = { requests: [] as Recorded[], sockets: 0 } as Recorder;
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const url = new URL(req.url ?? "/", "http://x");
    rec.requests.push({
      method: req.method ?? "",
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: req.headers,
      body: Buffer.concat(chunks),
      at: Date.now(),
    });
    const r = replies.length > 1 ? replies.shift()! : replies[0];
    if (r === "reset") {
      req.socket.destroy();
      return;
    }
    // Unref'd, as the simulator's latency: a reply still waiting when its test has ended (the client
    // gave up first) never keeps the jest worker alive ("failed to exit gracefully").
    if (r.delayMs) await new Promise((d) => setTimeout(d, r.delayMs).unref());
    const body = r.text ?? (r.json === undefined ? "" : JSON.stringify(r.json));
    res.writeHead(r.status, {
      "content-type": r.text !== undefined ? "text/html" : "application/json",
      ...r.headers,
    });
    if (r.resetAfter !== undefined) {
      // Once the part is handed to the socket, not after a guessed delay.
      res.write(body.slice(0, r.resetAfter), () => req.socket.destroy());
      return;
    }
    if (r.dripMs !== undefined) {
      for (const ch of body) {
        if (res.destroyed) return;
        res.write(ch);
        await new Promise((d) => setTimeout(d, r.dripMs).unref());
      }
    }
    res.end(r.dripMs !== undefined ? undefined : body);
  });
  server.on("connection", () => rec.sockets++);
  await new Promise<void>((d) => server.listen(0, "127.0.0.1", d));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  rec.reply = (...r: Reply[]) => {
    replies = r;
  };
  rec.close = () =>
    new Promise<void>((d) => {
      server.close(() => d());
      server.closeAllConnections();
    });
  return rec;
}
