/** High-value-asset automation rules. */
import { z } from "zod";
import { optBool, optEnum, optString } from "./common";
import { HVA_SEARCH_FIELDS } from "../types";

/** An HVA automation rule. `id` is required: a rule cannot be managed without it. */
export const hvaRuleSchema = z.looseObject({
  id: z.string(),
  teamId: optString,
  enabled: optBool,
  searchField: optEnum(HVA_SEARCH_FIELDS),
  search: optString,
});

/** A list of rules (assumed GET /endpoint/hva/automation): a bare array or `{ data: [...] }`. */
export const hvaRuleListSchema = z.union([
  z.array(hvaRuleSchema),
  z.looseObject({ data: z.array(hvaRuleSchema) }).transform((o) => o.data),
]);

/** The body of a rule creation; `field` names the searched field, `search` the text. */
export const hvaRuleCreateSchema = z.strictObject({
  field: z.string().min(1, "must be a non-empty string"),
  search: z.string().min(1, "must be a non-empty string"),
});
