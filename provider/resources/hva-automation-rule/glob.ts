/** Globs as the query of `List` takes them: `dc-*` matches every text that starts with `dc-`. */

/** A glob as a regular expression over a whole text: `*` any run of characters, `?` one, the rest literal. */
export function globRegExp(glob: string): RegExp {
  const body = glob
    .replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, "[\\s\\S]*")
    .replace(/\?/g, "[\\s\\S]");
  return new RegExp(`^${body}$`);
}
