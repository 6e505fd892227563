/**
 * An HVA rule resource's values after check and in state, in a module below the files of its
 * implementation (the resource's own, hva-create, hva-reconcile, hva-settle), which all use them.
 */

/** Inputs after check: defaults applied. */
export interface HvaRuleInputs {
  field: string;
  search: string;
  enabled: boolean;
  adoptExisting: boolean;
  __provider?: string;
}

/** Outputs stored in state. */
export interface HvaRuleOutputs {
  field: string;
  search: string;
  enabled: boolean;
  teamId: string;
  /** When this provider disabled the rule (ISO 8601); absent while it is enabled. */
  disabledAt?: string;
}
