// A free TCP port of 127.0.0.1, for a server a test starts: shared by the hosts of the lease
// service and, copied beside them, the fixtures that start servers of their own.
import { createServer } from "node:net";

/** A port that was free on 127.0.0.1 a moment ago. */
export function freePort() {
  return new Promise((ok, fail) => {
    const s = createServer();
    s.once("error", fail);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => ok(port));
    });
  });
}
