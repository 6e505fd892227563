/**
 * List (server streaming), a page per call (resources/framework/listing.ts). A query holding an unknown
 * value answers a single `Computed`; a bad query or limit, a refused key or role fail: never an empty list.
 */
import type * as grpcTypes from "@grpc/grpc-js";
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { checkListRequest, listPage, type ListPageRequest } from "../../resources/framework/listing";
import { runCall, type CallError, type Message } from "./call";
import type { ProviderInstance } from "./instance";
import { fromStruct, proto } from "./proto";
import { UNKNOWN } from "../../resources/framework/markers";
import { unwrap } from "./wire";

/** True when `v` holds the engine's unknown value anywhere. */
function holdsUnknown(v: unknown): boolean {
  if (v === UNKNOWN) return true;
  if (Array.isArray(v)) return v.some(holdsUnknown);
  return v !== null && typeof v === "object" && Object.values(v).some(holdsUnknown);
}

/** The answers of one call: a Computed, or the page's results and its continuation. */
async function answers(instance: ProviderInstance, req: providerPb.ListRequest): Promise<Message[]> {
  const { provider } = proto();
  const R = provider.ListResponse;
  const query = unwrap(fromStruct(req.getQuery())).values;
  const page: ListPageRequest = {
    token: req.getToken(),
    query,
    limit: Number(req.getLimit()),
    pageSize: Number(req.getPageSize()),
    continuation: req.getContinuationToken(),
  };
  if (holdsUnknown(query)) {
    // The keys are known even when a value is not: an unknown key is refused all the same.
    checkListRequest({ ...page, query: Object.fromEntries(Object.keys(query).map((k) => [k, undefined])) });
    return [new R().setComputed(new R.Computed())];
  }
  const { results, continuation } = await instance.guard(async () => listPage(await instance.client(), page));
  const out: Message[] = results.map(({ id, name }) =>
    new R().setResult(new R.Result().setId(id).setName(name)),
  );
  if (continuation)
    out.push(new R().setContinuation(new R.Continuation().setContinuationToken(continuation)));
  return out;
}

/** The List handler: every answer written, then the end; a failure as the call's status. */
export function list(instance: ProviderInstance): grpcTypes.handleServerStreamingCall<unknown, Message> {
  return (call) => {
    runCall(instance, call, (req: providerPb.ListRequest) => answers(instance, req)).then(
      (batch) => {
        for (const message of batch) if (!call.cancelled) call.write(message);
        call.end();
      },
      (err: CallError) => call.emit("error", err),
    );
  };
}
