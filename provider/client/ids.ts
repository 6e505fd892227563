/** Identifier rules shared by the client and the resources' checks (no dependencies: cheap to load). */

/** A lone UTF-16 surrogate: such a string cannot be encoded into a URL. */
export const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** True for `.` and `..`, also when percent-encoded (`%2e`, `%2E%2e`, ...). */
export function isDotSegment(v: string): boolean {
  let decoded = v;
  for (let i = 0; i < 3 && /%[0-9a-f]{2}/i.test(decoded); i++) {
    try {
      decoded = decodeURIComponent(decoded);
    } catch {
      break;
    }
  }
  return decoded === "." || decoded === ".." || v === "." || v === "..";
}
