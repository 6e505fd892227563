/**
 * Pulumi's gRPC stubs and the grpc-js they were generated for, both loaded from @pulumi/pulumi's own
 * dependencies so that the stubs and the server share one grpc-js instance (two copies of grpc-js
 * cannot serve each other's service definitions).
 */
import { dirname } from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import type * as providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import type * as enginePb from "@pulumi/pulumi/proto/engine_pb";
import type * as engineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import type * as pluginPb from "@pulumi/pulumi/proto/plugin_pb";
import type * as statusPb from "@pulumi/pulumi/proto/status_pb";
import type * as structPb from "google-protobuf/google/protobuf/struct_pb";
import type * as anyPb from "google-protobuf/google/protobuf/any_pb";
import type * as emptyPb from "google-protobuf/google/protobuf/empty_pb";

const pulumiBase = () => dirname(require.resolve("@pulumi/pulumi/package.json"));
const fromPulumi = <T>(name: string): T => require(require.resolve(name, { paths: [pulumiBase()] })) as T;

/** Everything the plugin server and the runner's client need, loaded once. */
export interface Proto {
  grpc: typeof grpcTypes;
  provider: typeof providerPb;
  providerGrpc: typeof providerGrpc;
  engine: typeof enginePb;
  engineGrpc: typeof engineGrpc;
  plugin: typeof pluginPb;
  status: typeof statusPb;
  struct: typeof structPb;
  any: typeof anyPb;
  empty: typeof emptyPb;
}

let loaded: Proto | undefined;

interface Reader {
  nextField(): boolean;
  getWireType(): number;
  getFieldNumber(): number;
  getBuffer(): Uint8Array;
  getCursor(): number;
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

/** Loads the stubs (on first use: requiring grpc-js costs start-up time). */
export function proto(): Proto {
  if (!loaded)
    guardReader(fromPulumi<{ BinaryReader: { prototype: Reader } }>("google-protobuf").BinaryReader);
  loaded ??= {
    grpc: fromPulumi("@grpc/grpc-js"),
    provider: require("@pulumi/pulumi/proto/provider_pb.js"),
    providerGrpc: require("@pulumi/pulumi/proto/provider_grpc_pb.js"),
    engine: require("@pulumi/pulumi/proto/engine_pb.js"),
    engineGrpc: require("@pulumi/pulumi/proto/engine_grpc_pb.js"),
    plugin: require("@pulumi/pulumi/proto/plugin_pb.js"),
    status: require("@pulumi/pulumi/proto/status_pb.js"),
    struct: fromPulumi("google-protobuf/google/protobuf/struct_pb"),
    any: fromPulumi("google-protobuf/google/protobuf/any_pb"),
    empty: fromPulumi("google-protobuf/google/protobuf/empty_pb"),
  };
  return loaded;
}

/** JSON-safe copy (drops undefined, which a Struct cannot carry). */
const clean = (o: unknown): Record<string, unknown> =>
  o === undefined || o === null ? {} : JSON.parse(JSON.stringify(o));

/** A property bag as a protobuf Struct. */
export function toStruct(o: unknown): structPb.Struct {
  return proto().struct.Struct.fromJavaScript(clean(o) as never);
}

/** A protobuf Struct (or nothing) as a property bag. */
export function fromStruct(s: structPb.Struct | undefined): Record<string, unknown> {
  return (s?.toJavaScript() as Record<string, unknown> | undefined) ?? {};
}
