/**
 * HPACK (RFC 7541), header compression for HTTP/2: a decoder for the header blocks a peer sends (with
 * its dynamic table, which every block of a connection updates in order) and an encoder for the
 * plugin's own, which sends every field as a literal that no table keeps, so it has no table to keep.
 */
import { huffmanDecode } from "./huffman";

/** A header field as sent: lower-case name, value (octets as latin1). */
export type Field = [name: string, value: string];

/** RFC 7541, Appendix A: indexes 1 to 61. */
const STATIC: readonly Field[] = [
  [":authority", ""],
  [":method", "GET"],
  [":method", "POST"],
  [":path", "/"],
  [":path", "/index.html"],
  [":scheme", "http"],
  [":scheme", "https"],
  [":status", "200"],
  [":status", "204"],
  [":status", "206"],
  [":status", "304"],
  [":status", "400"],
  [":status", "404"],
  [":status", "500"],
  ["accept-charset", ""],
  ["accept-encoding", "gzip, deflate"],
  ["accept-language", ""],
  ["accept-ranges", ""],
  ["accept", ""],
  ["access-control-allow-origin", ""],
  ["age", ""],
  ["allow", ""],
  ["authorization", ""],
  ["cache-control", ""],
  ["content-disposition", ""],
  ["content-encoding", ""],
  ["content-language", ""],
  ["content-length", ""],
  ["content-location", ""],
  ["content-range", ""],
  ["content-type", ""],
  ["cookie", ""],
  ["date", ""],
  ["etag", ""],
  ["expect", ""],
  ["expires", ""],
  ["from", ""],
  ["host", ""],
  ["if-match", ""],
  ["if-modified-since", ""],
  ["if-none-match", ""],
  ["if-range", ""],
  ["if-unmodified-since", ""],
  ["last-modified", ""],
  ["link", ""],
  ["location", ""],
  ["max-forwards", ""],
  ["proxy-authenticate", ""],
  ["proxy-authorization", ""],
  ["range", ""],
  ["referer", ""],
  ["refresh", ""],
  ["retry-after", ""],
  ["server", ""],
  ["set-cookie", ""],
  ["strict-transport-security", ""],
  ["transfer-encoding", ""],
  ["user-agent", ""],
  ["vary", ""],
  ["via", ""],
  ["www-authenticate", ""],
];

/** The dynamic table size this side allows (SETTINGS_HEADER_TABLE_SIZE, left at its default). */
export const TABLE_SIZE = 4096;

/** A header block that is not valid HPACK: a connection error (COMPRESSION_ERROR). */
export class HpackError extends Error {
  override readonly name = "HpackError";
}

/** Reads the fields of header blocks in order, keeping the dynamic table they build. */
export class HpackDecoder {
  /** Newest first: index 62 is entries[0]. */
  private entries: Field[] = [];
  private size = 0;
  private max = TABLE_SIZE;

  /** `limit`: the most octets of names and values (32 more per field) one block may decode to. */
  constructor(private readonly limit: number) {}

  decode(block: Uint8Array): Field[] {
    const fields: Field[] = [];
    let listSize = 0;
    const at = { pos: 0 };
    while (at.pos < block.length) {
      const b = block[at.pos];
      let field: Field | undefined;
      if (b & 0x80) field = this.entry(integer(block, at, 7));
      else if (b & 0x40) {
        field = this.literal(block, at, 6);
        this.add(field);
      } else if (b & 0x20) {
        if (fields.length > 0) throw new HpackError("a table size update follows a field");
        this.resize(integer(block, at, 5));
      } else field = this.literal(block, at, 4);
      if (!field) continue;
      listSize += field[0].length + field[1].length + 32;
      if (listSize > this.limit) throw new HpackError(`a header block decodes to over ${this.limit} bytes`);
      fields.push(field);
    }
    return fields;
  }

  private entry(index: number): Field {
    if (index === 0) throw new HpackError("index 0");
    if (index <= STATIC.length) return STATIC[index - 1];
    const field = this.entries[index - STATIC.length - 1];
    if (!field) throw new HpackError(`index ${index} is beyond the table`);
    return field;
  }

  /** A literal field whose name is an index (with `prefix` bits) or a string after it. */
  private literal(block: Uint8Array, at: { pos: number }, prefix: number): Field {
    const index = integer(block, at, prefix);
    const name = index === 0 ? string(block, at) : this.entry(index)[0];
    return [name, string(block, at)];
  }

  private add(field: Field): void {
    const size = field[0].length + field[1].length + 32;
    this.entries.unshift(field);
    this.size += size;
    this.evict();
  }

  private resize(max: number): void {
    if (max > TABLE_SIZE) throw new HpackError(`table size ${max} is over ${TABLE_SIZE}`);
    this.max = max;
    this.evict();
  }

  private evict(): void {
    while (this.size > this.max) {
      const [name, value] = this.entries.pop() as Field;
      this.size -= name.length + value.length + 32;
    }
  }
}

/** An integer with an N-bit prefix (RFC 7541, 5.1), at most 2^28: more is no length or index here. */
function integer(block: Uint8Array, at: { pos: number }, prefix: number): number {
  const mask = (1 << prefix) - 1;
  let value = block[at.pos++] & mask;
  if (value < mask) return value;
  for (let shift = 0; ; shift += 7) {
    if (at.pos >= block.length) throw new HpackError("an integer is cut short");
    if (shift > 21) throw new HpackError("an integer is too large");
    const b = block[at.pos++];
    value += (b & 0x7f) * 2 ** shift;
    if (!(b & 0x80)) return value;
  }
}

/** A string (RFC 7541, 5.2): length, then its octets, Huffman-coded or not. */
function string(block: Uint8Array, at: { pos: number }): string {
  if (at.pos >= block.length) throw new HpackError("a string is missing");
  const huffman = (block[at.pos] & 0x80) !== 0;
  const length = integer(block, at, 7);
  if (at.pos + length > block.length) throw new HpackError("a string is cut short");
  const octets = block.subarray(at.pos, at.pos + length);
  at.pos += length;
  if (!huffman) return Buffer.from(octets.buffer, octets.byteOffset, octets.length).toString("latin1");
  try {
    return huffmanDecode(octets);
  } catch (err) {
    throw new HpackError((err as Error).message);
  }
}

/** Appends an integer with an N-bit prefix whose other bits are `flags`. */
function putInteger(out: number[], value: number, prefix: number, flags: number): void {
  const mask = (1 << prefix) - 1;
  if (value < mask) return void out.push(flags | value);
  out.push(flags | mask);
  for (value -= mask; value >= 0x80; value = Math.floor(value / 0x80)) out.push((value % 0x80) | 0x80);
  out.push(value);
}

/**
 * A header block of `fields`, each a literal without indexing and without Huffman coding; `:status`
 * 200 is static index 8. Names and values are latin1 (HTTP/2 header octets).
 */
export function encodeFields(fields: readonly Field[]): Buffer {
  const parts: Buffer[] = [];
  for (const [name, value] of fields) {
    if (name === ":status" && value === "200") {
      parts.push(Buffer.from([0x88]));
      continue;
    }
    const head: number[] = [0x00];
    putInteger(head, name.length, 7, 0);
    parts.push(Buffer.from(head), Buffer.from(name, "latin1"));
    const len: number[] = [];
    putInteger(len, value.length, 7, 0);
    parts.push(Buffer.from(len), Buffer.from(value, "latin1"));
  }
  return Buffer.concat(parts);
}
