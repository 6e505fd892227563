/**
 * One HTTP/2 stream of a connection (./connection.ts): what this side queued to send, the windows
 * that hold it back, and the handler told what the peer sent.
 */
import type { Field } from "./hpack";

/** What the peer sends on a stream, as the connection reads it. */
export interface StreamHandler {
  /** A header block after the first: the client reads the response's and its trailers here. */
  headers?(fields: Field[]): void;
  data(chunk: Buffer): void;
  /** The peer ended its side (END_STREAM). */
  end(): void;
  /** The stream ended before both sides did: reset by the peer or this side, or the connection lost. */
  closed(): void;
}

/** Something queued to send, in order: a header block, or data (flow-controlled). */
export type Outgoing = { fields: Field[]; end: boolean } | { data: Buffer; end: boolean };

/** The connection's side of a stream, which it drives. */
export interface StreamOwner {
  enqueue(stream: Stream, item: Outgoing): void;
  reset(stream: Stream, code: number): void;
}

export class Stream {
  /** Set when the stream is opened: the connection calls it with what the peer sends. */
  handler: StreamHandler = { data: () => undefined, end: () => undefined, closed: () => undefined };
  remoteEnded = false;
  /** This side queued its end; `localEnded` once END_STREAM is sent. */
  ending = false;
  localEnded = false;
  /** Ended by RST_STREAM or the connection's end, before both sides ended it. */
  aborted = false;
  readonly queue: Outgoing[] = [];

  constructor(
    private readonly owner: StreamOwner,
    readonly id: number,
    /** How many data octets the peer lets this side send now. */
    public sendWindow: number,
    /** How many data octets this side lets the peer send before it updates the window. */
    public recvWindow: number,
  ) {}

  /** Whether the stream is over for this side: both sides ended it, or it was aborted. */
  get done(): boolean {
    return this.aborted || (this.remoteEnded && this.localEnded);
  }

  /** Sends a header block (the headers, or the trailers after the data queued before them). */
  sendHeaders(fields: Field[], end = false): void {
    if (!this.ending && !this.aborted) this.owner.enqueue(this, { fields, end });
  }

  /** Sends data, as the peer's windows allow; `end` ends this side with it. */
  send(data: Buffer, end = false): void {
    if (!this.ending && !this.aborted) this.owner.enqueue(this, { data, end });
  }

  /** Ends the stream now (RST_STREAM with `code`), whatever was queued. */
  reset(code: number): void {
    if (!this.done) this.owner.reset(this, code);
  }
}
