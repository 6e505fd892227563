/**
 * Pulumi's gRPC stubs with the grpc-js they were generated for: the message classes of ./messages.ts
 * plus grpc-js and the service definitions. The plugin serves with them (./server.ts) and the side that
 * plays the engine (the offline runner, the tests) calls with them. grpc-js is loaded from
 * @pulumi/pulumi's own dependencies so that the stubs and the server share one grpc-js instance (in
 * the plugin bundle, scripts/bundle-plugin.js resolves the same names from that folder).
 */
import { dirname } from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";
import type * as providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import type * as engineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import { messages, type Messages } from "./messages";

export { fromStruct, toStruct } from "./messages";

/** Defined (as `true`) by scripts/bundle-plugin.js in the plugin bundle; absent under plain Node. */
declare const SECOPS_BUNDLE: boolean | undefined;

/** Everything both sides of the protocol need, loaded once. */
export interface Proto extends Messages {
  grpc: typeof grpcTypes;
  providerGrpc: typeof providerGrpc;
  engineGrpc: typeof engineGrpc;
}

let loaded: Proto | undefined;

/** grpc-js: a static require in the bundle (which esbuild follows), @pulumi/pulumi's copy otherwise. */
function grpcJs(): typeof grpcTypes {
  if (typeof SECOPS_BUNDLE !== "undefined") return require("@grpc/grpc-js");
  const base = dirname(require.resolve("@pulumi/pulumi/package.json"));
  return require(require.resolve("@grpc/grpc-js", { paths: [base] }));
}

/** Loads grpc-js and the stubs on first use. */
export function proto(): Proto {
  if (loaded) return loaded;
  loaded = {
    ...messages(),
    grpc: grpcJs(),
    providerGrpc: require("@pulumi/pulumi/proto/provider_grpc_pb.js"),
    engineGrpc: require("@pulumi/pulumi/proto/engine_grpc_pb.js"),
  };
  return loaded;
}
