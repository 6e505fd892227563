/**
 * One gRPC call of the plugin: its handler runs with the URN (if any) as the context of warnings, and
 * a failure becomes a gRPC status without the key or the call's secret values.
 */
import type * as grpcTypes from "@grpc/grpc-js";
import { withCancellation } from "../../client/cancellation";
import { RpcFailure, toStatus } from "./errors";
import { currentCall, type ProviderInstance } from "./instance";
import { proto } from "./proto";

/** A protocol message. */
export type Message = { serializeBinary(): Uint8Array };
/** What a method does with its request. */
export type Handler = (req: never) => unknown;
/** A failure as grpc-js sends it. */
export type CallError = Partial<grpcTypes.ServiceError>;

/** A failure as grpc-js sends it: the status details (ErrorResourceInitFailed) as binary metadata. */
function callError(err: unknown, secrets: ReadonlySet<string>): CallError {
  const status = toStatus(err, secrets);
  const metadata = new (proto().grpc.Metadata)();
  if (status.details) metadata.add("grpc-status-details-bin", Buffer.from(status.details));
  return { code: status.code, details: status.message, metadata };
}

/**
 * Runs `handler` for `request`; rejects with a {@link CallError}. The requests it makes to the API
 * end with `call`: once the engine cancels it, those not yet sent are never sent
 * (client/cancellation.ts).
 */
export function runCall(
  instance: ProviderInstance,
  call: grpcTypes.ServerUnaryCall<unknown, unknown>,
  handler: Handler,
): Promise<Message> {
  const request = call.request;
  const cancelled = new AbortController();
  call.once("cancelled", () => cancelled.abort());
  const getUrn = (request as { getUrn?: () => string }).getUrn;
  const urn = typeof getUrn === "function" ? getUrn.call(request) : "";
  const secrets = new Set<string>();
  const run = async () => {
    if (instance.cancelled) throw new RpcFailure("FAILED_PRECONDITION", "secops: the provider was cancelled");
    return ((await handler(request as never)) ?? new (proto().empty.Empty)()) as Message;
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
      (res) => callback(null, res),
      (err: CallError) => callback(err, null),
    );
  };
}
