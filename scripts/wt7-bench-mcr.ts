import "reflect-metadata";
import { benchMcrScoring } from "../test/bench/mcr-scoring.js";
benchMcrScoring(1).catch((e) => { console.error(e); process.exit(1); });
