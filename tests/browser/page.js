// The story in a page, through the package's `browser` export (mapped by the page's import map).
import { FenceGuard, LeaseAuthority } from "fencepost";

const auth = new LeaseAuthority({ ttlMs: 30_000, firstToken: 33n });
const a = auth.acquire("A", 0);
const b = auth.acquire("B", 45_000);
const guard = new FenceGuard();
const steps = [a, b, guard.admit(b.token), guard.admit(a.token)];
const text = JSON.stringify(steps, (_, v) => (typeof v === "bigint" ? `${v}n` : v));
document.getElementById("story").textContent = text;
window.fencepostStory = text;
