/**
 * Every resource the provider has, by its definition and implementation: what the plugin serves,
 * what `List` lists, what `secops drift` reads, and what `npm run build` writes the schema, the SDK and
 * the docs from. Adding a resource is its folder (definition and implementation) and one line here
 * (docs/adding-a-resource.md).
 */
import type { ResourceContext, ResourceImplementation } from "./context";
import { dynamicType, type Bag, type ResourceDefinition } from "./definition";
import * as hva from "../hva-automation-rule";
import * as users from "../directory-user-settings";

/** A resource: its definition, and its implementation for one provider instance. */
export interface RegisteredResource {
  definition: ResourceDefinition<never>;
  make(ctx: ResourceContext): ResourceImplementation<Bag, Bag>;
}

/** A registration: a definition, and how to make its implementation for a provider instance. */
const resource = (definition: object, make: (ctx: ResourceContext) => object): RegisteredResource => ({
  definition: definition as ResourceDefinition<never>,
  make: make as RegisteredResource["make"],
});

/** The resources, in the order the schema and the docs list them: one line each. */
export const RESOURCES: readonly RegisteredResource[] = [
  resource(hva.definition, (ctx) => new hva.HvaAutomationRuleImpl(ctx)),
  resource(users.definition, (ctx) => new users.DirectoryUserSettingsImpl(ctx)),
];

/** The resource of a type token: its native token or the type a dynamic resource is recorded under. */
export function resourceOf(type: string): RegisteredResource | undefined {
  return RESOURCES.find((r) => r.definition.token === type || dynamicType(r.definition) === type);
}
