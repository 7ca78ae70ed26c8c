import { sharedByTests } from "./shared-by-tests";
import { StandIn } from "./stand-in";

/** One stand-in webhook/siteverify for a vitest file: started before its tests, emptied before each, stopped after. */
export function standInPerFile(): StandIn {
  const standIn = new StandIn();
  sharedByTests(
    () => standIn.start().then(() => standIn),
    () => standIn.reset(),
  );
  return standIn;
}
