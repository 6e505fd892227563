/**
 * A raw HTTP/2 peer over node:net, for tests that must send what no well-behaved client sends (floods,
 * oversized header blocks, bad prefaces). Frames are written by hand (RFC 9113 §4.1: a 9-byte header
 * and a payload); header blocks use HPACK literals without indexing (RFC 7541 §6.2.2), which need no
 * compression state. The peer records what the server sent back: its frames, a GOAWAY, and whether the
 * server ended the connection (FIN, or a reset seen as ECONNRESET/EPIPE on our side).
 */
import { connect, type Socket } from "node:net";

/** The client connection preface's fixed part (RFC 9113 §3.4). */
export const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

export const FrameType = {
  DATA: 0x0,
  HEADERS: 0x1,
  RST_STREAM: 0x3,
  SETTINGS: 0x4,
  PING: 0x6,
  GOAWAY: 0x7,
  WINDOW_UPDATE: 0x8,
  CONTINUATION: 0x9,
} as const;

export const Flag = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4 } as const;

/** HTTP/2 error codes by number, for reports (RFC 9113 §7). */
export const ERROR_NAMES: Record<number, string> = {
  0x0: "NO_ERROR",
  0x1: "PROTOCOL_ERROR",
  0x2: "INTERNAL_ERROR",
  0x3: "FLOW_CONTROL_ERROR",
  0x4: "SETTINGS_TIMEOUT",
  0x5: "STREAM_CLOSED",
  0x6: "FRAME_SIZE_ERROR",
  0x7: "REFUSED_STREAM",
  0x8: "CANCEL",
  0x9: "COMPRESSION_ERROR",
  0xa: "CONNECT_ERROR",
  0xb: "ENHANCE_YOUR_CALM",
  0xc: "INADEQUATE_SECURITY",
  0xd: "HTTP_1_1_REQUIRED",
};

/** One frame: 9-byte header (length, type, flags, stream id) and its payload. */
export function frame(
  type: number,
  flags: number,
  streamId: number,
  payload: Buffer = Buffer.alloc(0),
): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(streamId & 0x7fffffff, 5);
  return Buffer.concat([head, payload]);
}

/** An HPACK integer with an N-bit prefix (RFC 7541 §5.1); `high` holds the first byte's other bits. */
export function hpackInt(value: number, prefixBits: number, high = 0): Buffer {
  const max = (1 << prefixBits) - 1;
  if (value < max) return Buffer.from([high | value]);
  const out = [high | max];
  let rest = value - max;
  while (rest >= 128) {
    out.push((rest % 128) + 128);
    rest = Math.floor(rest / 128);
  }
  out.push(rest);
  return Buffer.from(out);
}

/** An HPACK string literal, not Huffman-coded (RFC 7541 §5.2). */
function hpackString(s: string): Buffer {
  const bytes = Buffer.from(s, "latin1");
  return Buffer.concat([hpackInt(bytes.length, 7), bytes]);
}

/** A header field as a literal without indexing, with a literal name (RFC 7541 §6.2.2). */
export function literal(name: string, value: string): Buffer {
  return Buffer.concat([Buffer.from([0x00]), hpackString(name), hpackString(value)]);
}

/** The header block of a gRPC request to `path` (a `/package.Service/Method`), plus `extra` fields. */
export function grpcRequestBlock(path: string, extra: Array<[string, string]> = []): Buffer {
  const fields: Array<[string, string]> = [
    [":method", "POST"],
    [":scheme", "http"],
    [":path", path],
    [":authority", "127.0.0.1"],
    ["content-type", "application/grpc"],
    ["te", "trailers"],
    ...extra,
  ];
  return Buffer.concat(fields.map(([n, v]) => literal(n, v)));
}

/** A frame the server sent. */
export interface Frame {
  type: number;
  flags: number;
  streamId: number;
  payload: Buffer;
}

/** A GOAWAY the server sent (RFC 9113 §6.8). */
export interface GoAway {
  lastStreamId: number;
  errorCode: number;
  error: string;
  debug: string;
}

/** What happened to a raw connection, for a test's report and assertions. */
export interface Outcome {
  /** The first GOAWAY the server sent, if one was read. */
  goaway?: GoAway;
  /** The server ended the connection: FIN read, or ECONNRESET/EPIPE on our reads or writes. */
  endedByPeer: boolean;
  /** How it ended: "fin", an error code ("ECONNRESET", "EPIPE"), or undefined while open. */
  endedHow?: string;
  /** Frames read from the server, by type name. */
  framesByType: Record<string, number>;
  /** RST_STREAM error codes received, by name. */
  resets: Record<string, number>;
  /** Bytes read from the server. */
  bytesRead: number;
}

const TYPE_NAMES = Object.fromEntries(Object.entries(FrameType).map(([k, v]) => [v, k]));

/** A raw HTTP/2 client connection. */
export class RawH2 {
  readonly frames: Frame[] = [];
  /** The first GOAWAY read. */
  goaway?: GoAway;
  endedByPeer = false;
  endedHow?: string;
  bytesRead = 0;
  private pending: Buffer = Buffer.alloc(0);
  private closedByUs = false;
  private waiters: Array<() => void> = [];

  private constructor(readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => this.onData(chunk));
    socket.on("end", () => this.ended("fin"));
    socket.on("error", (err: NodeJS.ErrnoException) => this.ended(err.code ?? err.message));
    socket.on("close", () => this.ended("close"));
  }

  /** Opens a TCP connection to `address` (`host:port`); nothing is sent yet. */
  static open(address: string): Promise<RawH2> {
    const i = address.lastIndexOf(":");
    const [host, port] = [address.slice(0, i), Number(address.slice(i + 1))];
    return new Promise((resolve, reject) => {
      const socket = connect({ host, port, noDelay: true });
      socket.once("error", reject);
      socket.once("connect", () => {
        socket.off("error", reject);
        resolve(new RawH2(socket));
      });
    });
  }

  /**
   * Opens a connection and completes the HTTP/2 handshake: our preface and empty SETTINGS, then the
   * server's SETTINGS read and acknowledged (bounded by `waitMs`).
   */
  static async handshake(address: string, waitMs = 5_000): Promise<RawH2> {
    const c = await RawH2.open(address);
    c.write(Buffer.concat([PREFACE, frame(FrameType.SETTINGS, 0, 0)]));
    const got = await c.until(
      () => c.frames.some((f) => f.type === FrameType.SETTINGS && !(f.flags & Flag.ACK)),
      waitMs,
    );
    if (!got) throw new Error(`no SETTINGS from ${address} (ended: ${c.endedHow ?? "no"})`);
    c.write(frame(FrameType.SETTINGS, Flag.ACK, 0));
    return c;
  }

  /** Whether the connection can still be written to. */
  get open(): boolean {
    return !this.endedByPeer && !this.socket.destroyed && this.socket.writable;
  }

  /** Writes `data` unless the connection has ended; returns false when the caller should wait for drain. */
  write(data: Buffer): boolean {
    if (!this.open) return false;
    return this.socket.write(data);
  }

  /**
   * Sends `next(i)` for i = 0, 1, ... until `maxChunks` chunks, `maxMs` of sending, the server ends
   * the connection or `stop()` holds, whichever comes first; waits for drain (within the time bound)
   * when the socket buffers. Returns how many chunks were handed to the socket (some may still sit in
   * its buffers: this counts what was sent, not what the server read).
   */
  async flood(
    next: (i: number) => Buffer,
    limits: { maxChunks: number; maxMs: number; stop?: () => boolean },
  ): Promise<number> {
    const stopAt = Date.now() + limits.maxMs;
    let i = 0;
    while (i < limits.maxChunks && this.open && Date.now() < stopAt && !limits.stop?.()) {
      const ok = this.socket.write(next(i));
      i++;
      if (!ok) await this.drained(stopAt - Date.now(), limits.stop);
      else if (i % 8 === 0) await new Promise((r) => setImmediate(r)); // let reads and errors arrive
    }
    return i;
  }

  /** Stops reading (the server's replies pile up in its own buffers). */
  pause(): void {
    this.socket.pause();
  }

  /** Reads again, and waits until the server has ended the connection or `ms` has passed. */
  async settle(ms: number): Promise<Outcome> {
    this.socket.resume();
    await this.until(() => this.endedByPeer, ms);
    return this.outcome();
  }

  /** What happened so far. */
  outcome(): Outcome {
    const framesByType: Record<string, number> = {};
    const resets: Record<string, number> = {};
    for (const f of this.frames) {
      const name = TYPE_NAMES[f.type] ?? `0x${f.type.toString(16)}`;
      framesByType[name] = (framesByType[name] ?? 0) + 1;
      if (f.type === FrameType.RST_STREAM && f.payload.length >= 4) {
        const code = f.payload.readUInt32BE(0);
        const codeName = ERROR_NAMES[code] ?? String(code);
        resets[codeName] = (resets[codeName] ?? 0) + 1;
      }
    }
    return {
      goaway: this.goaway,
      endedByPeer: this.endedByPeer,
      endedHow: this.endedHow,
      framesByType,
      resets,
      bytesRead: this.bytesRead,
    };
  }

  /** Closes our side. */
  destroy(): void {
    this.closedByUs = true;
    this.socket.destroy();
  }

  /** Resolves true once `done()` holds, false after `ms`. */
  until(done: () => boolean, ms: number): Promise<boolean> {
    if (done()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = () => {
        if (!done()) return;
        clearTimeout(timer);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve(true);
      };
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve(done());
      }, ms);
      this.waiters.push(check);
    });
  }

  /** Resolves on drain, on the connection's end, once `stop()` holds, or after `ms`. */
  private drained(ms: number, stop?: () => boolean): Promise<void> {
    if (ms <= 0) return Promise.resolve();
    return new Promise((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        this.socket.off("drain", finish);
        this.socket.off("close", finish);
        this.waiters = this.waiters.filter((w) => w !== check);
        resolve();
      };
      const check = () => {
        if (this.endedByPeer || stop?.()) finish();
      };
      const timer = setTimeout(finish, ms);
      this.socket.once("drain", finish);
      this.socket.once("close", finish);
      this.waiters.push(check);
    });
  }

  private ended(how: string): void {
    // "close" after our own destroy() is not the server's doing; any other end is.
    if (!this.endedByPeer && !(how === "close" && this.closedByUs)) {
      this.endedByPeer = true;
      this.endedHow = how;
    }
    this.notify();
  }

  private onData(chunk: Buffer): void {
    this.bytesRead += chunk.length;
    this.pending = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    while (this.pending.length >= 9) {
      const length = this.pending.readUIntBE(0, 3);
      if (this.pending.length < 9 + length) break;
      const f: Frame = {
        type: this.pending[3],
        flags: this.pending[4],
        streamId: this.pending.readUInt32BE(5) & 0x7fffffff,
        payload: this.pending.subarray(9, 9 + length),
      };
      this.pending = this.pending.subarray(9 + length);
      this.frames.push(f);
      if (f.type === FrameType.GOAWAY && f.payload.length >= 8 && !this.goaway) {
        const errorCode = f.payload.readUInt32BE(4);
        this.goaway = {
          lastStreamId: f.payload.readUInt32BE(0) & 0x7fffffff,
          errorCode,
          error: ERROR_NAMES[errorCode] ?? String(errorCode),
          debug: f.payload.subarray(8).toString("latin1"),
        };
      }
    }
    this.notify();
  }

  private notify(): void {
    for (const w of [...this.waiters]) w();
  }
}
