/** Data sources as stack outputs: the key's role, unhealthy integrations, a case's indicators. */
import * as pulumi from "@pulumi/pulumi";
import { getCaseThreatIndicatorsOutput, getIdentityOutput, getIntegrationCountOutput } from "pulumi-secops";

const config = new pulumi.Config();
const caseId = config.get("caseId") ?? "case-003";

/** The role of the configured API key. */
export const role = getIdentityOutput().role;
/** How many enabled integrations are unhealthy or unstable. */
export const unhealthyIntegrations = getIntegrationCountOutput({
  healthStatus: ["unhealthy", "unstable"],
}).totalCount;

const indicators = getCaseThreatIndicatorsOutput({ caseId, sortDirection: "desc" });
/** How many indicators the case has. */
export const indicatorCount = indicators.totalCount;
/** The newest indicators' titles. */
export const latestIndicators = indicators.indicators.apply((list) =>
  list.slice(0, 5).map((d) => `${d.createdAt} ${d.title}`),
);
