import { afterAll, beforeAll, beforeEach } from "vitest";
import { StandIn } from "./stand-in";

/** One stand-in webhook/siteverify for a vitest file: started before its tests, emptied before each, stopped after. */
export function standInPerFile(): StandIn {
  const standIn = new StandIn();
  beforeAll(async () => {
    await standIn.start();
  });
  beforeEach(() => {
    standIn.reset();
  });
  afterAll(async () => {
    await standIn.stop();
  });
  return standIn;
}
