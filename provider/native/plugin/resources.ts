/** The plugin's resources, from the registry: definition, implementation, and what the RPCs need of them. */
import { defaultsOf, type Bag } from "../../resources/framework/definition";
import { RESOURCES, type RegisteredResource } from "../../resources/framework/registry";

export type { Bag } from "../../resources/framework/definition";

/** One native resource type: its definition (names in messages, what replaces, what is output-only). */
export interface NativeResource extends RegisteredResource {
  /** Input property names. */
  inputs: readonly string[];
  /** Output property names. */
  outputs: readonly string[];
  /** The values Check gives inputs left unset (an unset input is no change from its default). */
  defaults: Readonly<Bag>;
}

/** The resource the plugin serves for `token`, made from its definition; undefined for another token. */
export function nativeResource(token: string): NativeResource | undefined {
  const found = RESOURCES.find((r) => r.definition.token === token);
  if (!found) return undefined;
  const { definition } = found;
  return {
    ...found,
    inputs: Object.keys(definition.inputs),
    outputs: Object.keys(definition.outputs),
    defaults: defaultsOf(definition),
  };
}
