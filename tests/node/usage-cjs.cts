// The CommonJS view of the same declarations.
import fencepost = require("fencepost");

const auth = new fencepost.LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
const grant = auth.acquire("A", 0);
const token: bigint | undefined = grant.ok ? grant.token : undefined;
void token;
