/**
 * What a connection (./connection.ts) does with each frame the peer sends, checked against RFC 9113:
 * a frame that breaks the protocol throws an {@link H2Error} for its stream (RST_STREAM) or for the
 * connection (GOAWAY, code and reason), so malformed bytes are answered, never half-read.
 */
import type { Connection } from "./connection";
import { Code, Flag, H2Error, MAX_HEADER_BLOCK, MAX_WINDOW, RECV_WINDOW, Setting, Type, u32 } from "./frames";
import { HpackError, type Field } from "./hpack";

/** Handles one frame of the peer's. */
export function receiveFrame(
  conn: Connection,
  type: number,
  flags: number,
  id: number,
  payload: Buffer,
): void {
  if (!conn.settingsSeen && type !== Type.SETTINGS)
    throw new H2Error(Code.PROTOCOL_ERROR, "the first frame is not SETTINGS");
  if (conn.pending && (type !== Type.CONTINUATION || id !== conn.pending.stream))
    throw new H2Error(Code.PROTOCOL_ERROR, "a header block is interrupted");
  switch (type) {
    case Type.DATA:
      return data(conn, flags, id, payload);
    case Type.HEADERS:
      return headers(conn, flags, id, payload);
    case Type.CONTINUATION:
      return continuation(conn, flags, id, payload);
    case Type.PRIORITY:
      onStream(id, "PRIORITY");
      if (payload.length !== 5) throw new H2Error(Code.FRAME_SIZE_ERROR, "PRIORITY is not 5 octets", id);
      return;
    case Type.RST_STREAM:
      return rstStream(conn, id, payload);
    case Type.SETTINGS:
      return settingsFrame(conn, flags, id, payload);
    case Type.PUSH_PROMISE:
      throw new H2Error(Code.PROTOCOL_ERROR, "PUSH_PROMISE, which this side disabled or cannot take");
    case Type.PING:
      return ping(conn, flags, id, payload);
    case Type.GOAWAY:
      return goAway(conn, id, payload);
    case Type.WINDOW_UPDATE:
      return windowUpdate(conn, id, payload);
    default:
      return; // frames of unknown types are ignored (RFC 9113, 4.1)
  }
}

function onStream(id: number, what: string): void {
  if (id === 0) throw new H2Error(Code.PROTOCOL_ERROR, `${what} on stream 0`);
}

function onConnection(id: number, what: string): void {
  if (id !== 0) throw new H2Error(Code.PROTOCOL_ERROR, `${what} on stream ${id}`);
}

/** Whether stream `id` was never opened (a frame on it is a connection error), as against closed. */
function idle(conn: Connection, id: number): boolean {
  return id % 2 === 0 || (conn.isServer ? id > conn.lastPeerStream : id >= conn.nextStream);
}

/** The payload without its padding (PADDED: a length octet first, that many octets last). */
function unpad(flags: number, payload: Buffer): Buffer {
  if (!(flags & Flag.PADDED)) return payload;
  if (payload.length === 0 || payload[0] >= payload.length)
    throw new H2Error(Code.PROTOCOL_ERROR, "padding as long as the frame");
  return payload.subarray(1, payload.length - payload[0]);
}

function data(conn: Connection, flags: number, id: number, payload: Buffer): void {
  onStream(id, "DATA");
  const body = unpad(flags, payload);
  conn.recvWindow -= payload.length;
  if (conn.recvWindow < 0) throw new H2Error(Code.FLOW_CONTROL_ERROR, "DATA beyond the connection's window");
  if (conn.recvWindow <= RECV_WINDOW / 2) {
    conn.write(Type.WINDOW_UPDATE, 0, 0, u32(RECV_WINDOW - conn.recvWindow));
    conn.recvWindow = RECV_WINDOW;
  }
  const stream = conn.streams.get(id);
  if (!stream) {
    if (idle(conn, id)) throw new H2Error(Code.PROTOCOL_ERROR, `DATA on stream ${id}, never opened`);
    return; // a stream this side already closed: what was in flight is dropped
  }
  if (stream.remoteEnded) throw new H2Error(Code.STREAM_CLOSED, `DATA after the end of stream ${id}`, id);
  stream.recvWindow -= payload.length;
  if (stream.recvWindow < 0)
    throw new H2Error(Code.FLOW_CONTROL_ERROR, "DATA beyond the stream's window", id);
  if (body.length > 0) stream.handler.data(body);
  if (stream.done) return;
  if (flags & Flag.END_STREAM) return conn.remoteEnd(stream);
  if (stream.recvWindow <= RECV_WINDOW / 2) {
    conn.write(Type.WINDOW_UPDATE, 0, id, u32(RECV_WINDOW - stream.recvWindow));
    stream.recvWindow = RECV_WINDOW;
  }
}

function headers(conn: Connection, flags: number, id: number, payload: Buffer): void {
  onStream(id, "HEADERS");
  let block = unpad(flags, payload);
  if (flags & Flag.PRIORITY) {
    if (block.length < 5) throw new H2Error(Code.FRAME_SIZE_ERROR, "HEADERS too short for its priority");
    block = block.subarray(5);
  }
  const end = (flags & Flag.END_STREAM) !== 0;
  if (flags & Flag.END_HEADERS) return headerBlock(conn, id, end, block);
  conn.pending = { stream: id, end, chunks: [block], size: block.length };
}

function continuation(conn: Connection, flags: number, id: number, payload: Buffer): void {
  const pending = conn.pending;
  if (!pending) throw new H2Error(Code.PROTOCOL_ERROR, "CONTINUATION without HEADERS");
  pending.chunks.push(payload);
  pending.size += payload.length;
  if (pending.size > MAX_HEADER_BLOCK)
    throw new H2Error(Code.ENHANCE_YOUR_CALM, `a header block over ${MAX_HEADER_BLOCK} octets`);
  if (!(flags & Flag.END_HEADERS)) return;
  conn.pending = undefined;
  headerBlock(conn, id, pending.end, Buffer.concat(pending.chunks));
}

/** A whole header block: decoded always (the table depends on it), then given to its stream. */
function headerBlock(conn: Connection, id: number, end: boolean, block: Buffer): void {
  let fields: Field[];
  try {
    fields = conn.decoder.decode(block);
  } catch (err) {
    if (err instanceof HpackError) throw new H2Error(Code.COMPRESSION_ERROR, err.message);
    throw err;
  }
  const stream = conn.streams.get(id);
  if (stream) {
    if (stream.remoteEnded)
      throw new H2Error(Code.STREAM_CLOSED, `HEADERS after the end of stream ${id}`, id);
    stream.handler.headers?.(fields);
    if (end && !stream.done) conn.remoteEnd(stream);
    return;
  }
  // Only a client opens streams here: odd, and above the last it opened.
  const opens = conn.isServer && id % 2 === 1 && id > conn.lastPeerStream;
  if (!opens) {
    if (idle(conn, id))
      throw new H2Error(Code.PROTOCOL_ERROR, `HEADERS on stream ${id}, which the peer cannot open`);
    return; // trailers of a stream this side already closed
  }
  conn.lastPeerStream = id;
  if (conn.goingAway) return void conn.write(Type.RST_STREAM, 0, id, u32(Code.REFUSED_STREAM));
  const opened = conn.open(id);
  // Marked before the handler sees it: a request refused at once knows it is already complete (and
  // is not reset after its answer); the handler is told of the end after it is set.
  opened.remoteEnded = end;
  opened.handler = conn.options.onStream?.(opened, fields) ?? opened.handler;
  if (end && !opened.done) conn.remoteEnd(opened);
}

function rstStream(conn: Connection, id: number, payload: Buffer): void {
  onStream(id, "RST_STREAM");
  if (payload.length !== 4) throw new H2Error(Code.FRAME_SIZE_ERROR, "RST_STREAM is not 4 octets");
  const stream = conn.streams.get(id);
  if (stream) conn.abort(stream);
  else if (idle(conn, id)) throw new H2Error(Code.PROTOCOL_ERROR, `RST_STREAM on stream ${id}, never opened`);
}

function settingsFrame(conn: Connection, flags: number, id: number, payload: Buffer): void {
  onConnection(id, "SETTINGS");
  if (flags & Flag.ACK) {
    if (payload.length !== 0)
      throw new H2Error(Code.FRAME_SIZE_ERROR, "a SETTINGS acknowledgement with a payload");
    return;
  }
  if (payload.length % 6 !== 0)
    throw new H2Error(Code.FRAME_SIZE_ERROR, "SETTINGS is not a multiple of 6 octets");
  for (let at = 0; at < payload.length; at += 6)
    apply(conn, payload.readUInt16BE(at), payload.readUInt32BE(at + 2));
  conn.settingsSeen = true;
  conn.write(Type.SETTINGS, Flag.ACK, 0);
  conn.flush();
}

/** One setting of the peer's; those this side has no use for are ignored (RFC 9113, 6.5.2). */
function apply(conn: Connection, key: number, value: number): void {
  if (key === Setting.ENABLE_PUSH && value > 1)
    throw new H2Error(Code.PROTOCOL_ERROR, `SETTINGS_ENABLE_PUSH ${value}`);
  if (key === Setting.MAX_FRAME_SIZE) {
    if (value < 16384 || value > 16777215)
      throw new H2Error(Code.PROTOCOL_ERROR, `SETTINGS_MAX_FRAME_SIZE ${value}`);
    conn.peerMaxFrame = value;
  }
  if (key !== Setting.INITIAL_WINDOW_SIZE) return;
  if (value > MAX_WINDOW) throw new H2Error(Code.FLOW_CONTROL_ERROR, `SETTINGS_INITIAL_WINDOW_SIZE ${value}`);
  const delta = value - conn.peerInitialWindow;
  conn.peerInitialWindow = value;
  for (const stream of conn.streams.values()) {
    stream.sendWindow += delta;
    if (stream.sendWindow > MAX_WINDOW)
      throw new H2Error(Code.FLOW_CONTROL_ERROR, "a stream's window over 2^31 - 1");
  }
}

function ping(conn: Connection, flags: number, id: number, payload: Buffer): void {
  onConnection(id, "PING");
  if (payload.length !== 8) throw new H2Error(Code.FRAME_SIZE_ERROR, "PING is not 8 octets");
  if (!(flags & Flag.ACK)) conn.write(Type.PING, Flag.ACK, 0, payload);
}

function goAway(conn: Connection, id: number, payload: Buffer): void {
  onConnection(id, "GOAWAY");
  if (payload.length < 8) throw new H2Error(Code.FRAME_SIZE_ERROR, "GOAWAY is under 8 octets");
  conn.peerGoingAway = true;
  if (conn.isServer) return;
  // The streams this side opened past the last the server processed never ran: they end here.
  const last = payload.readUInt32BE(0) & 0x7fffffff;
  for (const stream of [...conn.streams.values()]) if (stream.id > last) conn.abort(stream);
}

function windowUpdate(conn: Connection, id: number, payload: Buffer): void {
  if (payload.length !== 4) throw new H2Error(Code.FRAME_SIZE_ERROR, "WINDOW_UPDATE is not 4 octets");
  const increment = payload.readUInt32BE(0) & 0x7fffffff;
  if (id === 0) {
    if (increment === 0) throw new H2Error(Code.PROTOCOL_ERROR, "a WINDOW_UPDATE of 0");
    conn.sendWindow += increment;
    if (conn.sendWindow > MAX_WINDOW)
      throw new H2Error(Code.FLOW_CONTROL_ERROR, "the connection's window over 2^31 - 1");
    return conn.flush();
  }
  const stream = conn.streams.get(id);
  if (!stream) {
    if (idle(conn, id)) throw new H2Error(Code.PROTOCOL_ERROR, `WINDOW_UPDATE on stream ${id}, never opened`);
    return;
  }
  if (increment === 0) throw new H2Error(Code.PROTOCOL_ERROR, "a WINDOW_UPDATE of 0", id);
  stream.sendWindow += increment;
  if (stream.sendWindow > MAX_WINDOW)
    throw new H2Error(Code.FLOW_CONTROL_ERROR, "a stream's window over 2^31 - 1", id);
  conn.flush(stream);
}
