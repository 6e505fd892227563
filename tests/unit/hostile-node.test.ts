/** hostile.test.ts with `transport: "node"`, the native plugin's sender (tests/helpers/transport.ts). */
import { withNodeTransport } from "../helpers/transport";

withNodeTransport(() => require("./hostile.test"));
