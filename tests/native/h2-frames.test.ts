/**
 * The plugin's own HTTP/2 (provider/native/plugin/h2/), frame by frame over a raw socket: what a peer
 * relies on (SETTINGS first, PING answered, flow control kept) and what it gets for frames that break
 * RFC 9113 (GOAWAY with the code and reason, or RST_STREAM for one stream), the plugin serving on.
 */
import { connect, type Socket } from "node:net";
import { encodeFields, HpackDecoder, type Field } from "../../provider/native/plugin/h2/hpack";
import { proto } from "../../provider/native/plugin/proto";
import { pluginPerFile } from "../helpers/spawn";

const running = pluginPerFile();

const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");
const [DATA, HEADERS, PRIORITY, RST_STREAM, SETTINGS, , PING, GOAWAY, WINDOW_UPDATE, CONTINUATION] = [
  0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
];

interface Frame {
  type: number;
  flags: number;
  stream: number;
  payload: Buffer;
}

function frame(type: number, flags: number, stream: number, payload: Buffer = Buffer.alloc(0)): Buffer {
  const head = Buffer.alloc(9);
  head.writeUIntBE(payload.length, 0, 3);
  head[3] = type;
  head[4] = flags;
  head.writeUInt32BE(stream, 5);
  return Buffer.concat([head, payload]);
}

const u32 = (n: number) => Buffer.from([n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]);
const setting = (id: number, value: number) => Buffer.concat([Buffer.from([0, id]), u32(value)]);

/** A raw HTTP/2 connection to the plugin: frames out as given, frames in as parsed. */
class Raw {
  readonly frames: Frame[] = [];
  closed = false;
  private input = Buffer.alloc(0);
  private waiters: Array<() => void> = [];
  private constructor(readonly socket: Socket) {
    socket.on("data", (c: Buffer) => {
      this.input = Buffer.concat([this.input, c]);
      while (this.input.length >= 9 && this.input.length >= 9 + this.input.readUIntBE(0, 3)) {
        const length = this.input.readUIntBE(0, 3);
        this.frames.push({
          type: this.input[3],
          flags: this.input[4],
          stream: this.input.readUInt32BE(5),
          payload: this.input.subarray(9, 9 + length),
        });
        this.input = this.input.subarray(9 + length);
      }
      this.wake();
    });
    socket.on("error", () => undefined);
    socket.on("close", () => {
      this.closed = true;
      this.wake();
    });
  }

  static async open(first: Buffer = Buffer.concat([PREFACE, frame(SETTINGS, 0, 0)])): Promise<Raw> {
    const socket = connect(Number(running().address.split(":")[1]), "127.0.0.1");
    await new Promise((r) => socket.once("connect", r));
    socket.write(first);
    return new Raw(socket);
  }

  send(...frames: Buffer[]): void {
    this.socket.write(Buffer.concat(frames));
  }

  /** The first frame received that `match`es (waiting for it), or undefined if the socket closed. */
  async next(match: (f: Frame) => boolean): Promise<Frame | undefined> {
    for (;;) {
      const found = this.frames.find(match);
      if (found || this.closed) return found;
      await new Promise<void>((r) => this.waiters.push(r));
    }
  }

  /** Waits until the plugin closes the socket. */
  async ended(): Promise<void> {
    while (!this.closed) await new Promise<void>((r) => this.waiters.push(r));
  }

  private wake(): void {
    for (const w of this.waiters.splice(0)) w();
  }
}

const request = (path: string): Field[] => [
  [":method", "POST"],
  [":scheme", "http"],
  [":path", path],
  [":authority", "x"],
  ["content-type", "application/grpc"],
  ["te", "trailers"],
];
const grpcMessage = (m: Uint8Array) => Buffer.concat([Buffer.from([0]), u32(m.length), Buffer.from(m)]);
const empty = grpcMessage(new Uint8Array(0));

describe("the plugin's HTTP/2 connection", () => {
  test("sends its SETTINGS first, acknowledges the client's and answers PING with the same 8 octets", async () => {
    const raw = await Raw.open();
    raw.send(frame(PING, 0, 0, Buffer.from("8octets!")));
    expect((await raw.next(() => true))?.type).toBe(SETTINGS);
    expect(await raw.next((f) => f.type === SETTINGS && f.flags === 1)).toBeDefined();
    const pong = await raw.next((f) => f.type === PING);
    expect(pong).toMatchObject({ flags: 1, stream: 0 });
    expect(pong?.payload.toString()).toBe("8octets!");
    raw.socket.destroy();
  });

  test("an answer larger than the client's window waits for WINDOW_UPDATE, then arrives whole", async () => {
    const raw = await Raw.open(Buffer.concat([PREFACE, frame(SETTINGS, 0, 0, setting(4, 1000))]));
    raw.send(
      frame(HEADERS, 4, 1, encodeFields(request("/pulumirpc.ResourceProvider/GetSchema"))),
      frame(DATA, 1, 1, grpcMessage(new (proto().provider.GetSchemaRequest)().serializeBinary())),
    );
    await raw.next((f) => f.type === DATA);
    await new Promise((r) => setTimeout(r, 200));
    const sent = () => raw.frames.filter((f) => f.type === DATA).reduce((n, f) => n + f.payload.length, 0);
    expect(sent()).toBe(1000); // exactly the window, then nothing until the client opens it
    raw.send(frame(WINDOW_UPDATE, 0, 1, u32(1 << 24)));
    const trailers = await raw.next((f) => f.type === HEADERS && (f.flags & 1) === 1);
    expect(new HpackDecoder(65536).decode(trailers!.payload)).toEqual([["grpc-status", "0"]]);
    const body = Buffer.concat(raw.frames.filter((f) => f.type === DATA).map((f) => f.payload));
    expect(body.readUInt32BE(1)).toBe(body.length - 5);
    const schema = proto().provider.GetSchemaResponse.deserializeBinary(body.subarray(5)).getSchema();
    expect(JSON.parse(schema).name).toBe("secops");
    raw.socket.destroy();
  });

  test("a stream the client resets mid-request ends alone: the next call on the connection is answered", async () => {
    const raw = await Raw.open();
    raw.send(
      frame(HEADERS, 4, 1, encodeFields(request("/pulumirpc.ResourceProvider/GetPluginInfo"))),
      frame(DATA, 0, 1, empty.subarray(0, 3)),
      frame(RST_STREAM, 0, 1, u32(8)),
      frame(PRIORITY, 0, 3, Buffer.alloc(4)), // a PRIORITY of 4 octets: that stream's error only
      frame(HEADERS, 4, 5, encodeFields(request("/pulumirpc.ResourceProvider/GetPluginInfo"))),
      frame(DATA, 1, 5, empty),
    );
    const reset = await raw.next((f) => f.type === RST_STREAM && f.stream === 3);
    expect(reset?.payload.readUInt32BE(0)).toBe(6); // FRAME_SIZE_ERROR
    const trailers = await raw.next((f) => f.type === HEADERS && f.stream === 5 && (f.flags & 1) === 1);
    expect(new HpackDecoder(65536).decode(trailers!.payload)).toEqual([["grpc-status", "0"]]);
    expect(raw.frames.some((f) => f.stream === 1 && f.type !== WINDOW_UPDATE)).toBe(false);
    raw.socket.destroy();
  });

  test("a request refused at once is answered in its headers alone, and not reset once complete", async () => {
    const raw = await Raw.open();
    // HEADERS with END_STREAM: the request is whole before the plugin answers it (UNIMPLEMENTED).
    raw.send(frame(HEADERS, 5, 1, encodeFields(request("/pulumirpc.ResourceProvider/Nope"))));
    const answer = await raw.next((f) => f.type === HEADERS && f.stream === 1);
    expect(answer?.flags).toBe(5);
    expect(new HpackDecoder(65536).decode(answer!.payload)).toContainEqual(["grpc-status", "12"]);
    raw.send(frame(PING, 0, 0, Buffer.from("afterall")));
    await raw.next((f) => f.type === PING && f.payload.toString() === "afterall");
    expect(raw.frames.filter((f) => f.type === RST_STREAM)).toEqual([]);
    raw.socket.destroy();
  });

  const hpack = (block: string) => Buffer.from(block.replace(/\s+/g, ""), "hex");
  const broken: Array<[string, Buffer, number, string]> = [
    [
      "not HTTP/2 at all",
      Buffer.from("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
      1,
      "not an HTTP/2 connection preface",
    ],
    [
      "a first frame that is not SETTINGS",
      Buffer.concat([PREFACE, frame(PING, 0, 0, Buffer.alloc(8))]),
      1,
      "the first frame is not SETTINGS",
    ],
    ["a frame over 16,384 octets", frame(DATA, 0, 1, Buffer.alloc(16385)), 6, "a frame of 16385 octets"],
    [
      "DATA on a stream never opened",
      frame(DATA, 0, 7, Buffer.alloc(3)),
      1,
      "DATA on stream 7, never opened",
    ],
    [
      "HEADERS on an even stream",
      frame(HEADERS, 4, 2, hpack("82")),
      1,
      "HEADERS on stream 2, which the peer cannot open",
    ],
    ["an index beyond the table", frame(HEADERS, 4, 1, hpack("82 c0")), 9, "index 64 is beyond the table"],
    [
      "a Huffman string holding EOS",
      frame(HEADERS, 4, 1, hpack("00 84 ff ff ff ff 01 61")),
      9,
      "a Huffman string holds EOS",
    ],
    [
      "padding as long as the frame",
      frame(HEADERS, 0x0c, 1, Buffer.from([5, 0x82])),
      1,
      "padding as long as the frame",
    ],
    [
      "a header block interrupted",
      Buffer.concat([frame(HEADERS, 0, 1, hpack("82")), frame(PING, 0, 0, Buffer.alloc(8))]),
      1,
      "a header block is interrupted",
    ],
    [
      "a header block over 256 KB",
      Buffer.concat([
        frame(HEADERS, 0, 1, Buffer.alloc(16384)),
        ...Array.from({ length: 16 }, () => frame(CONTINUATION, 0, 1, Buffer.alloc(16384))),
      ]),
      11,
      "a header block over 262144 octets",
    ],
    [
      "SETTINGS of 5 octets",
      frame(SETTINGS, 0, 0, Buffer.alloc(5)),
      6,
      "SETTINGS is not a multiple of 6 octets",
    ],
    ["a WINDOW_UPDATE of 0", frame(WINDOW_UPDATE, 0, 0, u32(0)), 1, "a WINDOW_UPDATE of 0"],
    [
      "a window over 2^31 - 1",
      frame(WINDOW_UPDATE, 0, 0, u32(0x7fffffff)),
      3,
      "the connection's window over 2^31 - 1",
    ],
    [
      "PUSH_PROMISE from a client",
      frame(5, 4, 1, Buffer.alloc(4)),
      1,
      "PUSH_PROMISE, which this side disabled or cannot take",
    ],
  ];
  test.each(broken)(
    "%s: GOAWAY with its code and reason, the socket closed, the plugin serving on",
    async (_, bytes, code, reason) => {
      const raw = await (bytes.subarray(0, 3).equals(PREFACE.subarray(0, 3)) ||
      bytes.toString("latin1").startsWith("GET")
        ? Raw.open(bytes)
        : Raw.open().then((r) => (r.send(bytes), r)));
      const away = await raw.next((f) => f.type === GOAWAY);
      expect({ code: away?.payload.readUInt32BE(4), reason: away?.payload.subarray(8).toString() }).toEqual({
        code,
        reason,
      });
      await raw.ended();
      expect(await running().getPluginInfo()).toBe(require("../../package.json").version);
    },
  );
});
