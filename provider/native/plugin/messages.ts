/**
 * Pulumi's protocol messages (the google-protobuf classes of `@pulumi/pulumi/proto/*_pb.js`), with the
 * reader guarded against lengths past the end of a message (below). ./proto.ts adds grpc-js and the
 * service definitions.
 */
import { dirname } from "node:path";
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import type * as enginePb from "@pulumi/pulumi/proto/engine_pb";
import type * as pluginPb from "@pulumi/pulumi/proto/plugin_pb";
import type * as statusPb from "@pulumi/pulumi/proto/status_pb";
import type * as structPb from "google-protobuf/google/protobuf/struct_pb";
import type * as anyPb from "google-protobuf/google/protobuf/any_pb";
import type * as emptyPb from "google-protobuf/google/protobuf/empty_pb";

/** Defined (as `true`) by scripts/bundle-plugin.js in the plugin bundle; absent under plain Node. */
declare const SECOPS_BUNDLE: boolean | undefined;

/** The message classes the plugin and its peers exchange. */
export interface Messages {
  provider: typeof providerPb;
  engine: typeof enginePb;
  plugin: typeof pluginPb;
  status: typeof statusPb;
  struct: typeof structPb;
  any: typeof anyPb;
  empty: typeof emptyPb;
}

interface Reader {
  nextField(): boolean;
  getWireType(): number;
  getFieldNumber(): number;
  getBuffer(): Uint8Array;
  getCursor(): number;
}

type WellKnown = Pick<Messages, "struct" | "any" | "empty"> & {
  jspb: { BinaryReader: { prototype: Reader } };
};

/**
 * google-protobuf and its well-known types as the stubs see them. Under Node they are resolved from
 * @pulumi/pulumi's own folder (a nested install may hold another copy beside this package). The
 * bundle needs static requires to follow; its build resolves those same names from @pulumi/pulumi's
 * folder, so the stubs and these share one copy there too.
 */
function wellKnown(): WellKnown {
  if (typeof SECOPS_BUNDLE !== "undefined")
    return {
      jspb: require("google-protobuf"),
      struct: require("google-protobuf/google/protobuf/struct_pb"),
      any: require("google-protobuf/google/protobuf/any_pb"),
      empty: require("google-protobuf/google/protobuf/empty_pb"),
    };
  const base = dirname(require.resolve("@pulumi/pulumi/package.json"));
  const from = <T>(name: string): T => require(require.resolve(name, { paths: [base] })) as T;
  return {
    jspb: from("google-protobuf"),
    struct: from("google-protobuf/google/protobuf/struct_pb"),
    any: from("google-protobuf/google/protobuf/any_pb"),
    empty: from("google-protobuf/google/protobuf/empty_pb"),
  };
}

/**
 * google-protobuf reads a length-delimited field byte by byte up to the length it claims, past the end
 * of the message: six bytes claiming 4 GiB (`0a ff ff ff ff 0f`) spin a core for minutes and the
 * process answers nothing, not even SIGTERM. Every field header is checked here before it is read:
 * a length beyond the bytes that remain, or a group (which Pulumi's protocol never uses), throws.
 */
function guardReader(reader: { prototype: Reader }): void {
  const R = reader.prototype as Reader & { __secopsGuarded?: boolean };
  if (R.__secopsGuarded) return;
  R.__secopsGuarded = true;
  const next = R.nextField;
  R.nextField = function (this: Reader) {
    const more = next.call(this);
    if (!more) return more;
    const type = this.getWireType();
    if (type === 3 || type === 4) throw new Error(`field ${this.getFieldNumber()} is a group`);
    if (type !== 2) return more;
    const buf = this.getBuffer();
    let at = this.getCursor();
    let length = 0;
    for (let shift = 0; ; shift += 7) {
      if (at >= buf.length || shift > 28)
        throw new Error(`field ${this.getFieldNumber()} has a broken length`);
      const b = buf[at++];
      length += (b & 0x7f) * 2 ** shift;
      if (!(b & 0x80)) break;
    }
    if (at + length > buf.length)
      throw new Error(
        `field ${this.getFieldNumber()} claims ${length} bytes where ${buf.length - at} remain`,
      );
    return more;
  };
}

let loaded: Messages | undefined;

/** Loads the message classes once (the reader guarded first). */
export function messages(): Messages {
  if (loaded) return loaded;
  const { jspb, ...rest } = wellKnown();
  guardReader(jspb.BinaryReader);
  loaded = {
    ...rest,
    provider: require("@pulumi/pulumi/proto/provider_pb.js"),
    engine: require("@pulumi/pulumi/proto/engine_pb.js"),
    plugin: require("@pulumi/pulumi/proto/plugin_pb.js"),
    status: require("@pulumi/pulumi/proto/status_pb.js"),
  };
  return loaded;
}

/** JSON-safe copy (drops undefined, which a Struct cannot carry). */
const clean = (o: unknown): Record<string, unknown> =>
  o === undefined || o === null ? {} : JSON.parse(JSON.stringify(o));

/** A property bag as a protobuf Struct. */
export function toStruct(o: unknown): structPb.Struct {
  return messages().struct.Struct.fromJavaScript(clean(o) as never);
}

/** A protobuf Struct (or nothing) as a property bag. */
export function fromStruct(s: structPb.Struct | undefined): Record<string, unknown> {
  return (s?.toJavaScript() as Record<string, unknown> | undefined) ?? {};
}
