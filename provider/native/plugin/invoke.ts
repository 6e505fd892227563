/** Invoke: the data sources' bodies; a bad argument is a CheckFailure naming it, before any request. */
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { SecOpsInputError } from "../../client/errors";
import { didYouMean } from "../../client/options";
import { FUNCTIONS } from "../../functions/registry";
import { hideInErrors, type ProviderInstance } from "./instance";
import { RpcFailure } from "./call";
import { addFailures, fromStruct, proto, toStruct, unwrap, wrap } from "./proto";
import type { Bag, FunctionDefinition } from "../../resources/framework/definition";

/** Every function the plugin serves, by token (from the data sources' definitions), with its argument names. */
export const NATIVE_FUNCTIONS: Record<string, { args: string[]; call: FunctionDefinition["call"] }> =
  Object.fromEntries(
    FUNCTIONS.map((f) => [
      f.token,
      { args: Object.keys(f.inputs?.properties ?? {}), call: (c, a) => f.call(c, a) },
    ]),
  );

/** Invoke: runs the function of `tok` with this instance's client. */
export async function invoke(
  instance: ProviderInstance,
  req: providerPb.InvokeRequest,
): Promise<providerPb.InvokeResponse> {
  const fn = NATIVE_FUNCTIONS[req.getTok()];
  if (!fn)
    throw new RpcFailure("INVALID_ARGUMENT", `secops: unknown function ${JSON.stringify(req.getTok())}`);
  const { values: args, secrets } = hideInErrors(unwrap(fromStruct(req.getArgs())));
  const res = new (proto().provider.InvokeResponse)();
  try {
    const bad = Object.keys(args).find((key) => !fn.args.includes(key));
    if (bad !== undefined) throw new SecOpsInputError(bad, `is not an argument${didYouMean(bad, fn.args)}`);
    const result = (await instance.guard(async () => fn.call(await instance.client(), args))) as Bag;
    // A result computed from a secret argument is secret too: every property of it.
    res.setReturn(toStruct(secrets.size ? wrap(result, new Set(Object.keys(result ?? {}))) : result));
  } catch (err) {
    if (!(err instanceof SecOpsInputError)) throw err;
    addFailures(res, [{ property: err.field, reason: err.message }]);
  }
  return res;
}
