/**
 * HTTP/2 frames (RFC 9113, section 6): their types, flags and error codes, and the frame a connection
 * writes. The plugin's connections (./connection.ts) speak only what unary gRPC to and from the Pulumi
 * engine needs, and check every frame a peer sends against the RFC.
 */

/** The client's first 24 octets (RFC 9113, 3.4). */
export const PREFACE = Buffer.from("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", "latin1");

/** Frame types. */
export const Type = {
  DATA: 0,
  HEADERS: 1,
  PRIORITY: 2,
  RST_STREAM: 3,
  SETTINGS: 4,
  PUSH_PROMISE: 5,
  PING: 6,
  GOAWAY: 7,
  WINDOW_UPDATE: 8,
  CONTINUATION: 9,
} as const;

/** Frame flags (ACK shares END_STREAM's bit, on SETTINGS and PING). */
export const Flag = { END_STREAM: 0x1, ACK: 0x1, END_HEADERS: 0x4, PADDED: 0x8, PRIORITY: 0x20 } as const;

/** Error codes of RST_STREAM and GOAWAY (RFC 9113, 7). */
export const Code = {
  NO_ERROR: 0x0,
  PROTOCOL_ERROR: 0x1,
  INTERNAL_ERROR: 0x2,
  FLOW_CONTROL_ERROR: 0x3,
  STREAM_CLOSED: 0x5,
  FRAME_SIZE_ERROR: 0x6,
  REFUSED_STREAM: 0x7,
  CANCEL: 0x8,
  COMPRESSION_ERROR: 0x9,
  ENHANCE_YOUR_CALM: 0xb,
} as const;

/** Settings identifiers this side reads or sends. */
export const Setting = {
  ENABLE_PUSH: 0x2,
  INITIAL_WINDOW_SIZE: 0x4,
  MAX_FRAME_SIZE: 0x5,
  MAX_HEADER_LIST_SIZE: 0x6,
} as const;

/** The largest frame payload this side accepts (SETTINGS_MAX_FRAME_SIZE, left at its default). */
export const MAX_FRAME = 16384;
/** Every window's size before SETTINGS or WINDOW_UPDATE change it. */
export const DEFAULT_WINDOW = 65535;
/** The largest a flow-control window may grow (2^31 - 1). */
export const MAX_WINDOW = 0x7fffffff;
/** The window this side gives each stream and the connection: a large Check flows without waits. */
export const RECV_WINDOW = 1 << 20;
/** The most octets a header block may hold or decode to (gRPC's own default is 8 KB). */
export const MAX_HEADER_BLOCK = 256 * 1024;

/** A frame with its 9-octet header. */
export function frame(type: number, flags: number, stream: number, payload?: Uint8Array): Buffer {
  const length = payload?.length ?? 0;
  const out = Buffer.allocUnsafe(9 + length);
  out.writeUIntBE(length, 0, 3);
  out[3] = type;
  out[4] = flags;
  out.writeUInt32BE(stream, 5);
  if (payload) out.set(payload, 9);
  return out;
}

/** A 4-octet payload (RST_STREAM's code, WINDOW_UPDATE's increment). */
export function u32(value: number): Buffer {
  const out = Buffer.allocUnsafe(4);
  out.writeUInt32BE(value, 0);
  return out;
}

/** A SETTINGS payload from [identifier, value] pairs. */
export function settings(pairs: ReadonlyArray<[number, number]>): Buffer {
  const out = Buffer.allocUnsafe(6 * pairs.length);
  pairs.forEach(([id, value], i) => {
    out.writeUInt16BE(id, 6 * i);
    out.writeUInt32BE(value, 6 * i + 2);
  });
  return out;
}

/** A GOAWAY payload: the last stream this side processed, the code, and a reason (ASCII). */
export function goaway(lastStream: number, code: number, reason: string): Buffer {
  const out = Buffer.alloc(8 + reason.length);
  out.writeUInt32BE(lastStream, 0);
  out.writeUInt32BE(code, 4);
  out.write(reason, 8, "latin1");
  return out;
}

/** A frame a peer sent that breaks the protocol: for the connection (GOAWAY) or one stream. */
export class H2Error extends Error {
  override readonly name = "H2Error";
  constructor(
    readonly code: number,
    message: string,
    /** The stream it ends; 0 ends the connection. */
    readonly stream = 0,
  ) {
    super(message);
  }
}
