/**
 * Provider configuration RPCs: CheckConfig (no network; failures name the property), DiffConfig and
 * Configure. Config properties: `apiKey` (secret) and `baseUrl`.
 */
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { closest, toSettings } from "../../client/options";
import { SecOpsConfigError } from "../../client/errors";
import type { ProviderInstance } from "./instance";
import { proto, fromStruct, toStruct } from "./proto";
import { unwrap, wrap, UNKNOWN } from "./wire";

/** The provider's config properties. */
export const CONFIG_PROPERTIES = ["apiKey", "baseUrl"] as const;
/** Keys the engine or SDK may add to a provider's inputs; accepted and ignored. */
const ENGINE_KEYS = ["version", "pluginDownloadURL"];
/** A stand-in for the other setting when one is checked on its own. */
const PLACEHOLDER = { apiKey: "placeholder-key", baseUrl: "https://placeholder.invalid" };

/** One failure per problem, without network. */
export function configFailures(news: Record<string, unknown>): Array<{ property: string; reason: string }> {
  const failures: Array<{ property: string; reason: string }> = [];
  for (const key of Object.keys(news)) {
    if ((CONFIG_PROPERTIES as readonly string[]).includes(key) || ENGINE_KEYS.includes(key)) continue;
    const near = closest(key, CONFIG_PROPERTIES);
    failures.push({
      property: key,
      reason: `${key} is not a setting of the secops provider${near ? `; did you mean ${near}?` : ""}`,
    });
  }
  for (const key of CONFIG_PROPERTIES) {
    const value = news[key];
    if (value === undefined || value === null || value === UNKNOWN) continue;
    try {
      toSettings({ ...PLACEHOLDER, [key]: value });
    } catch (err) {
      if (!(err instanceof SecOpsConfigError)) throw err;
      failures.push({ property: key, reason: err.message });
    }
  }
  return failures;
}

export function checkConfig(req: providerPb.CheckRequest): providerPb.CheckResponse {
  const { provider } = proto();
  // The key is a secret whether or not it arrived as one.
  const { values, secrets } = unwrap(fromStruct(req.getNews()), ["apiKey"]);
  const res = new provider.CheckResponse();
  res.setInputs(toStruct(wrap(values, secrets)));
  for (const f of configFailures(values)) {
    const failure = new provider.CheckFailure();
    failure.setProperty(f.property);
    failure.setReason(f.reason);
    res.addFailures(failure);
  }
  return res;
}

export function diffConfig(req: providerPb.DiffRequest): providerPb.DiffResponse {
  const { provider } = proto();
  const olds = unwrap(fromStruct(req.getOlds())).values;
  const news = unwrap(fromStruct(req.getNews())).values;
  const res = new provider.DiffResponse();
  const changed = CONFIG_PROPERTIES.filter((k) => news[k] === UNKNOWN || olds[k] !== news[k]);
  res.setChanges(
    changed.length
      ? provider.DiffResponse.DiffChanges.DIFF_SOME
      : provider.DiffResponse.DiffChanges.DIFF_NONE,
  );
  res.setDiffsList(changed);
  // A new key or URL changes how resources are reached, never which resources exist: no replace.
  for (const k of changed) {
    const d = new provider.PropertyDiff();
    d.setKind(provider.PropertyDiff.Kind.UPDATE);
    res.getDetaileddiffMap().set(k, d);
  }
  res.setHasdetaileddiff(true);
  return res;
}

const text = (v: unknown) => (typeof v === "string" && v !== "" && v !== UNKNOWN ? v : undefined);

export function configure(
  instance: ProviderInstance,
  req: providerPb.ConfigureRequest,
): providerPb.ConfigureResponse {
  const { provider } = proto();
  const args = unwrap(fromStruct(req.getArgs())).values;
  const variables = req.getVariablesMap();
  instance.configure({ apiKey: text(args.apiKey), baseUrl: text(args.baseUrl) }, (key) => variables.get(key));
  const res = new provider.ConfigureResponse();
  res.setAcceptsecrets(true);
  res.setSupportspreview(true);
  res.setAcceptresources(false);
  res.setAcceptoutputs(false);
  return res;
}
