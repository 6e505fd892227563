/**
 * Provider configuration RPCs: CheckConfig (no network; failures name the property), DiffConfig and
 * Configure. Config properties: `apiKey` (secret) and `baseUrl`.
 */
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { closest, toSettings } from "../../client/options";
import { SecOpsClient } from "../../client/client";
import { SecOpsConfigError } from "../../client/errors";
import type { ProviderInstance } from "./instance";
import { messages, fromStruct, toStruct } from "./messages";
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
  const { provider } = messages();
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

/** A base URL as compared: a trailing slash is no change. */
const sameUrl = (v: unknown) => (typeof v === "string" ? v.replace(/\/+$/, "") : v);

/** The team of a key (GET /v1/auth/me), or undefined when it cannot be had now. */
async function teamOfKey(apiKey: unknown, baseUrl: unknown): Promise<string | undefined> {
  if (typeof apiKey !== "string" || apiKey === UNKNOWN) return undefined;
  const url = typeof baseUrl === "string" && baseUrl !== UNKNOWN ? baseUrl : process.env.SECOPS_BASE_URL;
  if (!url) return undefined;
  let client: SecOpsClient | undefined;
  try {
    client = new SecOpsClient({ apiKey, baseUrl: url, timeoutMs: 5_000, maxRetries: 1, transport: "node" });
    return (await client.identity()).teamId;
  } catch {
    return undefined;
  } finally {
    await client?.close();
  }
}

/**
 * DiffConfig. A new key of the same team is an update of the provider; a key of another team
 * replaces it (and with it every resource it manages, created in the new team and deleted with the
 * old key), so a preview shows it instead of every later operation failing. When the teams cannot be
 * looked up now, it is an update and each operation checks the team before it sends anything.
 */
export async function diffConfig(req: providerPb.DiffRequest): Promise<providerPb.DiffResponse> {
  const { provider } = messages();
  const olds = unwrap(fromStruct(req.getOlds())).values;
  const news = unwrap(fromStruct(req.getNews())).values;
  const res = new provider.DiffResponse();
  const changed = CONFIG_PROPERTIES.filter(
    (k) =>
      news[k] === UNKNOWN || (k === "baseUrl" ? sameUrl(olds[k]) !== sameUrl(news[k]) : olds[k] !== news[k]),
  );
  let replace = false;
  if (changed.includes("apiKey")) {
    const [before, after] = await Promise.all([
      teamOfKey(olds.apiKey, olds.baseUrl),
      teamOfKey(news.apiKey, news.baseUrl),
    ]);
    replace = before !== undefined && after !== undefined && before !== after;
  }
  res.setChanges(
    changed.length
      ? provider.DiffResponse.DiffChanges.DIFF_SOME
      : provider.DiffResponse.DiffChanges.DIFF_NONE,
  );
  res.setDiffsList(changed);
  if (replace) res.setReplacesList(["apiKey"]);
  for (const k of changed) {
    const d = new provider.PropertyDiff();
    d.setKind(
      replace && k === "apiKey"
        ? provider.PropertyDiff.Kind.UPDATE_REPLACE
        : provider.PropertyDiff.Kind.UPDATE,
    );
    res.getDetaileddiffMap().set(k, d);
  }
  res.setHasdetaileddiff(true);
  return res;
}

const text = (v: unknown) => (typeof v === "string" && v !== "" && v !== UNKNOWN ? v : undefined);

/** An apiKey or baseUrl given but unusable is refused, never replaced by the environment's. */
function given(args: Record<string, unknown>): void {
  for (const k of CONFIG_PROPERTIES) {
    const v = args[k];
    if (v === undefined || v === null || v === UNKNOWN) continue;
    if (typeof v !== "string" || v.trim() === "")
      throw new SecOpsConfigError(
        `secops: the provider's ${k} is ${typeof v === "string" ? "empty" : `a ${typeof v}`}; give a non-empty string, or leave it unset to use secops:${k} or the environment`,
        k,
      );
  }
}

export function configure(
  instance: ProviderInstance,
  req: providerPb.ConfigureRequest,
): providerPb.ConfigureResponse {
  const { provider } = messages();
  const args = unwrap(fromStruct(req.getArgs())).values;
  given(args);
  const variables = req.getVariablesMap();
  instance.configure({ apiKey: text(args.apiKey), baseUrl: text(args.baseUrl) }, (key) => variables.get(key));
  const res = new provider.ConfigureResponse();
  res.setAcceptsecrets(true);
  res.setSupportspreview(true);
  res.setAcceptresources(false);
  res.setAcceptoutputs(false);
  return res;
}
