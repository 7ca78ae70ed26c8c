import { STAND_IN_PORT } from "./ports";
import { StandIn } from "../../harness/stand-in";

/** Starts the stand-in webhook/siteverify for the whole run; Playwright calls the returned teardown. */
export default async function globalSetup() {
  const standIn = new StandIn();
  await standIn.start(STAND_IN_PORT);
  return () => standIn.stop();
}
