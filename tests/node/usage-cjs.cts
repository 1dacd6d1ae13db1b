// The CommonJS view of the same declarations.
import fencepost = require("fencepost");

const auth = new fencepost.LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
const grant = auth.acquire("A", 0);
const token: bigint | undefined = grant.ok ? grant.token : undefined;
void token;

import client = require("fencepost/client");
const leases = new client.LeaseClient({ url: "http://127.0.0.1:8787" });
void leases.acquire("invoices").then((lease: client.Lease) => lease.token);
