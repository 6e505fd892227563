/**
 * Connection for data-source functions. They run in the program process (dynamic providers have
 * no invoke), so they share one client per connection settings and are cheap to call many times.
 */
import * as pulumi from "@pulumi/pulumi";
import type { SecOpsClient } from "../client/client";
import { clientFor, resolveSettings, type ConnectionOptions } from "../config";

/** Options every function takes: explicit connection settings (else stack config, else env). */
export type FunctionOptions = ConnectionOptions;

/** The shared client for explicit options > `secops:apiKey`/`secops:baseUrl` > SECOPS_* env. */
export function functionClient(opts: FunctionOptions = {}): SecOpsClient {
  const config = new pulumi.Config("secops");
  return clientFor(resolveSettings(opts, (key) => config.get(key.slice("secops:".length))));
}
