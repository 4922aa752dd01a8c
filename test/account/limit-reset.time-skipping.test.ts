// The monthly-limit reset scenarios on Temporal's time-skipping test server (skipped, saying so,
// where the binary is not installed).
import { describeLimitReset } from './limit-reset.scenarios';

describeLimitReset('time-skipping-server');
