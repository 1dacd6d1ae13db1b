// The lease page: on a click, holds one lease of the service at `?service=<url>` (another origin,
// which lists this page's origin in FENCEPOST_CORS_ORIGINS) through fencepost/client, mapped by the
// page's import map to the installed package's `browser` entry; shows what it saw (see
// lease-round.mjs), and the whole report as JSON for the test to check.
import { LeaseClient } from "fencepost/client";
import { holdRound } from "./lease-round.mjs";

const params = new URL(location.href).searchParams;
const show = (id, text) => {
  document.getElementById(id).textContent = text;
};

async function hold() {
  show("status", "holding");
  const report = await holdRound(LeaseClient, { url: params.get("service"), lock: params.get("lock"), text: params.get("text") });
  show("token", report.token);
  show("header", report.header);
  show("renewals", report.renewals.join(", "));
  show("held-state", report.held.state);
  show("doc", JSON.stringify(report.doc.json));
  show("lock-after", JSON.stringify(report.lockAfter.json));
  show("report", JSON.stringify(report, null, 2));
  show("status", "done");
}

const button = document.getElementById("start");
button.addEventListener("click", () => {
  button.disabled = true;
  hold().catch((e) => show("status", `failed: ${e.name}: ${e.message}`));
});
button.disabled = false;
show("status", "ready");
