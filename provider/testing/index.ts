/**
 * `pulumi-secops/testing`: an offline lifecycle runner that drives Pulumi's own dynamic-provider
 * host, for tests and demos without the Pulumi CLI. Not a Pulumi engine (see runner.ts).
 */
export {
  LifecycleRunner,
  type Op,
  type RunnerOptions,
  type State,
  type StateResource,
  type Step,
} from "./runner";
export { DynamicProviderHost, InitFailedError, secret } from "./host";
export {
  declaredResources,
  linkPackage,
  urnOf,
  type DeclaredResource,
  type ProgramOptions,
  type ProgramSource,
} from "./program";
export { formatSteps } from "./report";
