/**
 * Resource RPCs: each unwraps secrets, calls this instance's implementation of the URN's type, and
 * wraps what arrived secret again. API calls run through the instance's guard. Diff details each
 * changed input: inputs that are also outputs are compared with the last outputs (so drift found by
 * refresh shows), input-only ones with the old inputs. List (server streaming) answers a page per call
 * (resources/framework/listing.ts); a query holding an unknown value answers a single `Computed`; a bad
 * query or limit, a refused key or role fail: never an empty list.
 */
import type * as grpcTypes from "@grpc/grpc-js";
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { hideInErrors, type ProviderInstance } from "./instance";
import { RpcFailure, runCall, type CallError, type Message } from "./call";
import { ErrorCodes, isSecOpsError } from "../../client/errors";
import { addFailures, fromStruct, proto, toStruct, unwrap, wrap } from "./proto";
import type { ResourceImplementation } from "../../resources/framework/context";
import { defaultsOf, outputOnlyGiven, type Bag } from "../../resources/framework/definition";
import { checkListRequest, listPage, type ListPageRequest } from "../../resources/framework/listing";
import { RESOURCES, type RegisteredResource } from "../../resources/framework/registry";
import { typeOfUrn } from "../../resources/framework/names";
import { UNKNOWN } from "../../resources/framework/markers";

/** One native resource type: its definition (names in messages, what replaces, what is output-only). */
export interface NativeResource extends RegisteredResource {
  /** Input property names. */
  inputs: readonly string[];
  /** Output property names. */
  outputs: readonly string[];
  /** The values Check gives inputs left unset (an unset input is no change from its default). */
  defaults: Readonly<Bag>;
}

/** The resource the plugin serves for `token`, made from its definition; undefined for another token. */
export function nativeResource(token: string): NativeResource | undefined {
  const found = RESOURCES.find((r) => r.definition.token === token);
  if (!found) return undefined;
  const { definition } = found;
  return {
    ...found,
    inputs: Object.keys(definition.inputs),
    outputs: Object.keys(definition.outputs),
    defaults: defaultsOf(definition),
  };
}

/** How a property changed. */
export type Kind = "ADD" | "DELETE" | "UPDATE";

const present = (v: unknown) => v !== undefined && v !== null;
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A DiffResponse: each changed property's kind (`_REPLACE` for `replaces`); `inputDiff` for resources. */
export function diffResponse(
  kinds: ReadonlyMap<string, Kind>,
  {
    changes = kinds.size > 0,
    replaces = [] as readonly string[],
    deleteBeforeReplace = false,
    inputDiff = false,
  },
): providerPb.DiffResponse {
  const { provider } = proto();
  const K = provider.PropertyDiff.Kind;
  const { DIFF_SOME, DIFF_NONE } = provider.DiffResponse.DiffChanges;
  const res = new provider.DiffResponse()
    .setChanges(changes ? DIFF_SOME : DIFF_NONE)
    .setReplacesList([...replaces])
    .setDeletebeforereplace(deleteBeforeReplace)
    .setDiffsList([...kinds.keys()])
    .setHasdetaileddiff(!changes || kinds.size > 0);
  for (const [k, kind] of kinds) {
    const d = new provider.PropertyDiff().setKind(replaces.includes(k) ? K[`${kind}_REPLACE`] : K[kind]);
    res.getDetaileddiffMap().set(k, d.setInputdiff(inputDiff));
  }
  return res;
}

type Impl = ResourceImplementation<Bag, Bag>;

/** The resource type a request is about and its implementation for this instance. */
function resolve(instance: ProviderInstance, urn: string, type?: string) {
  const token = type || typeOfUrn(urn);
  const resource = nativeResource(token);
  const impl = instance.implementation(token);
  if (!resource || !impl)
    throw new RpcFailure(
      "INVALID_ARGUMENT",
      `secops: unknown resource type ${JSON.stringify(token)} (${urn})`,
    );
  return { resource, impl };
}

/** Plain values, with what arrived secret kept out of the call's error text. */
const unwrapHidden = (s: Parameters<typeof fromStruct>[0]) => hideInErrors(unwrap(fromStruct(s)));

/** Outputs during preview: known inputs, unknown for what only the API can tell. */
function previewOutputs(resource: NativeResource, inputs: Bag, olds: Bag): Bag {
  return Object.fromEntries(resource.outputs.map((k) => [k, inputs[k] ?? (k in olds ? olds[k] : UNKNOWN)]));
}

/** A bag as it goes back: what arrived secret wrapped again. */
const sealed = (bag: Bag | undefined, secrets: ReadonlySet<string>) => toStruct(wrap(bag ?? {}, secrets));

/** Check's failures and those of output-only names given as inputs. */
async function checkFailures(resource: NativeResource, impl: Impl, olds: Bag, news: Bag) {
  const checked = await impl.check(olds, news);
  const failures = [...outputOnlyGiven(resource.definition, news), ...(checked.failures ?? [])];
  return { inputs: checked.inputs ?? news, failures };
}

/** Check, with the output-only names given as inputs refused too. */
export async function check(
  instance: ProviderInstance,
  req: providerPb.CheckRequest,
): Promise<providerPb.CheckResponse> {
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const { values, secrets } = unwrapHidden(req.getNews());
  const checked = await checkFailures(resource, impl, unwrapHidden(req.getOlds()).values, values);
  const res = new (proto().provider.CheckResponse)().setInputs(sealed(checked.inputs, secrets));
  addFailures(res, checked.failures);
  return res;
}

/** Diff: the implementation's verdict, detailed per property. */
export async function diff(
  instance: ProviderInstance,
  req: providerPb.DiffRequest,
): Promise<providerPb.DiffResponse> {
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const olds = unwrapHidden(req.getOlds()).values;
  const oldInputs = unwrapHidden(req.getOldInputs()).values;
  const news = unwrapHidden(req.getNews()).values;
  const verdict = await instance.guard(() => impl.diff(req.getId(), olds, news));
  if (!verdict.changes) return diffResponse(new Map(), { changes: false });
  const { replaces = [], deleteBeforeReplace } = verdict;
  // How each input changed; a property the implementation replaces is an update if nothing else changed it.
  const kinds = new Map<string, Kind>();
  for (const k of resource.inputs) {
    const now = news[k];
    if (!present(now)) {
      if (present(oldInputs[k] ?? resource.defaults[k])) kinds.set(k, "DELETE");
      continue;
    }
    const before =
      resource.outputs.includes(k) && present(olds[k]) ? olds[k] : (oldInputs[k] ?? resource.defaults[k]);
    if (!present(before)) kinds.set(k, "ADD");
    else if (now === UNKNOWN || !same(before, now)) kinds.set(k, "UPDATE");
  }
  for (const k of replaces) if (!kinds.has(k)) kinds.set(k, "UPDATE");
  return diffResponse(kinds, { changes: true, replaces, deleteBeforeReplace, inputDiff: true });
}

/** Create (in preview: the known inputs and unknowns), checked again first. */
export async function create(
  instance: ProviderInstance,
  req: providerPb.CreateRequest,
): Promise<providerPb.CreateResponse> {
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const { values, secrets } = unwrapHidden(req.getProperties());
  const res = new (proto().provider.CreateResponse)();
  if (req.getPreview()) return res.setProperties(sealed(previewOutputs(resource, values, {}), secrets));
  // The engine may send Create without Check (e.g. an import of a changed program): check again.
  const invalid = (problems: string) =>
    new RpcFailure("INVALID_ARGUMENT", `secops: invalid inputs for ${req.getUrn()}: ${problems}`);
  const { failures } = await checkFailures(resource, impl, {}, values);
  if (failures.length) throw invalid(failures.map((f) => `${f.property}: ${f.reason}`).join("; "));
  const made = await instance
    .guard(() => impl.create(values))
    .catch((err: unknown) => {
      // Refused while it ran (another resource declared the same object meanwhile): as Check says it.
      if (isSecOpsError(err, ErrorCodes.INVALID_INPUT)) throw invalid(err.message);
      // A half-finished create reports what it made: keep its secrets secret too.
      const partial = err as { properties?: Bag };
      if (partial && typeof partial.properties === "object")
        partial.properties = wrap(partial.properties, secrets);
      throw err;
    });
  return res.setId(made.id).setProperties(sealed(made.outs, secrets));
}

/** Inputs after a refresh: each managed input that is also an output takes the value read. */
function refreshedInputs(resource: NativeResource, inputs: Bag, outputs: Bag): Bag {
  const next = { ...inputs };
  for (const k of resource.inputs)
    if (k in inputs && resource.outputs.includes(k) && outputs[k] !== undefined && outputs[k] !== null)
      next[k] = outputs[k];
  return next;
}

/** Read: a refresh, or an import (an id only: inputs and properties both come back). */
export async function read(
  instance: ProviderInstance,
  req: providerPb.ReadRequest,
): Promise<providerPb.ReadResponse> {
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const props = unwrapHidden(req.getProperties());
  const inputs = unwrapHidden(req.getInputs());
  const importing = Object.keys(props.values).length === 0 && Object.keys(inputs.values).length === 0;
  const found = await instance.guard(() => impl.read(req.getId(), importing ? undefined : props.values));
  const res = new (proto().provider.ReadResponse)();
  if (!found.id || !found.props) return res; // gone: an empty id
  const secrets = new Set([...props.secrets, ...inputs.secrets]);
  const nextInputs = importing
    ? resource.definition.importInputs(found.props)
    : refreshedInputs(resource, inputs.values, found.props);
  return res
    .setId(found.id)
    .setProperties(sealed(found.props, secrets))
    .setInputs(sealed(nextInputs, secrets));
}

/** Update (in preview: the known inputs and unknowns). */
export async function update(
  instance: ProviderInstance,
  req: providerPb.UpdateRequest,
): Promise<providerPb.UpdateResponse> {
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const olds = unwrapHidden(req.getOlds());
  const news = unwrapHidden(req.getNews());
  const secrets = new Set([...olds.secrets, ...news.secrets]);
  const outputs = req.getPreview()
    ? previewOutputs(resource, news.values, olds.values)
    : (await instance.guard(() => impl.update(req.getId(), olds.values, news.values))).outs;
  return new (proto().provider.UpdateResponse)().setProperties(sealed(outputs, secrets));
}

/** Delete. */
export async function remove(instance: ProviderInstance, req: providerPb.DeleteRequest): Promise<void> {
  const { impl } = resolve(instance, req.getUrn(), req.getType());
  const olds = unwrapHidden(req.getProperties()).values;
  await instance.guard(() => impl.delete(req.getId(), olds));
}

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
