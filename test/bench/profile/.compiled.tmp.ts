import "reflect-metadata";
import { startTestPlatform } from "../../support/platform.js";
import { OPERATIONS } from "../../../rest-shim/operations.js";
const p = await startTestPlatform({});
const ex = (p as any).platform?.shim?.executor ?? (p as any).shim?.executor;
ex.paths(Object.values(OPERATIONS));
const counts = new Map<string, number>();
for (const [name, how] of ex.executions()) { counts.set(how, (counts.get(how) ?? 0) + 1); if (/Heartbeat|MarketMachines$|Challenge/.test(name)) console.log(name, how); }
console.log([...counts].sort((a, b) => b[1] - a[1]));
await p.close();
