// The orchestration port's contract (port-contract.ts) on the Temporal port, against Temporal's
// time-skipping test server. Skipped, saying so, where the server is not installed.
import { portContract } from './port-contract';

portContract("orchestration port (Temporal, on Temporal's time-skipping test server)", 'time-skipping-server');
