/**
 * Provider configuration RPCs: Handshake, CheckConfig, DiffConfig and Configure (`apiKey`, secret, and
 * `baseUrl`). A named provider's key comes from its own arguments only; the default provider's from
 * stack config, then SECOPS_API_KEY.
 */
import type * as providerPb from "@pulumi/pulumi/proto/provider_pb";
import { didYouMean } from "../../client/options";
import { SecOpsClient } from "../../client/client";
import { SecOpsConfigError } from "../../client/errors";
import { ENV_VARS, namedProviderWithoutKey, notNonEmptyString, settingProblem } from "../../client/settings";
import {
  describeProvider,
  otherTeamsKeyMessage,
  providerOfUrn,
  type ProviderIdentity,
  type ProviderInstance,
} from "./instance";
import { diffResponse } from "./resource-rpcs";
import { RpcFailure } from "./call";
import { addFailures, fromStruct, proto, toStruct, unwrap, wrap } from "./proto";
import { UNKNOWN } from "../../resources/framework/markers";

/** The provider's config properties. */
export const CONFIG_PROPERTIES = ["apiKey", "baseUrl"] as const;
/** What a provider's inputs may hold: its settings, and the keys the engine or SDK add (ignored). */
const KNOWN_KEYS: readonly string[] = [...CONFIG_PROPERTIES, "version", "pluginDownloadURL"];
type Failure = { property: string; reason: string };

const absent = (v: unknown) => v === undefined || v === null;

/**
 * One failure per problem, without network, naming the provider and the setting; a setting from the
 * environment is checked too, so a bad URL fails preview rather than every resource.
 */
export function configFailures(news: Record<string, unknown>, who?: ProviderIdentity): Failure[] {
  const label = describeProvider(who);
  const failures = Object.keys(news)
    .filter((key) => !KNOWN_KEYS.includes(key))
    .map((key) => {
      // The default provider's settings are the stack's `secops:*` config keys: name the key as set.
      const where = who?.isDefault ? ` (stack config secops:${key})` : "";
      const hint = didYouMean(key, CONFIG_PROPERTIES);
      return { property: key, reason: `${key} is not a setting of ${label}${where}${hint}` };
    });
  const named = who !== undefined && !who.isDefault;
  const keyless = named && (absent(news.apiKey) || news.apiKey === "");
  if (keyless) failures.push({ property: "apiKey", reason: namedProviderWithoutKey(who.name) });
  for (const key of CONFIG_PROPERTIES) {
    const value = news[key];
    // A named provider's key is never from the environment; a missing one is said above.
    if (value === UNKNOWN || (key === "apiKey" && keyless)) continue;
    const env = ENV_VARS[key];
    const set = absent(value) ? process.env[env] : value;
    if (set === undefined || (absent(value) && set === "")) continue;
    const problem = settingProblem(key, set);
    const from = absent(value) ? ` takes its ${key} from ${env}` : "";
    if (problem) failures.push({ property: key, reason: `${label}${from}: ${problem}` });
  }
  return failures;
}

/** CheckConfig. The URN names the provider (default or not); `instance` remembers it for Configure. */
export function checkConfig(
  req: providerPb.CheckRequest,
  instance?: ProviderInstance,
): providerPb.CheckResponse {
  const who = providerOfUrn(req.getUrn());
  if (who && instance) instance.who = who;
  // The key is a secret whether or not it arrived as one.
  const { values, secrets } = unwrap(fromStruct(req.getNews()), ["apiKey"]);
  const res = new (proto().provider.CheckResponse)().setInputs(toStruct(wrap(values, secrets)));
  addFailures(res, configFailures(values, who));
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
    client = new SecOpsClient({ apiKey, baseUrl: url, timeoutMs: 5_000, maxRetries: 1 });
    return (await client.identity()).teamId;
  } catch {
    return undefined;
  } finally {
    await client?.close();
  }
}

export { otherTeamsKeyMessage } from "./instance";

/**
 * DiffConfig. A new key of the same team is an update; one of another team is refused (never a
 * replace); teams that cannot be looked up now make an update, and each operation checks the team.
 * The refusal is thrown by the Configure that follows (before any resource): the engine prints a
 * DiffConfig error with its gRPC framing, a Configure error as it is. Without an instance, thrown here.
 */
export async function diffConfig(
  req: providerPb.DiffRequest,
  instance?: ProviderInstance,
): Promise<providerPb.DiffResponse> {
  const olds = unwrap(fromStruct(req.getOlds())).values;
  const news = unwrap(fromStruct(req.getNews())).values;
  const changed = CONFIG_PROPERTIES.filter(
    (k) =>
      news[k] === UNKNOWN || (k === "baseUrl" ? sameUrl(olds[k]) !== sameUrl(news[k]) : olds[k] !== news[k]),
  );
  if (changed.includes("apiKey")) {
    const [before, after] = await Promise.all([
      teamOfKey(olds.apiKey, olds.baseUrl),
      teamOfKey(news.apiKey, news.baseUrl),
    ]);
    if (before !== undefined && after !== undefined && before !== after) {
      const message = otherTeamsKeyMessage(providerOfUrn(req.getUrn()), before, after);
      const refusal = new RpcFailure("FAILED_PRECONDITION", message);
      if (!instance) throw refusal;
      instance.configureRefusal = refusal;
    } else if (instance && (before === undefined || after === undefined) && typeof olds.apiKey === "string") {
      // Not compared (a lookup failed): fail closed, every write compares them first (see writeTeam).
      const url = [olds.baseUrl, news.baseUrl, process.env.SECOPS_BASE_URL].find(
        (u) => typeof u === "string" && u !== "" && u !== UNKNOWN,
      ) as string | undefined;
      instance.keyChange = { apiKey: olds.apiKey, baseUrl: url };
    }
  }
  return diffResponse(new Map(changed.map((k) => [k, "UPDATE" as const])), {});
}

const text = (v: unknown) => (typeof v === "string" && v !== "" && v !== UNKNOWN ? v : undefined);

/** What this provider supports: secrets and resources (required once it handshakes; no input takes one). */
const PROTOCOL = {
  acceptSecrets: true,
  acceptResources: true,
  acceptOutputs: false,
  supportsAutonamingConfiguration: false,
} as const;

/** Handshake: the engine then ignores Configure's (matching) flags and assumes `preview` support. */
export function handshake(_req: providerPb.ProviderHandshakeRequest): providerPb.ProviderHandshakeResponse {
  return new (proto().provider.ProviderHandshakeResponse)()
    .setAcceptSecrets(PROTOCOL.acceptSecrets)
    .setAcceptResources(PROTOCOL.acceptResources)
    .setAcceptOutputs(PROTOCOL.acceptOutputs)
    .setSupportsAutonamingConfiguration(PROTOCOL.supportsAutonamingConfiguration);
  // acceptsByteString stays false: @pulumi/pulumi 3.248's stubs (our lowest) lack the field.
}

/**
 * Configure. Who the provider is comes from the URN, else its CheckConfig, so a named provider's key
 * never comes from the environment (with neither, as for an old state's refresh, the default's rules).
 */
export async function configure(
  instance: ProviderInstance,
  req: providerPb.ConfigureRequest,
): Promise<providerPb.ConfigureResponse> {
  const refusal = instance.configureRefusal;
  instance.configureRefusal = undefined; // given once
  if (refusal) throw refusal;
  instance.who = providerOfUrn(req.getUrn()) ?? instance.who;
  const args = unwrap(fromStruct(req.getArgs())).values;
  // An apiKey or baseUrl given but unusable is refused, never replaced by the environment's.
  for (const k of CONFIG_PROPERTIES) {
    const what = absent(args[k]) || args[k] === UNKNOWN ? undefined : notNonEmptyString(args[k]);
    if (what)
      throw new SecOpsConfigError(
        `${describeProvider(instance.who)}: its ${k} is ${what}; give a non-empty string`,
        k,
      );
  }
  const variables = req.getVariablesMap();
  instance.configure(
    { apiKey: text(args.apiKey), baseUrl: text(args.baseUrl) },
    (key) => variables.get(key),
    args.apiKey === UNKNOWN,
  );
  // A key given and known is checked now: refused, it fails here once for the provider.
  if (text(args.apiKey) !== undefined) await instance.checkKey();
  // Handshake's answers (for an engine that did not handshake), and preview support.
  return new (proto().provider.ConfigureResponse)()
    .setAcceptsecrets(PROTOCOL.acceptSecrets)
    .setSupportspreview(true)
    .setAcceptresources(PROTOCOL.acceptResources)
    .setAcceptoutputs(PROTOCOL.acceptOutputs)
    .setSupportsAutonamingConfiguration(PROTOCOL.supportsAutonamingConfiguration);
}
