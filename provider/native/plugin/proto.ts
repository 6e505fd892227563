/**
 * Pulumi's gRPC stubs (`@pulumi/pulumi/proto/*`) with the grpc-js and google-protobuf they were
 * generated for, resolved from @pulumi/pulumi's own folder so stubs and server share one instance (the
 * bundle uses static requires, which scripts/bundle-plugin.js resolves from that same folder); and the
 * values they carry: property bags as Structs, with secrets as the engine sends them (signature
 * objects). Implementations see plain values, and what arrived secret is wrapped again in what goes
 * back, so a secret input stays secret in state.
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
import { SECRET_SIG, SIG_KEY } from "../../resources/framework/markers";

/** Defined (as `true`) by scripts/bundle-plugin.js in the plugin bundle; absent under plain Node. */
declare const SECOPS_BUNDLE: boolean | undefined;

/** What the length guard needs of google-protobuf's BinaryReader. */
interface Reader {
  nextField(): boolean;
  getWireType(): number;
  getFieldNumber(): number;
  getBuffer(): Uint8Array;
  getCursor(): number;
}

/** grpc-js and google-protobuf (with its well-known types) as the stubs see them. */
interface Shared {
  grpc: typeof grpcTypes;
  jspb: { BinaryReader: { prototype: Reader } };
  struct: typeof structPb;
  any: typeof anyPb;
  empty: typeof emptyPb;
}

function shared(): Shared {
  if (typeof SECOPS_BUNDLE !== "undefined")
    return {
      grpc: require("@grpc/grpc-js"),
      jspb: require("google-protobuf"),
      struct: require("google-protobuf/google/protobuf/struct_pb"),
      any: require("google-protobuf/google/protobuf/any_pb"),
      empty: require("google-protobuf/google/protobuf/empty_pb"),
    };
  const base = dirname(require.resolve("@pulumi/pulumi/package.json"));
  const from = <T>(name: string): T => require(require.resolve(name, { paths: [base] })) as T;
  return {
    grpc: from("@grpc/grpc-js"),
    jspb: from("google-protobuf"),
    struct: from("google-protobuf/google/protobuf/struct_pb"),
    any: from("google-protobuf/google/protobuf/any_pb"),
    empty: from("google-protobuf/google/protobuf/empty_pb"),
  };
}

/**
 * google-protobuf reads a field up to the length it claims, past the message's end (six bytes claiming
 * 4 GiB spin a core for minutes): such a length, or a group (unused by Pulumi), throws here first.
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

/** Everything both sides of the protocol need: grpc-js and the stubs (the reader guarded first). */
function load() {
  const { jspb, ...rest } = shared();
  guardReader(jspb.BinaryReader);
  return {
    ...rest,
    provider: require("@pulumi/pulumi/proto/provider_pb.js") as typeof providerPb,
    providerGrpc: require("@pulumi/pulumi/proto/provider_grpc_pb.js") as typeof providerGrpc,
    engine: require("@pulumi/pulumi/proto/engine_pb.js") as typeof enginePb,
    engineGrpc: require("@pulumi/pulumi/proto/engine_grpc_pb.js") as typeof engineGrpc,
    plugin: require("@pulumi/pulumi/proto/plugin_pb.js") as typeof pluginPb,
    status: require("@pulumi/pulumi/proto/status_pb.js") as typeof statusPb,
  };
}

let loaded: ReturnType<typeof load> | undefined;

/** {@link load}, on first use only. */
export const proto = () => (loaded ??= load());

/** A property bag as a protobuf Struct (JSON-safe: undefined, which a Struct cannot carry, is dropped). */
export function toStruct(o: unknown): structPb.Struct {
  const bag = o === undefined || o === null ? {} : JSON.parse(JSON.stringify(o));
  return proto().struct.Struct.fromJavaScript(bag);
}

/** A protobuf Struct (or nothing) as a property bag. */
export function fromStruct(s: structPb.Struct | undefined): Record<string, unknown> {
  return (s?.toJavaScript() as Record<string, unknown> | undefined) ?? {};
}

/** A response's `failures` (CheckResponse, InvokeResponse): one CheckFailure per problem. */
export function addFailures(
  res: { addFailures(f: providerPb.CheckFailure): unknown },
  failures: Iterable<{ property?: string; reason: string }>,
): void {
  for (const f of failures)
    res.addFailures(new (proto().provider.CheckFailure)().setProperty(f.property ?? "").setReason(f.reason));
}

/** A value wrapped as a secret. */
export const secretOf = (value: unknown): Record<string, unknown> => ({ [SIG_KEY]: SECRET_SIG, value });

/** `v` without secret wrappers; `found.secret` set when it had one. */
function strip(v: unknown, found: { secret: boolean }): unknown {
  if (Array.isArray(v)) return v.map((x) => strip(x, found));
  if (v === null || typeof v !== "object") return v;
  const o = v as Record<string, unknown>;
  if (o[SIG_KEY] !== SECRET_SIG)
    return Object.fromEntries(Object.entries(o).map(([k, x]) => [k, strip(x, found)]));
  found.secret = true; // a secret signature object
  return strip(o.value, found);
}

/** The plain values, and the top-level properties that held a secret anywhere inside (and `also`). */
export function unwrap(bag: Record<string, unknown>, also: Iterable<string> = []) {
  const secrets = new Set(also);
  const values: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(bag)) {
    const found = { secret: false };
    values[k] = strip(v, found);
    if (found.secret) secrets.add(k);
  }
  return { values, secrets };
}

/** Wraps the named properties as secrets. */
export function wrap(bag: Record<string, unknown>, secrets: ReadonlySet<string>): Record<string, unknown> {
  if (secrets.size === 0) return bag;
  return Object.fromEntries(
    Object.entries(bag).map(([k, v]) => [k, secrets.has(k) && v !== undefined ? secretOf(v) : v]),
  );
}
