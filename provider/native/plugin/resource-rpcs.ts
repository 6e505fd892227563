/**
 * Resource RPCs: Check, Diff, Create, Read (refresh and import), Update, Delete. Each unwraps
 * secrets, calls the shared implementation of the URN's type for this provider instance, and wraps
 * what arrived secret again in what it returns. Check refuses unknown input names (the
 * implementation's check names the closest known one) and output-only names: Pulumi YAML and other
 * languages reach it without our SDK. Calls that need the API run through the instance's guard (one
 * error for a refused key).
 */
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { hideInErrors, type ProviderInstance } from "./instance";
import { diffResponse } from "./diff";
import { RpcFailure } from "./errors";
import { fromStruct, messages, toStruct } from "./messages";
import { outputOnlyGiven } from "../../resources/framework/definition";
import { nativeResource, typeOfUrn, type Bag, type NativeResource } from "./resources";
import { unwrap, wrap, UNKNOWN } from "./wire";

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
function unwrapHidden(s: Parameters<typeof fromStruct>[0]): ReturnType<typeof unwrap> {
  const u = unwrap(fromStruct(s));
  hideInErrors([...u.secrets].map((k) => u.values[k]));
  return u;
}

/** Outputs during preview: known inputs, unknown for what only the API can tell. */
function previewOutputs(resource: NativeResource, inputs: Bag, olds: Bag): Bag {
  return Object.fromEntries(resource.outputs.map((k) => [k, inputs[k] ?? (k in olds ? olds[k] : UNKNOWN)]));
}

export async function check(
  instance: ProviderInstance,
  req: providerPb.CheckRequest,
): Promise<providerPb.CheckResponse> {
  const { provider } = messages();
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const { values, secrets } = unwrapHidden(req.getNews());
  const checked = await impl.check(unwrapHidden(req.getOlds()).values, values);
  const res = new provider.CheckResponse();
  res.setInputs(toStruct(wrap(checked.inputs ?? values, secrets)));
  for (const f of [...outputOnlyGiven(resource.definition, values), ...(checked.failures ?? [])]) {
    const failure = new provider.CheckFailure();
    failure.setProperty(f.property);
    failure.setReason(f.reason);
    res.addFailures(failure);
  }
  return res;
}

export async function diff(
  instance: ProviderInstance,
  req: providerPb.DiffRequest,
): Promise<providerPb.DiffResponse> {
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const olds = unwrapHidden(req.getOlds()).values;
  const oldInputs = unwrapHidden(req.getOldInputs()).values;
  const news = unwrapHidden(req.getNews()).values;
  const verdict = await instance.guard(() => impl.diff(req.getId(), olds, news));
  return diffResponse(verdict, resource, olds, oldInputs, news);
}

export async function create(
  instance: ProviderInstance,
  req: providerPb.CreateRequest,
): Promise<providerPb.CreateResponse> {
  const { provider } = messages();
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const { values, secrets } = unwrapHidden(req.getProperties());
  const res = new provider.CreateResponse();
  if (req.getPreview()) {
    res.setProperties(toStruct(wrap(previewOutputs(resource, values, {}), secrets)));
    return res;
  }
  // The engine may send Create without Check (e.g. an import of a changed program): check again.
  const checked = await impl.check({}, values);
  const failures = [...outputOnlyGiven(resource.definition, values), ...(checked.failures ?? [])];
  if (failures.length)
    throw new RpcFailure(
      "INVALID_ARGUMENT",
      `secops: invalid inputs for ${req.getUrn()}: ${failures.map((f) => `${f.property}: ${f.reason}`).join("; ")}`,
    );
  const made = await instance
    .guard(() => impl.create(values))
    .catch((err: unknown) => {
      // A half-finished create reports what it made: keep its secrets secret too.
      const partial = err as { properties?: Bag };
      if (partial && typeof partial.properties === "object")
        partial.properties = wrap(partial.properties, secrets);
      throw err;
    });
  res.setId(made.id);
  res.setProperties(toStruct(wrap(made.outs ?? {}, secrets)));
  return res;
}

/** Inputs after a refresh: each managed input that is also an output takes the value read. */
function refreshedInputs(resource: NativeResource, inputs: Bag, outputs: Bag): Bag {
  const next = { ...inputs };
  for (const k of resource.inputs)
    if (k in inputs && resource.outputs.includes(k) && outputs[k] !== undefined && outputs[k] !== null)
      next[k] = outputs[k];
  return next;
}

export async function read(
  instance: ProviderInstance,
  req: providerPb.ReadRequest,
): Promise<providerPb.ReadResponse> {
  const { provider } = messages();
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const props = unwrapHidden(req.getProperties());
  const inputs = unwrapHidden(req.getInputs());
  // Import: the engine knows only the id; both inputs and properties come back.
  const importing = Object.keys(props.values).length === 0 && Object.keys(inputs.values).length === 0;
  const found = await instance.guard(() => impl.read(req.getId(), importing ? undefined : props.values));
  const res = new provider.ReadResponse();
  if (!found.id || !found.props) return res; // gone: an empty id
  const secrets = new Set([...props.secrets, ...inputs.secrets]);
  const nextInputs = importing
    ? resource.importInputs(found.props)
    : refreshedInputs(resource, inputs.values, found.props);
  res.setId(found.id);
  res.setProperties(toStruct(wrap(found.props, secrets)));
  res.setInputs(toStruct(wrap(nextInputs, secrets)));
  return res;
}

export async function update(
  instance: ProviderInstance,
  req: providerPb.UpdateRequest,
): Promise<providerPb.UpdateResponse> {
  const { provider } = messages();
  const { resource, impl } = resolve(instance, req.getUrn(), req.getType());
  const olds = unwrapHidden(req.getOlds());
  const news = unwrapHidden(req.getNews());
  const secrets = new Set([...olds.secrets, ...news.secrets]);
  const res = new provider.UpdateResponse();
  if (req.getPreview()) {
    res.setProperties(toStruct(wrap(previewOutputs(resource, news.values, olds.values), secrets)));
    return res;
  }
  const updated = await instance.guard(() => impl.update(req.getId(), olds.values, news.values));
  res.setProperties(toStruct(wrap(updated.outs ?? {}, secrets)));
  return res;
}

export async function remove(instance: ProviderInstance, req: providerPb.DeleteRequest): Promise<void> {
  const { impl } = resolve(instance, req.getUrn(), req.getType());
  const olds = unwrapHidden(req.getProperties()).values;
  await instance.guard(() => impl.delete(req.getId(), olds));
}
