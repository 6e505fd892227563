/**
 * An HTTP/2 connection (RFC 9113) over a TCP socket, as the plugin's unary gRPC needs it: cleartext
 * with prior knowledge, either side. node:http2 would do, but loading it (with the TLS and crypto
 * modules it requires) costs every plugin 6 MB of resident memory on Node 22 and 12 MB on Node 26,
 * and one plugin runs per client team on every preview (issue 22). Every frame a peer sends is checked
 * (./receive.ts); one that breaks the protocol ends its stream or, with GOAWAY, the connection.
 */
import type { Socket } from "node:net";
import {
  Code,
  DEFAULT_WINDOW,
  Flag,
  frame,
  goaway,
  H2Error,
  MAX_FRAME,
  MAX_HEADER_BLOCK,
  PREFACE,
  RECV_WINDOW,
  Setting,
  settings,
  Type,
  u32,
} from "./frames";
import { encodeFields, HpackDecoder, type Field } from "./hpack";
import { receiveFrame } from "./receive";
import { Stream, type Outgoing, type StreamHandler, type StreamOwner } from "./stream";

export interface ConnectionOptions {
  role: "server" | "client";
  /** Server: a stream the client opened, with its request headers; answers its handler. */
  onStream?(stream: Stream, fields: Field[]): StreamHandler;
}

export class Connection implements StreamOwner {
  readonly streams = new Map<number, Stream>();
  readonly decoder = new HpackDecoder(MAX_HEADER_BLOCK);
  /** The peer's settings and the connection's windows. */
  peerMaxFrame = MAX_FRAME;
  peerInitialWindow = DEFAULT_WINDOW;
  sendWindow = DEFAULT_WINDOW;
  recvWindow = RECV_WINDOW;
  /** Server: the highest stream the client opened. Client: the next stream this side opens. */
  lastPeerStream = 0;
  nextStream = 1;
  /** A header block still awaiting CONTINUATION frames. */
  pending?: { stream: number; end: boolean; chunks: Buffer[]; size: number };
  /** Whether the peer's preface (server) and first SETTINGS have arrived. */
  prefaceSeen: boolean;
  settingsSeen = false;
  /** GOAWAY sent by this side (it takes no new streams), or by the peer (this side opens none). */
  goingAway = false;
  peerGoingAway = false;
  /** The socket is done, or ending. */
  ended = false;
  private input: Buffer = Buffer.alloc(0);
  private corked = false;

  constructor(
    readonly socket: Socket,
    readonly options: ConnectionOptions,
  ) {
    this.prefaceSeen = options.role === "client";
    socket.on("data", (chunk: Buffer) => this.read(chunk));
    socket.on("error", () => socket.destroy());
    socket.once("close", () => this.lost());
    if (options.role === "client") this.socket.write(PREFACE);
    this.write(
      Type.SETTINGS,
      0,
      0,
      settings([
        [Setting.ENABLE_PUSH, 0],
        [Setting.INITIAL_WINDOW_SIZE, RECV_WINDOW],
        [Setting.MAX_HEADER_LIST_SIZE, MAX_HEADER_BLOCK],
      ]),
    );
    this.write(Type.WINDOW_UPDATE, 0, 0, u32(RECV_WINDOW - DEFAULT_WINDOW));
  }

  get isServer(): boolean {
    return this.options.role === "server";
  }

  /** Client: opens a stream with its request headers. */
  request(fields: Field[], handler: StreamHandler): Stream {
    const stream = this.open(this.nextStream);
    this.nextStream += 2;
    stream.handler = handler;
    stream.sendHeaders(fields);
    return stream;
  }

  /** A stream with both windows at their start. */
  open(id: number): Stream {
    const stream = new Stream(this, id, this.peerInitialWindow, RECV_WINDOW);
    this.streams.set(id, stream);
    return stream;
  }

  /** Closes gracefully: GOAWAY, no new streams; the socket ends when the open ones are done. */
  close(): void {
    if (this.ended) return;
    if (!this.goingAway) this.write(Type.GOAWAY, 0, 0, goaway(this.lastPeerStream, Code.NO_ERROR, ""));
    this.goingAway = true;
    this.endIfIdle();
  }

  /** Drops the connection at once; every open stream is aborted. */
  destroy(): void {
    this.socket.destroy();
  }

  /** Ends the connection for a protocol error: GOAWAY with its code and reason, then the socket. */
  fail(err: H2Error): void {
    if (this.ended) return;
    this.ended = true;
    this.socket.end(frame(Type.GOAWAY, 0, 0, goaway(this.lastPeerStream, err.code, err.message)));
    setTimeout(() => this.socket.destroy(), 1000).unref();
    this.abortAll();
  }

  enqueue(stream: Stream, item: Outgoing): void {
    if (item.end) stream.ending = true;
    stream.queue.push(item);
    this.flush(stream);
  }

  reset(stream: Stream, code: number): void {
    this.write(Type.RST_STREAM, 0, stream.id, u32(code));
    this.abort(stream);
  }

  /** Sends what `stream` (or every stream) queued, as far as the windows allow. */
  flush(only?: Stream): void {
    for (const stream of only ? [only] : this.streams.values()) {
      while (stream.queue.length > 0 && !stream.aborted) {
        const item = stream.queue[0];
        if ("fields" in item) this.sendBlock(stream, item.fields, item.end);
        else if (!this.sendData(stream, item)) break;
        stream.queue.shift();
        if (item.end) this.localEnd(stream);
      }
    }
  }

  /** The peer ended its side of `stream`. */
  remoteEnd(stream: Stream): void {
    stream.remoteEnded = true;
    stream.handler.end();
    if (stream.done) this.remove(stream);
  }

  /** Ends `stream` before both sides did, telling its handler. */
  abort(stream: Stream): void {
    if (stream.done) return;
    stream.aborted = true;
    stream.queue.length = 0;
    this.remove(stream);
    stream.handler.closed();
  }

  write(type: number, flags: number, stream: number, payload?: Uint8Array): void {
    if (this.ended || this.socket.destroyed) return;
    // The frames of one turn of the event loop (an answer's headers, data and trailers) in one write.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(frame(type, flags, stream, payload));
  }

  /** A header block: HEADERS, then CONTINUATION frames for what the peer's frame size leaves. */
  private sendBlock(stream: Stream, fields: Field[], end: boolean): void {
    const block = encodeFields(fields);
    const parts: Buffer[] = [];
    for (let at = 0; at < block.length; at += this.peerMaxFrame)
      parts.push(block.subarray(at, at + this.peerMaxFrame));
    if (parts.length === 0) parts.push(block);
    parts.forEach((part, i) => {
      const first = i === 0 ? (end ? Flag.END_STREAM : 0) : 0;
      const last = i === parts.length - 1 ? Flag.END_HEADERS : 0;
      this.write(i === 0 ? Type.HEADERS : Type.CONTINUATION, first | last, stream.id, part);
    });
  }

  /** Sends what the windows allow of a data item; true when all of it went. */
  private sendData(stream: Stream, item: { data: Buffer; end: boolean }): boolean {
    while (item.data.length > 0) {
      const n = Math.min(item.data.length, this.peerMaxFrame, this.sendWindow, stream.sendWindow);
      if (n <= 0) return false;
      this.sendWindow -= n;
      stream.sendWindow -= n;
      const last = n === item.data.length && item.end ? Flag.END_STREAM : 0;
      this.write(Type.DATA, last, stream.id, item.data.subarray(0, n));
      item.data = item.data.subarray(n);
      if (last) return true;
    }
    if (item.end) this.write(Type.DATA, Flag.END_STREAM, stream.id);
    return true;
  }

  private localEnd(stream: Stream): void {
    stream.localEnded = true;
    if (stream.done) this.remove(stream);
  }

  private remove(stream: Stream): void {
    this.streams.delete(stream.id);
    this.endIfIdle();
  }

  private endIfIdle(): void {
    if (this.goingAway && this.streams.size === 0 && !this.ended) {
      this.ended = true;
      this.socket.end();
    }
  }

  private read(chunk: Buffer): void {
    this.input = this.input.length === 0 ? chunk : Buffer.concat([this.input, chunk]);
    let at = 0;
    try {
      if (!this.prefaceSeen) {
        if (this.input.length < PREFACE.length) {
          if (!PREFACE.subarray(0, this.input.length).equals(this.input))
            throw new H2Error(Code.PROTOCOL_ERROR, "not an HTTP/2 connection preface");
          return;
        }
        if (!this.input.subarray(0, PREFACE.length).equals(PREFACE))
          throw new H2Error(Code.PROTOCOL_ERROR, "not an HTTP/2 connection preface");
        this.prefaceSeen = true;
        at = PREFACE.length;
      }
      while (!this.ended && this.input.length - at >= 9) {
        const length = this.input.readUIntBE(at, 3);
        if (length > MAX_FRAME) throw new H2Error(Code.FRAME_SIZE_ERROR, `a frame of ${length} octets`);
        if (this.input.length - at < 9 + length) break;
        const type = this.input[at + 3];
        const flags = this.input[at + 4];
        const id = this.input.readUInt32BE(at + 5) & 0x7fffffff;
        const payload = this.input.subarray(at + 9, at + 9 + length);
        at += 9 + length;
        this.handle(type, flags, id, payload);
      }
    } catch (err) {
      if (!(err instanceof H2Error)) throw err;
      this.fail(err);
      return;
    }
    this.input = this.input.subarray(at);
  }

  /** One frame; a stream error resets that stream, a connection error goes up to `read`. */
  private handle(type: number, flags: number, id: number, payload: Buffer): void {
    try {
      receiveFrame(this, type, flags, id, payload);
    } catch (err) {
      if (!(err instanceof H2Error) || err.stream === 0) throw err;
      const stream = this.streams.get(err.stream);
      if (stream) this.reset(stream, err.code);
      else this.write(Type.RST_STREAM, 0, err.stream, u32(err.code));
    }
  }

  /** The socket closed: every stream still open is aborted. */
  private lost(): void {
    this.ended = true;
    this.abortAll();
  }

  private abortAll(): void {
    for (const stream of [...this.streams.values()]) this.abort(stream);
  }
}
