/** Every data source's definition: what the plugin serves as invokes and the build writes into the schema. */
import type { FunctionDefinition } from "../resources/framework/definition";
import * as identity from "./get-identity";
import * as integrationCount from "./get-integration-count";
import * as caseThreatIndicators from "./get-case-threat-indicators";

/** The data sources, in the order the schema lists them. */
export const FUNCTIONS: readonly FunctionDefinition[] = [
  identity.definition,
  integrationCount.definition,
  caseThreatIndicators.definition,
];
