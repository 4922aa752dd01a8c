// The saved-card charge scenarios on Temporal's time-skipping test server (skipped, saying so,
// where the binary is not installed).
import { describeCardCharges } from './charge.scenarios';

describeCardCharges('time-skipping-server');
