/**
 * One gRPC call: its handler runs with its URN as the warnings' context, and its failure crosses gRPC
 * redacted, a half-made create as ErrorResourceInitFailed.
 */
import type * as grpcTypes from "@grpc/grpc-js";
import { withCancellation } from "../../client/cancellation";
import { ErrorCodes, isSecOpsError, redact, redactValues } from "../../client/errors";
import { currentCall, type ProviderInstance } from "./instance";
import { proto, toStruct } from "./proto";

/** A protocol message. */
export type Message = { serializeBinary(): Uint8Array };
/** A failure as grpc-js sends it. */
export type CallError = Partial<grpcTypes.ServiceError>;

/** An error that carries what a half-finished create made (Pulumi's partial failure). */
interface InitFailed extends Error {
  id: string;
  properties?: Record<string, unknown>;
  reasons?: string[];
}

const isInitFailed = (e: unknown): e is InitFailed =>
  e instanceof Error && typeof (e as Partial<InitFailed>).id === "string" && (e as InitFailed).id !== "";

/** A failure a caller can act on: the status code says whose fault it is. */
export class RpcFailure extends Error {
  constructor(
    readonly code: "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "UNIMPLEMENTED",
    message: string,
  ) {
    super(message);
  }
}

/** The gRPC status of a failure: whose fault it is. */
function codeOf(err: unknown): "INVALID_ARGUMENT" | "FAILED_PRECONDITION" | "UNIMPLEMENTED" | "UNKNOWN" {
  if (err instanceof RpcFailure) return err.code;
  if (isSecOpsError(err, ErrorCodes.INVALID_INPUT) || isSecOpsError(err, ErrorCodes.CONFIG))
    return "INVALID_ARGUMENT";
  if (isSecOpsError(err, ErrorCodes.WRONG_TEAM) || isSecOpsError(err, ErrorCodes.UNPROVEN))
    return "FAILED_PRECONDITION";
  return "UNKNOWN";
}

/**
 * The gRPC status for `err`, without the key or the call's `secrets`; a half-finished create's
 * ErrorResourceInitFailed goes as the status details (binary metadata).
 */
function callError(err: unknown, secrets: ReadonlySet<string>): CallError {
  const clean = (text: string) => redactValues(redact(text), secrets);
  const message = clean(err instanceof Error ? err.message : String(err));
  const { grpc, status, provider, any } = proto();
  const metadata = new grpc.Metadata();
  const failure = { code: grpc.status[codeOf(err)], details: message, metadata };
  if (!isInitFailed(err)) return failure;
  const detail = new provider.ErrorResourceInitFailed();
  detail.setId(err.id);
  detail.setProperties(toStruct(err.properties ?? {}));
  detail.setReasonsList((err.reasons ?? [message]).map(clean));
  const packed = new any.Any();
  packed.pack(detail.serializeBinary(), "pulumirpc.ErrorResourceInitFailed");
  const st = new status.Status();
  st.setCode(grpc.status.UNKNOWN);
  st.setMessage(message);
  st.addDetails(packed);
  metadata.add("grpc-status-details-bin", Buffer.from(st.serializeBinary()));
  return failure;
}

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
