import { StandIn } from "./stand-in";

/** Runs the stand-in webhook in its own process (`[port] [host]`); prints its origin on the first line. */
const standIn = new StandIn();
const origin = await standIn.start(Number(process.argv[2] ?? 0), process.argv[3]);
console.log(origin);
process.on("SIGTERM", () => void standIn.stop().then(() => process.exit(0)));
