// fencepost/client in Deno (its `deno` entry): holds one lease of the service at the URL given
// (see hold-once.js) and prints what it saw as one JSON line.
//
//   deno run --allow-net=<host> --allow-read=<npm/dist> lease-holder-deno.ts <service url> <lock>

import { LeaseClient } from "../../npm/dist/client/deno.js";
import { holdOnce } from "./hold-once.js";

const [base, lock] = Deno.args;
console.log(JSON.stringify(await holdOnce(new LeaseClient({ url: base }), lock)));
