/** Removes the create-intent journal folder global-setup.js made. */
const { rmSync } = require("node:fs");

module.exports = () => {
  if (process.env.SECOPS_INTENT_DIR && !process.env.SECOPS_KEEP_INTENT_DIR)
    rmSync(process.env.SECOPS_INTENT_DIR, { recursive: true, force: true });
};
