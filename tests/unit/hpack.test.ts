/**
 * The plugin's HPACK (provider/native/plugin/h2/hpack.ts): the RFC's own examples, and every header
 * block Node's HTTP/2 client (nghttp2: Huffman strings, a dynamic table that fills and evicts) sends.
 */
import * as http2 from "node:http2";
import { createServer, type AddressInfo } from "node:net";
import { Connection } from "../../provider/native/plugin/h2/connection";
import { encodeFields, HpackDecoder, type Field } from "../../provider/native/plugin/h2/hpack";

const hex = (s: string) => Buffer.from(s.replace(/\s+/g, ""), "hex");

describe("HPACK decoding", () => {
  test("RFC 7541 C.3: requests without Huffman coding, one dynamic table across them", () => {
    const d = new HpackDecoder(65536);
    expect(d.decode(hex("8286 8441 0f77 7777 2e65 7861 6d70 6c65 2e63 6f6d"))).toEqual([
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
    ]);
    expect(d.decode(hex("8286 84be 5808 6e6f 2d63 6163 6865"))).toEqual([
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
      ["cache-control", "no-cache"],
    ]);
    expect(d.decode(hex("8287 85bf 400a 6375 7374 6f6d 2d6b 6579 0c63 7573 746f 6d2d 7661 6c75 65"))).toEqual(
      [
        [":method", "GET"],
        [":scheme", "https"],
        [":path", "/index.html"],
        [":authority", "www.example.com"],
        ["custom-key", "custom-value"],
      ],
    );
  });

  test("RFC 7541 C.4: the same requests Huffman-coded", () => {
    const d = new HpackDecoder(65536);
    const first: Field[] = [
      [":method", "GET"],
      [":scheme", "http"],
      [":path", "/"],
      [":authority", "www.example.com"],
    ];
    expect(d.decode(hex("8286 8441 8cf1 e3c2 e5f2 3a6b a0ab 90f4 ff"))).toEqual(first);
    expect(d.decode(hex("8286 84be 5886 a8eb 1064 9cbf"))).toEqual([...first, ["cache-control", "no-cache"]]);
    expect(d.decode(hex("8287 85bf 4088 25a8 49e9 5ba9 7d7f 8925 a849 e95b b8e8 b4bf"))).toEqual([
      [":method", "GET"],
      [":scheme", "https"],
      [":path", "/index.html"],
      [":authority", "www.example.com"],
      ["custom-key", "custom-value"],
    ]);
  });

  test("a block that is not valid HPACK throws, saying what is wrong", () => {
    const cases: Array<[string, string]> = [
      ["80", "index 0"],
      ["be", "index 62 is beyond the table"],
      ["ff ff ff ff ff 0f", "an integer is too large"],
      ["ff 80", "an integer is cut short"],
      ["00 05 61 62", "a string is cut short"],
      ["00", "a string is missing"],
      ["3f e2 1f", "table size 4097 is over 4096"],
      ["82 20", "a table size update follows a field"],
      ["00 84 ff ff ff ff 01 61", "a Huffman string holds EOS"],
      ["00 81 00 01 61", "a Huffman string has invalid padding"],
    ];
    for (const [block, message] of cases)
      expect(() => new HpackDecoder(65536).decode(hex(block))).toThrow(message);
  });

  test("a block decoding to more than the limit throws (an indexed field repeated is not free)", () => {
    const d = new HpackDecoder(1000);
    const block = Buffer.concat([hex("40 01 78 0a"), Buffer.alloc(10, 0x79), Buffer.alloc(30, 0xbe)]);
    expect(() => d.decode(block)).toThrow("a header block decodes to over 1000 bytes");
  });

  test("what the plugin encodes decodes to the same fields", () => {
    const fields: Field[] = [
      [":status", "200"],
      ["content-type", "application/grpc"],
      ["grpc-message", "x".repeat(300)],
      ["grpc-status-details-bin", "QUJD"],
    ];
    expect(new HpackDecoder(65536).decode(encodeFields(fields))).toEqual(fields);
  });
});

describe("HPACK against Node's HTTP/2 client", () => {
  test("300 requests on one session, with headers that fill and evict the table, decode as sent", async () => {
    const seen: Field[][] = [];
    const server = createServer((socket) => {
      new Connection(socket, {
        role: "server",
        onStream: (stream, fields) => {
          seen.push(fields);
          stream.sendHeaders([[":status", "200"]], true);
          return { data: () => undefined, end: () => undefined, closed: () => undefined };
        },
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const session = http2.connect(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    const sent: Array<Record<string, string>> = [];
    for (let i = 0; i < 300; i++) {
      const extra = {
        "x-seq": String(i),
        "x-repeat": "same value every time",
        [`x-name-${i % 7}`]: String.fromCharCode(33 + (i % 90)).repeat((i * 37) % 700),
      };
      sent.push(extra);
      await new Promise<void>((resolve, reject) => {
        const req = session.request({ ":method": "POST", ":path": `/svc/M${i}`, ...extra });
        req.on("response", () => resolve());
        req.on("error", reject);
        req.end();
      });
    }
    session.close();
    server.close();
    expect(seen).toHaveLength(300);
    seen.forEach((fields, i) => {
      const got = Object.fromEntries(fields);
      expect(got[":path"]).toBe(`/svc/M${i}`);
      for (const [k, v] of Object.entries(sent[i])) expect(got[k]).toBe(v);
    });
  });
});
