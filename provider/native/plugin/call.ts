/** One gRPC call: its handler runs with its URN as the warnings' context; failures are redacted. */
import type * as grpcTypes from "@grpc/grpc-js";
import { withCancellation } from "../../client/cancellation";
import { callError, RpcFailure, type CallError } from "./errors";
import { currentCall, type ProviderInstance } from "./instance";
import { proto } from "./proto";

/** A protocol message. */
export type Message = { serializeBinary(): Uint8Array };
/** What a method does with its request. */
export type Handler = (req: never) => unknown;

/** Runs `handler` (a cancel ends its API requests); rejects with a {@link CallError}. */
export function runCall<T>(
  instance: ProviderInstance,
  call: grpcTypes.ServerUnaryCall<unknown, unknown>,
  handler: (req: never) => T | Promise<T>,
): Promise<T> {
  const request = call.request;
  const cancelled = new AbortController();
  call.once("cancelled", () => cancelled.abort());
  const getUrn = (request as { getUrn?: () => string }).getUrn;
  const urn = typeof getUrn === "function" ? getUrn.call(request) : "";
  const secrets = new Set<string>();
  const run = async () => {
    if (instance.cancelled) throw new RpcFailure("FAILED_PRECONDITION", "secops: the provider was cancelled");
    return handler(request as never);
  };
  return withCancellation(cancelled.signal, () => currentCall.run({ urn, secrets }, run)).catch(
    (err: unknown) => {
      throw callError(err, secrets);
    },
  );
}

/** A unary grpc-js handler around {@link runCall}. */
export function unary(
  instance: ProviderInstance,
  handler: Handler,
): grpcTypes.handleUnaryCall<unknown, Message> {
  return (call, callback) => {
    runCall(instance, call, handler).then(
      (res) => callback(null, (res ?? new (proto().empty.Empty)()) as Message),
      (err: CallError) => callback(err, null),
    );
  };
}
