/** The resource type a URN names (`urn:pulumi:stack::project::[parent$]type::name`), or "". */
export function typeOfUrn(urn: string): string {
  const parts = urn.split("::");
  return parts.length >= 4 ? (parts[2].split("$").pop() ?? "") : "";
}

/** True for the name the engine gives a default provider: `default`, or `default_<version>`. */
export const isDefaultProviderName = (name: string) => /^default(_|$)/.test(name);

/** A resource name from a text: lower-case words joined by `-`; `fallback` for none, prefixed before a digit. */
export function slug(text: string, fallback: string): string {
  const s = text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return s === "" ? fallback : /^[0-9]/.test(s) ? `${fallback}-${s}` : s;
}

/**
 * Objects with stable, unique resource names (`List`, export, drift's import lines): `nameOf` each,
 * -2, -3, ... for a repeat, in id order.
 */
export function uniquelyNamed<T extends { id: string }>(
  items: readonly T[],
  nameOf: (item: T) => string,
): Array<{ name: string; item: T }> {
  const seen = new Map<string, number>();
  return [...items]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((item) => {
      const base = nameOf(item);
      const n = (seen.get(base) ?? 0) + 1;
      seen.set(base, n);
      return { name: n === 1 ? base : `${base}-${n}`, item };
    });
}
