/** The per-resource policies: each reads one resource's checked inputs (the engine's `Analyze`). */
import type { ResourceValidationArgs, ResourceValidationPolicy } from "@pulumi/policy";
import { HVA_SEARCH_FIELDS } from "../client/types";
import { guardrail } from "./meta";
import { RULE_TYPES, SEARCH_MAX_LENGTH, USER_TYPES, read, text } from "./stack";

const isRule = (args: ResourceValidationArgs) => RULE_TYPES.includes(args.type);
const isUser = (args: ResourceValidationArgs) => USER_TYPES.includes(args.type);

/** A search that matches every endpoint: nothing but `*` once trimmed (`*`, `**`, empty). */
export const matchesEverything = (search: string) => /^\**$/.test(search.trim());

/** Mandatory: a search matching every endpoint would make every endpoint a high-value asset. */
export const searchNotEverything = guardrail<ResourceValidationPolicy>({
  name: "secops-search-not-everything",
  description: "An HVA rule's search never matches every endpoint (`*`, `**`, or empty once trimmed).",
  enforcementLevel: "mandatory",
  severity: "critical",
  tags: ["hva"],
  specification: "A rule names the high-value assets it marks; it never marks every endpoint.",
  remediationSteps:
    "Give the rule a pattern that names the assets, e.g. `dc-*` for the domain controllers. To mark many groups, declare one rule per group.",
  validateResource: (args, report) => {
    if (!isRule(args)) return;
    const search = text(args.props, "search");
    if (search !== undefined && matchesEverything(search))
      report(
        `search ${JSON.stringify(search)} matches every endpoint, so every endpoint would become a high-value asset; give a pattern that names the assets (e.g. "dc-*")`,
      );
  },
});

/** Mandatory: a search longer than the API takes. */
export const searchWithinLimit = guardrail<ResourceValidationPolicy>({
  name: "secops-search-within-limit",
  description: `An HVA rule's search is at most ${SEARCH_MAX_LENGTH} characters long, the longest the API takes.`,
  enforcementLevel: "mandatory",
  severity: "medium",
  tags: ["hva"],
  specification: `A rule's search is at most ${SEARCH_MAX_LENGTH} characters (the provider's documented limit).`,
  remediationSteps: "Shorten the search, or split it into several rules.",
  validateResource: (args, report) => {
    if (!isRule(args)) return;
    const search = text(args.props, "search");
    if (search !== undefined && search.length > SEARCH_MAX_LENGTH)
      report(`search is ${search.length} characters long; the API takes at most ${SEARCH_MAX_LENGTH}`);
  },
});

/** The configuration of {@link fieldKnown}. */
export interface FieldKnownConfig {
  /** Refuse a field outside `allowedFields`. Default false: the spec lists only `name`. */
  strict?: boolean;
  /** The fields a rule may search when `strict` is on. Default: the spec's (`name`). */
  allowedFields?: string[];
}

/** Mandatory when `strict` is set: a rule searching a field the spec does not list. */
export const fieldKnown = guardrail<ResourceValidationPolicy>({
  name: "secops-field-known",
  description: "With strict on, an HVA rule searches only a field the spec lists (or allowedFields names).",
  enforcementLevel: "mandatory",
  severity: "low",
  tags: ["hva"],
  specification: "A rule searches a field the API is known to take (the spec lists `name`).",
  remediationSteps:
    "Use a listed field, or add the field to allowedFields in the pack's config once the API is known to take it.",
  configSchema: {
    properties: {
      strict: { type: "boolean", default: false },
      allowedFields: { type: "array", items: { type: "string" }, default: [...HVA_SEARCH_FIELDS] },
    },
  },
  validateResource: (args, report) => {
    if (!isRule(args)) return;
    const { strict = false, allowedFields = [...HVA_SEARCH_FIELDS] } = args.getConfig<FieldKnownConfig>();
    if (!strict) return;
    const field = text(args.props, "field");
    if (field !== undefined && !allowedFields.includes(field))
      report(`field ${JSON.stringify(field)} is not one of the allowed fields (${allowedFields.join(", ")})`);
  },
});

/** Advisory: a DirectoryUserSettings that clears the exposed-credentials mark. */
export const credentialsExposedKept = guardrail<ResourceValidationPolicy>({
  name: "secops-credentials-exposed-kept",
  description: "A DirectoryUserSettings does not turn credentialsExposed to false.",
  enforcementLevel: "advisory",
  severity: "high",
  tags: ["directory"],
  specification:
    "The product's mark that a user's credentials are exposed is cleared only after they were rotated.",
  remediationSteps:
    "Rotate the user's credentials first; then clear the mark once, and remove credentialsExposed from the resource (unset: not managed) so the mark can be raised again.",
  validateResource: (args, report) => {
    if (!isUser(args) || read(args.props, "credentialsExposed") !== false) return;
    const user = text(args.props, "directoryUserId") ?? "(not known yet)";
    report(
      `credentialsExposed is set to false for directory user ${JSON.stringify(user)}, which clears the product's mark that the user's credentials are exposed, and keeps it cleared`,
    );
  },
});
