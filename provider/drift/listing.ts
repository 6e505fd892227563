/**
 * Where `secops drift` and `secops hva export` get a team's live rules: one function, so that the
 * source of the list (today the API's list route through the client) can change in one place.
 */
import type { SecOpsClient } from "../client/client";
import type { HvaRule } from "../client/types";

/** Every live HVA rule the client's key can see (its team's). */
export function listRules(client: SecOpsClient): Promise<HvaRule[]> {
  return client.listHvaRules();
}
