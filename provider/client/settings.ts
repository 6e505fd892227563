/**
 * The two connection settings, `apiKey` and `baseUrl`: where they are set, their rules and every
 * message about them, for the client, the provider's config, the plugin and the functions alike.
 */
import { SecOpsConfigError } from "./errors";

/** The two settings. */
export type SettingName = "apiKey" | "baseUrl";

/** Stack config keys. */
export const CONFIG_KEYS = { apiKey: "secops:apiKey", baseUrl: "secops:baseUrl" } as const;
/** Environment variables. */
export const ENV_VARS = { apiKey: "SECOPS_API_KEY", baseUrl: "SECOPS_BASE_URL" } as const;

const HOW = {
  apiKey: `set it with \`pulumi config set --secret ${CONFIG_KEYS.apiKey} <key>\` or the ${ENV_VARS.apiKey} environment variable`,
  baseUrl: `set it with \`pulumi config set ${CONFIG_KEYS.baseUrl} <url>\` or the ${ENV_VARS.baseUrl} environment variable`,
};

/** The failure of a provider without the setting: what is missing and how to set it. */
export function missingSetting(key: SettingName): SecOpsConfigError {
  const what = key === "apiKey" ? "API key" : "base URL";
  return new SecOpsConfigError(`secops: no ${what} configured: ${HOW[key]}`, key);
}

/**
 * The failure of a named provider without a key, the same in CheckConfig and at its first API call:
 * the fix is on the provider itself, never in stack config or the environment.
 */
export function namedProviderWithoutKey(name: string): string {
  return `the secops provider ${JSON.stringify(name)} has no apiKey: an explicit provider takes its key only from its own arguments (set apiKey on it)`;
}

/** What a value given where a setting goes is, when it is not a non-empty string ("empty", "a number"). */
export function notNonEmptyString(value: unknown): string | undefined {
  if (typeof value !== "string") return `a ${typeof value}`;
  return value.trim() === "" ? "empty" : undefined;
}

/** Header values: no control characters (NUL, CR, LF, DEL, ...), nothing beyond Latin-1. */
export const HEADER_SAFE = /^[\x20-\x7e\x80-\xff]*$/;
/** Shortest key accepted: shorter ones could not be redacted from text without mangling it. */
const MIN_KEY_LENGTH = 8;

/** Checks an API key: it must be able to form the `Authorization` header, and be redactable. */
export function checkApiKey(apiKey: unknown): string {
  const fail = (reason: string) => new SecOpsConfigError(`apiKey ${reason}`, "apiKey");
  if (typeof apiKey !== "string" || apiKey.trim() === "") throw fail("must be a non-empty string");
  if (/\s/.test(apiKey)) throw fail("must not contain whitespace");
  if (!HEADER_SAFE.test(apiKey))
    throw fail("contains characters a header cannot carry (control characters or beyond Latin-1)");
  if (apiKey.length < MIN_KEY_LENGTH)
    throw fail(`is too short to be an API key (at least ${MIN_KEY_LENGTH} characters)`);
  return apiKey;
}

const LOOPBACK = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);
const isLoopback = (hostname: string) => LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname);

/** What a wrong baseUrl is told to look like. */
const BASE_URL_FORM = "baseUrl must be an absolute https URL such as https://api.example.com";

/** The value as given, quoted for a message; a value that may carry credentials is not shown. */
function shown(value: unknown): string {
  if (typeof value !== "string")
    return value === undefined || value === null ? String(value) : `a ${typeof value}`;
  if (value.includes("@")) return "a value with an @ (not shown: it may hold credentials)";
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}...` : value);
}

/**
 * Checks the base URL and returns its origin: an absolute https URL (http for loopback hosts) without
 * credentials, query, fragment or path (refused, not dropped: every route would be wrong).
 */
export function checkBaseUrl(baseUrl: unknown): string {
  const fail = (message: string) => new SecOpsConfigError(message, "baseUrl");
  const url = typeof baseUrl === "string" && URL.canParse(baseUrl) ? new URL(baseUrl) : undefined;
  if (!url || (url.protocol !== "https:" && url.protocol !== "http:") || !url.hostname)
    throw fail(`${BASE_URL_FORM} (got ${shown(baseUrl)})`);
  if (url.protocol !== "https:" && !isLoopback(url.hostname))
    throw fail("baseUrl must be an https URL (plain http is allowed only for loopback hosts)");
  if (url.username || url.password || url.search || url.hash)
    throw fail("baseUrl must not contain credentials, a query or a fragment");
  if (url.pathname !== "/")
    throw fail(
      `baseUrl must not have a path (got ${shown(baseUrl)}): every route would be wrong; use ${url.origin}`,
    );
  return url.origin;
}

/** What is wrong with one setting by the client's rules, without any request; undefined when it passes. */
export function settingProblem(key: SettingName, value: unknown): string | undefined {
  try {
    if (key === "apiKey") checkApiKey(value);
    else checkBaseUrl(value);
    return undefined;
  } catch (err) {
    if (!(err instanceof SecOpsConfigError)) throw err;
    return err.message;
  }
}
