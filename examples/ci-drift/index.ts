/** The rules CI guards: any change made outside this program fails the drift job. */
import { HvaAutomationRule } from "pulumi-secops";

export const domainControllers = new HvaAutomationRule("domain-controllers", {
  field: "name",
  search: "dc-*",
}).id;
export const paymentServers = new HvaAutomationRule("payment-servers", { field: "name", search: "pay-*" }).id;
