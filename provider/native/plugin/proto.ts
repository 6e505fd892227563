/**
 * Pulumi's gRPC stubs with the grpc-js they were generated for, for the side that plays the engine
 * (the offline runner and the tests): the message classes of ./messages.ts plus grpc-js and the
 * service definitions, loaded from @pulumi/pulumi's own dependencies so that the stubs and the client
 * share one grpc-js instance. The plugin itself never loads this (./h2-grpc.ts serves it).
 */
import { dirname } from "node:path";
import type * as grpcTypes from "@grpc/grpc-js";
import type * as providerGrpc from "@pulumi/pulumi/proto/provider_grpc_pb";
import type * as engineGrpc from "@pulumi/pulumi/proto/engine_grpc_pb";
import { messages, type Messages } from "./messages";

export { fromStruct, toStruct } from "./messages";

/** Everything the engine's side needs, loaded once. */
export interface Proto extends Messages {
  grpc: typeof grpcTypes;
  providerGrpc: typeof providerGrpc;
  engineGrpc: typeof engineGrpc;
}

let loaded: Proto | undefined;

/** Loads grpc-js and the stubs on first use. */
export function proto(): Proto {
  if (loaded) return loaded;
  const base = dirname(require.resolve("@pulumi/pulumi/package.json"));
  loaded = {
    ...messages(),
    grpc: require(require.resolve("@grpc/grpc-js", { paths: [base] })),
    providerGrpc: require("@pulumi/pulumi/proto/provider_grpc_pb.js"),
    engineGrpc: require("@pulumi/pulumi/proto/engine_grpc_pb.js"),
  };
  return loaded;
}
