/**
 * The offline runner (the repository's test rig, not part of the package): drives Pulumi's own
 * dynamic-provider host and the native plugin, for tests and demos without the Pulumi CLI. Not a
 * Pulumi engine (see runner.ts and README.md).
 */
export {
  LifecycleRunner,
  StepFailedError,
  stepsOf,
  type Command,
  type Listed,
  type Op,
  type RunnerOptions,
  type State,
  type StateResource,
  type Step,
} from "./runner";
export {
  InitFailedError,
  ProviderProcess,
  secret,
  type CheckFailure,
  type DiffAnswer,
  type ListAnswer,
  type ListPageOptions,
} from "./host";
export { DynamicProviderHost, NativePluginProcess } from "./processes";
export {
  declaredResources,
  urnOf,
  type DeclaredResource,
  type ProgramOptions,
  type ProgramSource,
} from "./program";
export { linkPackage } from "./load";
export { formatSteps } from "./report";
